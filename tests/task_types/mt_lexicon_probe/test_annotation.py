from __future__ import annotations

from tasks.mt_lexicon_probe.annotation import (
    TAG_BY_KEY,
    group_translations,
    memory_from_judgements,
    progress,
)
from tasks.mt_lexicon_probe.probes import parse_probes, parse_run
from tasks.mt_lexicon_probe.tags import Tag, TagSource

PROBES = parse_probes(
    b"a1\thard\tadj\thigh\tThis is hard.\thart|schwer\n"
    b"n1\tvaulting-horse\tnoun\tlow\tThe vaulting-horse can be nice.\tSpringpferd\n",
    "probes.tsv",
)
RUNS = {
    "A": parse_run(
        "Dies ist schwierig.\nDas Gewölbe-Pferd kann schön sein.\n".encode(),
        "a",
        PROBES,
    ),
    "B": parse_run(
        "dies ist schwierig\nDas Vaulting-Horse kann schön sein.\n".encode(),
        "b",
        PROBES,
    ),
    "C": parse_run(
        "Dies ist hart.\nDas Springen-Pferd kann schön sein.\n".encode(), "c", PROBES
    ),
}


def test_groups_before_any_judgement():
    groups = group_translations(PROBES.probes, RUNS)
    first, second = groups
    assert [r.system for r in first.rows] == ["A", "B", "C"]
    assert [r.outcome.source for r in first.rows] == [
        TagSource.PENDING,
        TagSource.PENDING,
        TagSource.PROPOSED_CORRECT,
    ]
    # A and B differ only in case and punctuation: one decision for both
    assert first.distinct_pending == ("dies ist schwierig",)
    assert [r.outcome.source for r in second.rows] == [
        TagSource.PENDING,
        TagSource.AUTO_UNKNOWN,
        TagSource.PENDING,
    ]
    p = progress(groups)
    # 6 items: 2 settled automatically (C/a1 proposed, B/n1 u); 4 pending, 3 distinct
    assert (p.n_items, p.n_settled, p.n_proposed, p.n_pending, p.n_to_judge) == (
        6,
        2,
        1,
        4,
        3,
    )


def test_judging_one_system_settles_identical_translations_of_others():
    judgements = {"A": {"a1": Tag.CORRECT, "n1": Tag.WRONG}}
    groups = group_translations(PROBES.probes, RUNS, judgements=judgements)
    a1 = {r.system: r.outcome for r in groups[0].rows}
    assert a1["A"].source is TagSource.JUDGEMENT
    assert (a1["B"].tag, a1["B"].source) == (Tag.CORRECT, TagSource.MEMORY)
    p = progress(groups)
    assert (p.n_settled, p.n_pending, p.n_to_judge) == (5, 1, 1)


def test_memory_from_judgements_ignores_unknown_systems_and_ids():
    memory = memory_from_judgements(
        PROBES.probes,
        RUNS,
        {"A": {"a1": Tag.CORRECT, "zz": Tag.WRONG}, "X": {"a1": Tag.WRONG}},
    )
    assert len(memory) == 1 and memory.lookup("a1", "DIES IST SCHWIERIG") is Tag.CORRECT


def test_keyboard_keys():
    assert TAG_BY_KEY["1"] is Tag.UNKNOWN and TAG_BY_KEY["8"] is Tag.CORRECT
    assert TAG_BY_KEY["wd"] is Tag.WRONG_DETERMINER
