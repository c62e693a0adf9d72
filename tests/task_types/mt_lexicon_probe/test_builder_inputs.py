"""The word-list readers and templates behind the organiser's probe-set page."""

from __future__ import annotations

import pytest

from tasks.base import FormatError
from tasks.mt_lexicon_probe.builder import (
    read_pos_lexicon,
    read_word_pairs,
    templates_for,
)
from tasks.mt_lexicon_probe.probes import Pos

COLUMNS = ("de", "en")


def test_pos_lexicon_groups_pairs_by_class_in_source_order():
    data = "Haus\thouse\tnoun\nschnell\tfast\tAdjective\n\nlaufen\trun\tVERB\n"
    out = read_pos_lexicon(data.encode(), "lex.tsv", columns=COLUMNS, source="en")
    assert out == {
        Pos.NOUN: [("house", "Haus")],
        Pos.ADJ: [("fast", "schnell")],
        Pos.VERB: [("run", "laufen")],
    }
    de = read_pos_lexicon(data.encode(), "lex.tsv", columns=COLUMNS, source="de")
    assert de[Pos.NOUN] == [("Haus", "house")]


def test_pos_lexicon_names_file_and_line_of_every_problem():
    data = "Haus\thouse\tnoun\nschnell\tfast\nbald\tsoon\tadverb\n\tx\tnoun\n"
    with pytest.raises(FormatError) as err:
        read_pos_lexicon(data.encode(), "lex.tsv", columns=COLUMNS, source="en")
    where = [(p.file, p.line) for p in err.value.problems]
    assert where == [("lex.tsv", 2), ("lex.tsv", 3), ("lex.tsv", 4)]
    assert "found 2" in err.value.problems[0].message
    assert "unknown pos 'adverb'" in err.value.problems[1].message


@pytest.mark.parametrize("data", [b"", b"\n\n", "\ufeff\n".encode()])
def test_an_empty_lexicon_is_an_error(data):
    with pytest.raises(FormatError, match="lex.tsv: the lexicon contains no"):
        read_pos_lexicon(data, "lex.tsv", columns=COLUMNS, source="en")
    with pytest.raises(FormatError, match="verbs.tsv: contains no word pairs"):
        read_word_pairs(data, "verbs.tsv", columns=COLUMNS, source="en")


def test_word_pairs_read_tsv_and_json():
    tsv = read_word_pairs(b"Haus\thouse\n", "n.tsv", columns=COLUMNS, source="en")
    assert tsv == [("house", "Haus")]
    js = read_word_pairs(
        b'{"house": ["Haus", "Geb\\u00e4ude"]}', "n.json", columns=COLUMNS, source="en"
    )
    assert js == [("house", "Haus"), ("house", "Gebäude")]
    with pytest.raises(FormatError) as err:
        read_word_pairs(b"Haus\thouse\nHof\n", "n.tsv", columns=COLUMNS, source="en")
    assert (err.value.problems[0].file, err.value.problems[0].line) == ("n.tsv", 2)


def test_templates_replace_defaults_and_need_their_placeholder():
    assert templates_for("en").adj == "This is {adj}."
    de = templates_for("de", noun="Ein {noun} ist gut.")  # the default: kept variants
    assert de.noun_feminine == "Eine {noun} ist gut."
    own = templates_for("de", noun="Der {noun} ist da.", verb="Sie {verb}.")
    assert own.noun_feminine is None and own.verb == "Sie {verb}."
    assert own.sentence("Katze", Pos.NOUN, "f") == "Der Katze ist da."
    with pytest.raises(ValueError, match=r"noun template must contain \{noun\}"):
        templates_for("en", noun="The thing.")
