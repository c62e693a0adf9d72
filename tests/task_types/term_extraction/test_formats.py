"""Gold and run files: normalisation, duplicates, ranking, opt-in forms, bad input."""

from __future__ import annotations

import pytest

from tasks.base import FormatError
from tasks.term_extraction.formats import (
    TermExtractionSettings,
    parse_gold,
    parse_run,
)
from tasks.term_extraction.task import TermExtraction

DEFAULT = TermExtractionSettings()


def test_gold_normalisation_and_merged_lines() -> None:
    data = "\ufeffheart failure\tSpecific_Term\r\nheart  failure\tSpecific_Term\r\n\r\n Heart failure \tCommon_Term\r\necg\n".encode()
    gold = parse_gold(data, "gold.tsv", TermExtractionSettings(casefold=True))
    assert gold.terms == ("heart failure", "ecg")
    assert gold.labels == ("Specific_Term", None)
    assert gold.lines == (1, 5)
    assert gold.merged_lines == ((1, 2, 4),)
    assert "gold lines 1, 2, 4" in gold.merge_warnings()[0]
    # TermEval mode keeps the terms as written.
    assert gold.written == ("heart failure", "heart  failure", " Heart failure ", "ecg")


def test_gold_nfc() -> None:
    decomposed = "fraction d'e\u0301jection\n".encode()
    assert parse_gold(decomposed, "g", DEFAULT).terms == ("fraction d'\u00e9jection",)


def test_gold_exclude_labels() -> None:
    data = b"a\tSpecific_Term\nParis\tNamed_Entity\n"
    gold = parse_gold(
        data, "g", TermExtractionSettings(exclude_labels=("Named_Entity",))
    )
    assert gold.terms == ("a",)
    assert gold.n_excluded == 1


def test_gold_errors_name_file_and_line() -> None:
    with pytest.raises(FormatError) as err:
        parse_gold(b"a\nb\tL\textra\n\tL\n", "gold.tsv", DEFAULT)
    lines = [(p.file, p.line) for p in err.value.problems]
    assert lines == [("gold.tsv", 2), ("gold.tsv", 3)]
    with pytest.raises(FormatError, match="no terms"):
        parse_gold(b"\n \n", "gold.tsv", DEFAULT)


def test_run_duplicates_and_casefold() -> None:
    run = parse_run(
        b"Heart Failure\nheart  failure\nECG\n",
        "run.txt",
        TermExtractionSettings(casefold=True),
    )
    assert run.terms == ("heart failure", "ecg")
    assert run.n_duplicates == 1
    assert not run.scored


def test_scored_run_is_sorted_by_score() -> None:
    run = parse_run(b"b\t0.5\na\t2\nc\t0.5\nA\t0.1\n", "run.tsv", DEFAULT)
    assert run.scored
    assert run.terms == ("a", "b", "c", "A")
    assert run.written == ("a", "b", "c")


def test_scored_run_errors() -> None:
    with pytest.raises(FormatError) as err:
        parse_run(b"a\t1\nb\nc\tx\nd\tnan\n", "run.tsv", DEFAULT)
    assert [p.line for p in err.value.problems] == [2, 3, 4]
    assert "run.tsv, line 3" in str(err.value)


def test_not_utf8() -> None:
    with pytest.raises(FormatError) as err:
        parse_run("a\nb\ncaf\u00e9\n".encode("latin-1"), "run.txt", DEFAULT)
    assert err.value.problems[0].line == 3
    assert "UTF-8" in err.value.problems[0].message


def test_binary() -> None:
    with pytest.raises(FormatError, match="binary"):
        parse_run(b"a\n\x00\x01\x02", "run.txt", DEFAULT)


def test_long_line() -> None:
    with pytest.raises(FormatError) as err:
        parse_run(b"a\n" + b"x" * 1001 + b"\n", "run.txt", DEFAULT)
    assert err.value.problems[0].line == 2


def test_over_the_task_limit() -> None:
    settings = TermExtractionSettings(max_terms=3)
    parse_run(b"a\nb\n\nc\n", "run.txt", settings)
    with pytest.raises(FormatError) as err:
        parse_run(b"a\nb\n\nc\nd\n", "run.txt", settings)
    assert (err.value.problems[0].file, err.value.problems[0].line) == ("run.txt", 5)


def test_csv_only_when_enabled() -> None:
    data = b"0,heart failure\n1,ecg, resting\n"
    assert parse_run(data, "r.csv", DEFAULT).terms == (
        "0,heart failure",
        "1,ecg, resting",
    )
    run = parse_run(data, "r.csv", TermExtractionSettings(accept_formats=("csv",)))
    assert run.terms == ("heart failure", "ecg, resting")
    assert run.source_format == "csv"
    with pytest.raises(FormatError) as err:
        parse_run(b"0,a\nb\n", "r.csv", TermExtractionSettings(accept_formats=("csv",)))
    assert err.value.problems[0].line == 2


def test_json_only_when_enabled() -> None:
    data = '["heart failure", "e\u0301cg", "heart failure"]'.encode()
    run = parse_run(data, "r.json", TermExtractionSettings(accept_formats=("json",)))
    assert run.terms == ("heart failure", "\u00e9cg")
    assert run.n_duplicates == 1
    with pytest.raises(FormatError, match="invalid JSON"):
        parse_run(
            b'[\n"a",\n', "r.json", TermExtractionSettings(accept_formats=("json",))
        )
    with pytest.raises(FormatError, match="list of strings"):
        parse_run(b"[1, 2]", "r.json", TermExtractionSettings(accept_formats=("json",)))


def test_settings_validation() -> None:
    tt = TermExtraction()
    settings = tt.parse_settings(
        {"tau": 0.3, "exclude_labels": ["Named_Entity"], "mode": "termeval"}
    )
    assert settings.exclude_labels == ("Named_Entity",)
    from tasks.base import SettingsError

    for bad in (
        {"tau": 1.5},
        {"mode": "x"},
        {"accept_formats": ["xml"]},
        {"cap": 0},
        {"nope": 1},
    ):
        with pytest.raises(SettingsError):
            tt.parse_settings(bad)


def test_csv_quoted_terms() -> None:
    settings = TermExtractionSettings(accept_formats=("csv",))
    run = parse_run(b'0,a\n1,"13,9 pmol"\n2,"say ""hi"""\n', "r.csv", settings)
    assert run.terms == ("a", "13,9 pmol", 'say "hi"')


def test_json_list_of_lists() -> None:
    data = b'[["a", "b"], ["c"], []]'
    settings = TermExtractionSettings(accept_formats=("json",), json_list=1)
    assert parse_run(data, "p.json", settings).terms == ("c",)
    with pytest.raises(FormatError, match="list 3 is missing"):
        parse_run(
            data,
            "p.json",
            TermExtractionSettings(accept_formats=("json",), json_list=3),
        )
    with pytest.raises(FormatError, match="list of strings"):
        parse_run(data, "p.json", TermExtractionSettings(accept_formats=("json",)))
