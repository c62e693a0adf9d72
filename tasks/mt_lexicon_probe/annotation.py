"""Pure helpers for the annotation page (the Django views live in ``evalhub/``).

The paper merged all systems' outputs "for ease of inspection": every probe sentence
is shown with all systems' translations side by side. Identical translations of one
probe share a judgement (the judgement memory), so the page asks once per distinct
normalised translation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tasks.mt_lexicon_probe.probes import Probe, Run
from tasks.mt_lexicon_probe.tags import (
    JudgementMemory,
    Outcome,
    Tag,
    TagSource,
    normalise_translation,
    settle,
)

#: Keyboard shortcut -> tag (``1`` .. ``8``; the tag letters work too).
TAG_BY_KEY: dict[str, Tag] = {t.shortcut: t for t in Tag} | {t.value: t for t in Tag}


@dataclass(frozen=True, slots=True)
class Row:
    system: str
    translation: str
    key: str  # normalised translation: rows with equal keys share one judgement
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class ProbeGroup:
    probe: Probe
    rows: tuple[Row, ...]

    @property
    def pending(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.outcome.source is TagSource.PENDING)

    @property
    def distinct_pending(self) -> tuple[str, ...]:
        """Normalised translations still to judge (each once)."""
        return tuple(dict.fromkeys(r.key for r in self.pending))


@dataclass(frozen=True, slots=True)
class Progress:
    n_items: int  # probes x systems
    n_settled: int
    n_proposed: int  # proposed c awaiting confirmation (counted in n_settled)
    n_pending: int
    n_to_judge: int  # distinct (probe, normalised translation) still pending


def memory_from_judgements(
    probes: Sequence[Probe],
    runs: Mapping[str, Run],
    judgements: Mapping[str, Mapping[str, Tag]],
) -> JudgementMemory:
    """Memory from stored judgements: ``judgements[system][probe id] = tag``."""
    index = {p.id: i for i, p in enumerate(probes)}

    def records() -> Iterable[tuple[str, str, Tag]]:
        for system, tags in judgements.items():
            run = runs.get(system)
            if run is None:
                continue
            for probe_id, tag in tags.items():
                if probe_id in index:
                    yield probe_id, run.translations[index[probe_id]], tag

    return JudgementMemory.build(records())


def group_translations(
    probes: Sequence[Probe],
    runs: Mapping[str, Run],
    *,
    references: Mapping[str, tuple[str, ...]] | None = None,
    judgements: Mapping[str, Mapping[str, Tag]] | None = None,
) -> tuple[ProbeGroup, ...]:
    """Each probe with every system's translation and its current outcome
    (judgement, memory from all systems' judgements, automatic, or pending)."""
    references = references or {}
    judgements = judgements or {}
    memory = memory_from_judgements(probes, runs, judgements)
    groups = []
    for i, probe in enumerate(probes):
        rows = []
        for system, run in runs.items():
            text = run.translations[i]
            outcome = settle(
                probe.id,
                probe.word,
                text,
                references=references.get(probe.id, probe.references),
                judgement=judgements.get(system, {}).get(probe.id),
                memory=memory,
            )
            rows.append(Row(system, text, normalise_translation(text), outcome))
        groups.append(ProbeGroup(probe, tuple(rows)))
    return tuple(groups)


def progress(groups: Iterable[ProbeGroup]) -> Progress:
    n_items = settled = proposed = pending = to_judge = 0
    for group in groups:
        n_items += len(group.rows)
        pending += len(group.pending)
        to_judge += len(group.distinct_pending)
        proposed += sum(
            1 for r in group.rows if r.outcome.source is TagSource.PROPOSED_CORRECT
        )
    settled = n_items - pending
    return Progress(n_items, settled, proposed, pending, to_judge)
