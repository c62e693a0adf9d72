"""The paper's tables 1-4 and Cohen's kappa between two annotators.

Volk (1997), seed ``004_50c8345678ce5bb6``, section 3: per word class x frequency
class, the share of judged items counted positive, and the mean over the word classes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from tasks.mt_lexicon_probe.probes import FreqClass, Pos, Probe
from tasks.mt_lexicon_probe.tags import (
    NOT_CORRECT,
    NOT_CORRECT_STRICT,
    NOT_TRANSLATED,
    Outcome,
    Tag,
    TagSource,
)

MEASURES = ("translated", "correct", "correct_strict")
#: The paper's tables 1-3, one per measure, and their rows: word classes, then the mean.
TABLE_TITLES = {
    "translated": "Table 1: translated (not tagged u, unknown word)",
    "correct": "Table 2: correct (not tagged u, w or m: unknown, wrong, missing)",
    "correct_strict": "Table 3: correct, in the right form (not tagged u, w, m or wf)",
}
GROUPS = ("adj", "noun", "verb", "mean")
_NEGATIVE = {
    "translated": NOT_TRANSLATED,
    "correct": NOT_CORRECT,
    "correct_strict": NOT_CORRECT_STRICT,
}


@dataclass(frozen=True, slots=True)
class Cell:
    """Tag counts of one word class x frequency class cell."""

    n_items: int
    tags: Mapping[Tag, int]

    @property
    def n_judged(self) -> int:
        return sum(self.tags.values())


def share(cell: Cell, measure: str) -> float | None:
    """Share of judged items of ``cell`` that ``measure`` counts positive.

    Definition (paper, tables 1-3): with J judged items and n_t items tagged t,

    - translated     = (J - n_u) / J
    - correct        = (J - n_u - n_w - n_m) / J
    - correct_strict = (J - n_u - n_w - n_m - n_wf) / J

    Edge case: J = 0 gives None (the spec's null cell: nothing judged yet), not 0.0.
    Pending items are in ``n_items`` only, never in J.

    Example: 4 judged items tagged u, w, wf, c:
    translated = 3/4, correct = 2/4, correct_strict = 1/4.

    >>> cell = Cell(5, {Tag.UNKNOWN: 1, Tag.WRONG: 1, Tag.WRONG_FORM: 1, Tag.CORRECT: 1})
    >>> [share(cell, m) for m in MEASURES]
    [0.75, 0.5, 0.25]
    """
    judged = cell.n_judged
    if judged == 0:
        return None
    negative = sum(n for tag, n in cell.tags.items() if tag in _NEGATIVE[measure])
    return (judged - negative) / judged


def mean_over_word_classes(values: Iterable[float | None]) -> float | None:
    """The paper's "average": arithmetic mean over word classes of their shares.

    Formula: mean = (1/K) * sum_k s_k over the K word classes whose share s_k is
    defined (at least one judged item). Edge case: K = 0 gives None.
    Citation: seed 004, section 3 ("the mean value over the three word classes").

    >>> mean_over_word_classes([0.5, 1.0, None])
    0.75
    """
    defined = [v for v in values if v is not None]
    if not defined:
        return None
    return sum(defined) / len(defined)


@dataclass(frozen=True, slots=True)
class Tables:
    cells: Mapping[tuple[Pos, FreqClass], Cell]
    n_items: int
    n_judged: int
    n_pending: int
    wrong_determiners: int
    settled_by: Mapping[TagSource, int]

    def share(self, measure: str, pos: Pos, fc: FreqClass) -> float | None:
        return share(self.cells[(pos, fc)], measure)

    def mean(self, measure: str, fc: FreqClass) -> float | None:
        return mean_over_word_classes(self.share(measure, pos, fc) for pos in Pos)

    def table(self, measure: str) -> dict[str, dict[str, float | None]]:
        """``{pos: {freq_class: share}, "mean": {freq_class: share}}``."""
        out: dict[str, dict[str, float | None]] = {
            pos.value: {fc.value: self.share(measure, pos, fc) for fc in FreqClass}
            for pos in Pos
        }
        out["mean"] = {fc.value: self.mean(measure, fc) for fc in FreqClass}
        return out


def tabulate(
    probes: Sequence[Probe], outcomes: Sequence[Outcome], *, count_proposed: bool = True
) -> Tables:
    """Count tags per cell. A proposed ``c`` counts as judged only with
    ``count_proposed``; otherwise it stays pending like an untagged item.

    Wrong determiners (table 4): number of noun items tagged ``wd``, all frequency
    classes together.
    """
    counts: dict[tuple[Pos, FreqClass], Counter[Tag]] = {
        (p, f): Counter() for p in Pos for f in FreqClass
    }
    sizes: Counter[tuple[Pos, FreqClass]] = Counter()
    settled: Counter[TagSource] = Counter()
    wd = 0
    for probe, outcome in zip(probes, outcomes, strict=True):
        key = (probe.pos, probe.freq_class)
        sizes[key] += 1
        source = outcome.source
        if source is TagSource.PROPOSED_CORRECT and not count_proposed:
            source = TagSource.PENDING
        settled[source] += 1
        if source is TagSource.PENDING or outcome.tag is None:
            continue
        counts[key][outcome.tag] += 1
        if outcome.tag is Tag.WRONG_DETERMINER and probe.pos is Pos.NOUN:
            wd += 1
    cells = {k: Cell(sizes[k], dict(counts[k])) for k in counts}
    n_items = len(probes)
    pending = settled[TagSource.PENDING]
    return Tables(
        cells=cells,
        n_items=n_items,
        n_judged=n_items - pending,
        n_pending=pending,
        wrong_determiners=wd,
        settled_by={s: settled[s] for s in TagSource},
    )


def tabulate_items(
    items: Sequence[Mapping[str, object]], *, count_proposed: bool = True
) -> Tables | None:
    """:func:`tabulate` over a stored report's per-item records (``detail["items"]``:
    ``id``, ``pos``, ``freq_class``, ``tag``, ``source``); None if they are not such
    records (e.g. a report of another scorer version)."""
    probes: list[Probe] = []
    outcomes: list[Outcome] = []
    try:
        for item in items:
            pid = str(item["id"])
            tag = item.get("tag")
            probes.append(
                Probe(
                    pid,
                    "",
                    Pos(str(item["pos"])),
                    FreqClass(str(item["freq_class"])),
                    "",
                )
            )
            outcomes.append(
                Outcome(
                    pid,
                    "",
                    Tag(str(tag)) if tag is not None else None,
                    TagSource(str(item["source"])),
                )
            )
    except (KeyError, TypeError, ValueError):
        return None
    return tabulate(probes, outcomes, count_proposed=count_proposed)


@dataclass(frozen=True, slots=True)
class Agreement:
    n_items: int
    observed: float
    expected: float
    kappa: float


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> Agreement:
    """Cohen's kappa of two annotators' labels for the same items.

    Formula: kappa = (p_o - p_e) / (1 - p_e), where p_o is the share of items with
    equal labels and p_e = sum_k (n_ak / n) (n_bk / n) the agreement expected by
    chance from each annotator's label distribution (n_ak: items annotator a
    labelled k). Edge cases: no items, or p_e = 1 (both used one and the same
    label only: 0/0) give kappa = 0.0, following the project's 0/0 -> 0.0 rule.
    Citation: Cohen (1960), "A coefficient of agreement for nominal scales";
    the spec asks for it between two annotators of the same items.

    Example (hand-checked): 50 items, both "c" 20, a "c"/b "w" 5, a "w"/b "c" 10,
    both "w" 15: p_o = 35/50 = 0.7, p_e = 0.5*0.6 + 0.5*0.4 = 0.5, kappa = 0.4.

    >>> round(cohen_kappa(["c"] * 25 + ["w"] * 25,
    ...                   ["c"] * 20 + ["w"] * 5 + ["c"] * 10 + ["w"] * 15).kappa, 10)
    0.4
    """
    if len(a) != len(b):
        raise ValueError(f"label sequences differ in length: {len(a)} != {len(b)}")
    n = len(a)
    if n == 0:
        return Agreement(0, 0.0, 0.0, 0.0)
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in ca) / (n * n)
    kappa = 0.0 if expected >= 1.0 else (observed - expected) / (1.0 - expected)
    return Agreement(n, observed, expected, kappa)


def annotator_agreement(
    first: Mapping[str, Tag], second: Mapping[str, Tag]
) -> Agreement:
    """Kappa over the items both annotators tagged (keys in both mappings)."""
    common = sorted(set(first) & set(second))
    return cohen_kappa([first[k] for k in common], [second[k] for k in common])
