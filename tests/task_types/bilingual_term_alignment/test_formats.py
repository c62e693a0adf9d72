"""Every kind of bad input, with tiny inline fixtures in the native format."""

from __future__ import annotations

import pytest

from tasks.base import FormatError
from tasks.bilingual_term_alignment import runs
from tasks.bilingual_term_alignment.formats import (
    Inputs,
    Settings,
    parse_gold,
    parse_term_list,
)
from tasks.bilingual_term_alignment.runs import parse_run

INPUTS = Inputs(
    source_terms=frozenset({"cell", "heart", "Café"}),
    target_terms=frozenset({"zelle", "herz", "café", "Zelle"}),
)
GOLD_SECRET = "herz"


def run(data: bytes, settings: Settings | None = None):
    return parse_run(data, "run.tsv", INPUTS, settings or Settings())


def lines_of(exc: pytest.ExceptionInfo[FormatError]) -> list[int | None]:
    return [p.line for p in exc.value.problems]


def test_term_list_normalises_and_rejects():
    data = "\ufeff cell \r\nheart\r\n\r\nCafe\u0301\nheart\n".encode()
    assert parse_term_list(data, "d1") == frozenset({"cell", "heart", "Café"})
    with pytest.raises(FormatError, match="empty"):
        parse_term_list(b"\n\n", "d1")
    with pytest.raises(FormatError) as exc:
        parse_term_list(b"a\tb\n", "d1")
    assert lines_of(exc) == [1]


def test_clean_run_keeps_order():
    r = run(b"heart\therz\ncell\tzelle\n")
    assert r.pairs == (("heart", "herz"), ("cell", "zelle"))
    assert (r.n_duplicates, r.n_oov, r.n_truncated, r.warnings) == (0, 0, 0, ())


def test_bom_crlf_trim_nfc():
    # BOM, CRLF, spaces around the tab, decomposed e + combining acute
    data = "\ufeffheart \t herz\r\nCafe\u0301\tcafe\u0301\r\n".encode()
    assert run(data).pairs == (("heart", "herz"), ("Café", "café"))


def test_case_sensitive_matching():
    r = run(b"cell\tZelle\ncell\tzelle\nCell\tzelle\n")
    assert r.pairs == (("cell", "Zelle"), ("cell", "zelle"))
    assert r.n_oov == 1


def test_not_utf8_names_the_line():
    with pytest.raises(FormatError) as exc:
        run(b"heart\therz\ncell\tz\xe9lle\n")
    assert lines_of(exc) == [2]
    assert "UTF-8" in str(exc.value)


def test_bad_lines_are_all_listed_with_reasons():
    data = b"heart\therz\nno tab here\ncell\tzelle\t0.9\n\tzelle\ncell\t \n"
    with pytest.raises(FormatError) as exc:
        run(data)
    assert lines_of(exc) == [2, 3, 4, 5]
    messages = [p.message for p in exc.value.problems]
    assert "no tab" in messages[0]
    assert "3 tab-separated fields" in messages[1]
    assert "empty source" in messages[2]
    assert "empty target" in messages[3]
    assert all(p.file == "run.tsv" for p in exc.value.problems)


def test_many_bad_lines_are_capped_but_counted():
    with pytest.raises(FormatError) as exc:
        run(b"x\n" * 50)
    assert len(exc.value.problems) == FormatError.MAX_PROBLEMS
    assert exc.value.total == 50


def test_blank_lines_are_skipped():
    assert run(b"\nheart\therz\n  \n").pairs == (("heart", "herz"),)


def test_empty_run_is_valid():
    r = run(b"")
    assert r.pairs == () and r.n_lines == 0


def test_duplicates_kept_once_with_line_numbers():
    data = b"heart\therz\ncell\tzelle\nheart\therz\nheart\therz\ncell\tzelle\n"
    r = run(data)
    assert r.pairs == (("heart", "herz"), ("cell", "zelle"))
    assert r.n_duplicates == 3
    assert r.warnings == (
        "3 repeated pair(s) removed, only the first occurrence counts (line(s) 3, 4, 5)",
    )


def test_oov_pairs_dropped_and_counted():
    data = b"heart\tHerz\nheart\therz\nliver\tleber\nliver\therz\n"
    r = run(data)
    assert r.pairs == (("heart", "herz"),)
    assert r.n_oov == 3
    assert "3 pair(s) outside" in r.warnings[0] and "1, 3, 4" in r.warnings[0]


def test_bytes_way_cleans_like_the_text_way(monkeypatch):
    # untrimmed, decomposed, repeated and unknown pairs, on lines with one tab each:
    # read as bytes (only the odd fields decoded), with the text way's warnings;
    # the same file with a blank line goes the text way and gives the same run
    data = "heart\therz\n heart \therz\nCafe\u0301\tcafé\nliver\therz\nliver \therz\n"
    # three odd pairs in five: by default the text way reads such a file
    assert runs._read_bytes(data.encode(), INPUTS.vocabulary) is None
    monkeypatch.setattr(runs, "ODD_SHARE", 1)  # never more than all
    fast = runs._read_bytes(data.encode(), INPUTS.vocabulary)
    assert fast is not None
    slow = run((data + "\n").encode())
    for r in (fast, run(data.encode()), slow):
        assert r.pairs == (("heart", "herz"), ("Café", "café"))
        assert (r.n_lines, r.n_duplicates, r.n_oov) == (5, 2, 1)
        assert r.warnings == (
            "2 repeated pair(s) removed, only the first occurrence counts (line(s) 2, 5)",
            "1 pair(s) outside the source x target term lists removed (line(s) 4)",
        )
    assert runs._read_bytes((data + "\n").encode(), INPUTS.vocabulary) is None


def test_cap_reject_and_truncate():
    # mean(|D1|, |D2|) = 3.5; cap_factor 0.5 -> cap = 1
    data = b"heart\therz\ncell\tzelle\ncell\tZelle\n"
    with pytest.raises(FormatError, match="more than the limit of 1"):
        run(data, Settings(cap_factor=0.5))
    r = run(data, Settings(cap_policy="truncate", cap_factor=0.5))
    assert r.pairs == (("heart", "herz"),)
    assert r.n_truncated == 2
    assert "cut to the limit of 1" in r.warnings[-1]
    # the default cap (35 pairs here) lets the whole run through
    assert len(run(data).pairs) == 3


def test_cap_counts_ranked_pairs_only():
    data = b"heart\therz\nheart\therz\nliver\therz\n"
    assert run(data, Settings(cap_factor=0.5)).pairs == (("heart", "herz"),)


def test_run_errors_never_reveal_gold():
    # parse_run never sees the gold; its messages quote the run's own lines only
    with pytest.raises(FormatError) as exc:
        run(b"cell\n")
    assert GOLD_SECRET not in str(exc.value)
    r = run(b"cell\tzelle\ncell\tzelle\nliver\tleber\n")
    assert all(GOLD_SECRET not in w for w in r.warnings)


def test_gold_parsing():
    g = parse_gold(
        b"\xef\xbb\xbfheart\therz\r\ncell\tzelle\r\nheart\therz\r\n", "gold", INPUTS
    )
    assert g.pairs == frozenset({("heart", "herz"), ("cell", "zelle")})
    assert g.sorted_pairs == (("cell", "zelle"), ("heart", "herz"))
    assert g.n_duplicates == 1


def test_gold_errors():
    with pytest.raises(FormatError, match="gold dictionary is empty"):
        parse_gold(b"", "gold", INPUTS)
    with pytest.raises(FormatError) as exc:
        parse_gold(b"heart\therz\nliver\tleber\nheart\n", "gold", INPUTS)
    # Every kind of problem at once: the bad line, then the pair outside the lists.
    assert lines_of(exc) == [3, 2]
    message = str(exc.value)
    assert "no tab" in message and "not in the source term list" in message
    with pytest.raises(FormatError) as exc:
        parse_gold(b"heart\therz\nliver\tleber\n", "gold", INPUTS)
    assert lines_of(exc) == [2]
    assert "not in the source term list" in str(exc.value)


def test_settings_validation():
    with pytest.raises(ValueError):
        Settings(cap_factor=0)
