from __future__ import annotations

import doctest

import pytest

from tasks.mt_lexicon_probe import builder, scoring, tags
from tasks.mt_lexicon_probe.tags import (
    JudgementMemory,
    Tag,
    TagSource,
    is_copied,
    matching_reference,
    normalise_translation,
    settle,
)


@pytest.mark.parametrize("module", [tags, scoring, builder])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0
    assert result.failed == 0


@pytest.mark.parametrize(
    ("word", "translation", "copied"),
    [
        ("bank", "Die Bank kann nett sein.", True),  # case ignored
        ("BANK", "die bank", True),
        ("keyboard", "Wir keyboards.", False),  # whole tokens only
        ("horse", "Das horse-Pferd ist gut.", False),  # hyphen joins one token
        ("horse", "Das horse ist gut.", True),
        ("warm-heartedness", "das warme heartedness", False),
        ("warm-heartedness", "Die Warm-Heartedness", True),
        ("ice cream", "Das Ice Cream ist", True),  # token sequence
        ("straße", "Die STRASSE", True),  # case folding
        ("bank", "", False),
    ],
)
def test_is_copied(word, translation, copied):
    assert is_copied(word, translation) is copied


def test_matching_reference_whole_tokens():
    assert (
        matching_reference(["neu ausrichten"], "Wir müssen neu ausrichten.")
        == "neu ausrichten"
    )
    assert matching_reference(["Haus"], "Das Hausboot ist gut.") is None
    assert matching_reference(["Boot", "Haus"], "Das haus ist gut.") == "Haus"


def test_normalise_translation_ignores_case_punctuation_spacing():
    assert normalise_translation("Dies ist hart.") == "dies ist hart"
    assert normalise_translation("  dies   IST hart ") == "dies ist hart"
    assert normalise_translation("Dies ist schwer.") != normalise_translation(
        "Dies ist hart."
    )


def test_settle_precedence():
    memory = JudgementMemory.build([("a1", "Es ist hart.", Tag.WRONG)])
    # 1. an explicit judgement beats everything
    o = settle(
        "a1",
        "hard",
        "Es ist hart.",
        references=["hart"],
        judgement=Tag.CORRECT,
        memory=memory,
    )
    assert (o.tag, o.source) == (Tag.CORRECT, TagSource.JUDGEMENT)
    # 2. memory beats the automatic rules
    o = settle("a1", "hard", "es ist HART", references=["hart"], memory=memory)
    assert (o.tag, o.source) == (Tag.WRONG, TagSource.MEMORY)
    # 3. copied source word -> u, even when a reference also occurs
    o = settle("a1", "hard", "Es ist hard hart.", references=["hart"])
    assert (o.tag, o.source) == (Tag.UNKNOWN, TagSource.AUTO_UNKNOWN)
    # 4. reference occurs -> c proposed, not confirmed
    o = settle("a1", "hard", "Es ist hart.", references=["schwer", "hart"])
    assert (o.tag, o.source, o.matched) == (
        Tag.CORRECT,
        TagSource.PROPOSED_CORRECT,
        "hart",
    )
    # 5. nothing applies
    o = settle("a1", "hard", "Es ist schwierig.", references=["hart"])
    assert (o.tag, o.source) == (None, TagSource.PENDING)


def test_memory_is_per_probe_and_drops_conflicts():
    memory = JudgementMemory.build(
        [
            ("a1", "Dies ist hart.", Tag.CORRECT),
            ("a1", "dies ist hart", Tag.CORRECT),  # same key, same tag: fine
            ("a2", "Dies ist weich.", Tag.CORRECT),
            ("a2", "dies ist WEICH!", Tag.WRONG),  # same key, other tag: conflict
        ]
    )
    assert len(memory) == 1
    assert memory.lookup("a1", "DIES IST HART") is Tag.CORRECT
    assert memory.lookup("a3", "Dies ist hart.") is None  # other probe
    assert memory.lookup("a2", "Dies ist weich.") is None
    assert memory.conflicts == frozenset({("a2", "dies ist weich")})


def test_tag_metadata():
    assert [t.value for t in Tag] == ["u", "w", "m", "wf", "s", "f", "wd", "c"]
    assert len({t.shortcut for t in Tag}) == 8
    assert Tag.WRONG_DETERMINER.nouns_only and not Tag.WRONG_FORM.nouns_only
    assert tags.parse_tag(" WF ") is Tag.WRONG_FORM
    assert tags.parse_tag("x") is None
