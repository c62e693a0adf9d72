"""What the annotation page shows: one probe sentence at a time with every system's
translation, identical (normalised) translations grouped so each is judged once."""

from __future__ import annotations

from dataclasses import dataclass

from evalhub.annotations.models import Judgement
from evalhub.annotations.services import access, judgements, systems
from evalhub.competitions.models import Score, SharedTask, TestSet
from evalhub.competitions.services.boards import ranking
from tasks.mt_lexicon_probe.annotation import (
    ProbeGroup,
    group_translations,
    progress,
)
from tasks.mt_lexicon_probe.probes import FreqClass, Pos
from tasks.mt_lexicon_probe.tags import Tag, TagSource, normalise_translation


@dataclass(frozen=True, slots=True)
class Filters:
    pos: str = ""
    freq_class: str = ""
    untagged: bool = False

    @classmethod
    def parse(cls, data: object) -> Filters:
        get = data.get  # type: ignore[attr-defined]
        pos = get("pos", "")
        fc = get("freq_class", "")
        return cls(
            pos if pos in {p.value for p in Pos} else "",
            fc if fc in {f.value for f in FreqClass} else "",
            get("untagged", "") in {"1", "on", "true"},
        )

    def query(self) -> dict[str, str]:
        out = {}
        if self.pos:
            out["pos"] = self.pos
        if self.freq_class:
            out["freq_class"] = self.freq_class
        if self.untagged:
            out["untagged"] = "1"
        return out


@dataclass(frozen=True, slots=True)
class Choice:
    """One distinct translation of the current probe and the systems that gave it."""

    key: str
    translation: str
    systems: tuple[str, ...]
    tag: Tag | None
    source: str  # a TagSource value
    matched_reference: str | None
    needs_judgement: bool


@dataclass(frozen=True, slots=True)
class SystemScore:
    label: str
    submission_id: int
    primary: float | None
    n_pending: int | None


def _needs_judgement(source: TagSource) -> bool:
    return source in (TagSource.PENDING, TagSource.PROPOSED_CORRECT)


def _untagged(group: ProbeGroup) -> bool:
    return any(_needs_judgement(r.outcome.source) for r in group.rows)


def _matches(group: ProbeGroup, filters: Filters) -> bool:
    p = group.probe
    return (
        (not filters.pos or p.pos.value == filters.pos)
        and (not filters.freq_class or p.freq_class.value == filters.freq_class)
        and (not filters.untagged or _untagged(group))
    )


def annotation_page(
    *,
    test_set: TestSet,
    user: object,
    probe_id: str | None,
    filters: Filters,
    advance: bool = False,
) -> dict[str, object]:
    """The page context for ``user`` (who may annotate the test set). ``advance``:
    after a judgement, move on to the next probe needing one once the current probe
    has none left. Which reference a proposal matched is shown only to users who may
    see the gold (organisers)."""
    show_references = access.can_see_references(user, test_set.phase.task)
    workspace = systems.load(test_set)
    current = judgements.current_tags(test_set=test_set)
    labels = {s.submission.pk: s.label for s in workspace.systems}
    runs = {s.submission.pk: s.run for s in workspace.systems}
    index = {p.id: i for i, p in enumerate(workspace.inputs.probes)}
    judged: dict[int, dict[str, Tag]] = {}
    for pk, run in runs.items():
        for probe in workspace.inputs.probes:
            tag = current.get(
                (probe.id, normalise_translation(run.translations[index[probe.id]]))
            )
            if tag is not None:
                judged.setdefault(pk, {})[probe.id] = tag
    references = getattr(workspace.gold, "references", {})
    groups = group_translations(
        workspace.inputs.probes,
        runs,  # type: ignore[arg-type]
        references=references,
        judgements=judged,  # type: ignore[arg-type]
    )
    shown = [g for g in groups if _matches(g, filters)]
    first_untagged = next((i for i, g in enumerate(shown) if _untagged(g)), 0)
    position = next(
        (i for i, g in enumerate(shown) if g.probe.id == probe_id), first_untagged
    )
    if advance and shown and not _untagged(shown[position]):
        # The probe is done: go on to the next one that still needs a judgement.
        order = list(range(position + 1, len(shown))) + list(range(position))
        position = next((i for i in order if _untagged(shown[i])), position)
    group = shown[position] if shown else None
    choices: list[Choice] = []
    if group is not None:
        by_key: dict[str, list] = {}
        for row in group.rows:
            by_key.setdefault(row.key, []).append(row)
        for key, rows in by_key.items():
            outcome = rows[0].outcome
            choices.append(
                Choice(
                    key=key,
                    translation=rows[0].translation,
                    systems=tuple(labels[r.system] for r in rows),  # type: ignore[index]
                    tag=outcome.tag,
                    source=outcome.source.value,
                    matched_reference=outcome.matched if show_references else None,
                    needs_judgement=_needs_judgement(outcome.source),
                )
            )
    active = next((c.key for c in choices if c.needs_judgement), None)
    if active is None and choices:
        active = choices[0].key
    return {
        "test_set": test_set,
        "task": test_set.phase.task,
        "filters": filters,
        "group": group,
        "choices": choices,
        "active_key": active,
        "position": position + 1 if group else 0,
        "n_shown": len(shown),
        "previous_id": shown[position - 1].probe.id if group and position > 0 else None,
        "next_id": shown[position + 1].probe.id
        if group and position + 1 < len(shown)
        else None,
        "progress": progress(groups),
        "n_human": len(current),
        "history": judgements.history(test_set=test_set, probe_id=group.probe.id)
        if group
        else [],
        "tags": list(Tag),
        "pos_choices": [p.value for p in Pos],
        "freq_choices": [f.value for f in FreqClass],
        "agreement": judgements.agreement(test_set=test_set),
        **scores(test_set=test_set, user=user),
    }


def scores(*, test_set: TestSet, user: object) -> dict[str, object]:
    """Each system's ranking metric (``ranking.of``) and pending count (the live
    part of the page); the metric only where ``user`` may see the test set's
    scores."""
    primary = ranking.of(test_set.phase).metric
    rows = []
    subs = systems.scored_runs(test_set)
    visible = access.can_see_scores(user, test_set)
    values: dict[tuple[int, str], float | None] = {
        (sid, metric): value
        for sid, metric, value in Score.objects.filter(
            test_set=test_set,
            submission_id__in=[s.pk for s in subs],
            metric__in=[primary, "n_pending"],
        ).values_list("submission_id", "metric", "value")
    }
    for sub in subs:
        pending = values.get((sub.pk, "n_pending"))
        rows.append(
            SystemScore(
                label=f"{sub.team.name} · {sub.method_name} (run {sub.pk})",
                submission_id=sub.pk,
                primary=values.get((sub.pk, primary)) if visible else None,
                n_pending=None if pending is None else int(pending),
            )
        )
    return {
        "test_set": test_set,
        "system_scores": rows,
        "primary_label": test_set.phase.task.type.metric(primary).label,
        "scores_hidden": not visible,
        "n_judgements": Judgement.objects.filter(test_set=test_set).count(),
    }


def annotatable_test_sets(*, user: object) -> list[TestSet]:
    """mt_lexicon_probe test sets ``user`` organises or annotates."""
    return list(
        access.annotatable_test_sets(user)
        .select_related("phase__task")
        .order_by("phase__task__slug", "phase__order", "order")
    )


def managed_tasks(*, user: object) -> list[SharedTask]:
    """The mt_lexicon_probe tasks whose probe sets and annotators ``user`` manages
    (organisers), with or without test sets yet."""
    return list(access.managed_tasks(user).order_by("slug"))
