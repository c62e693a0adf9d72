"""A phase's ranking settings (``PhaseRanking``): the metric that ranks, the
board's columns and their order, the overall ranking's method, the Ladder and the
bootstrap; changed by its organisers on the console's ranking page, the organiser
API and ``evalhub ranking set``, and carried by task bundles (``ranking:``, keyed
by phase slug). The allowed values are the model's validators and ``clean`` (the
metrics the task type declares rankable), the one rule all of them use; what
the core's consumers rank by is read through ``boards/ranking.of``, which
:func:`choice` answers.

Saving goes through the model's ``post_save`` (``rankings/receivers``): the phase's
boards are invalidated and every test set's statistics (intervals, rank bands,
pairwise significance, the Ladder's decisions, replayed from the submission
history) are computed again by a worker."""

from __future__ import annotations

import math
from collections.abc import Mapping

from django.core.exceptions import ValidationError

from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services import phase_settings as core_settings
from evalhub.competitions.services.boards import ranking
from evalhub.rankings.models import PhaseRanking, TestSetStatistics

#: The settings, in the order the page and the bundle list them, with their labels.
LABELS = {
    "metric": "Ranking metric",
    "columns": "Board columns",
    "overall": "Overall ranking",
    "ladder": "Ladder",
    "ladder_margin": "Ladder margin",
    "bootstrap_samples": "Bootstrap samples",
    "seed": "Seed",
    "alpha": "Significance level",
}
FIELDS = tuple(LABELS)
SECTION = "ranking"
_NUMBER = (int, float)
_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "metric": ((str,), "a metric key (empty: the task type's)"),
    "columns": ((list,), "a list of metric keys (empty: the task type's)"),
    "overall": ((str,), "mean or average_rank"),
    "ladder": ((bool,), "true or false"),
    "ladder_margin": (_NUMBER, "a number"),
    "bootstrap_samples": ((int,), "a whole number"),
    "seed": ((int,), "a whole number"),
    "alpha": (_NUMBER, "a number"),
}


#: The choices a bundle leaves out while they are the task type's (a bundle that
#: says nothing of them keeps the task type's metric, columns and the mean).
_CHOICE_DEFAULTS: dict[str, object] = {"metric": "", "columns": [], "overall": "mean"}


def current(*, phase: Phase) -> PhaseRanking:
    """The phase's settings (the defaults, unsaved, when it has none)."""
    return PhaseRanking.for_phase(phase)


def choice(phase: Phase) -> dict[str, object] | None:
    """What the core's ``boards/ranking.of`` reads: the phase's stored metric,
    columns and overall method (None without a row: the task type's)."""
    found = (
        PhaseRanking.objects.filter(phase=phase)
        .values("metric", "columns", "overall")
        .first()
    )
    return found


def ranked_by(*, phase: Phase) -> str:
    """The sentence the boards state (``boards/ranking.ranked_by``)."""
    return ranking.ranked_by(phase)


def computed(*, phase: Phase) -> list[tuple[TestSet, TestSetStatistics | None]]:
    """Each test set of the phase with its statistics as last computed (``None``
    before the first refresh): when, and under which settings (the signature)."""
    test_sets = list(phase.test_sets.order_by("order", "pk"))
    rows = {
        row.test_set_id: row
        for row in TestSetStatistics.objects.filter(test_set__in=test_sets).only(
            "test_set_id", "signature", "updated_at"
        )
    }
    return [(ts, rows.get(ts.pk)) for ts in test_sets]


def changed(*, before: PhaseRanking, after: Mapping[str, object]) -> list[str]:
    """The labels of the settings ``after`` changes, in page order."""
    return [LABELS[name] for name in FIELDS if getattr(before, name) != after[name]]


def save(*, phase: Phase, values: Mapping[str, object]) -> PhaseRanking:
    """Store the phase's settings (validated by the model); the receivers refresh
    its boards and statistics after the commit."""
    stored = PhaseRanking.for_phase(phase)
    for name in FIELDS:
        setattr(stored, name, values[name])
    stored.full_clean()
    stored.save()
    ranking.forget(phase)
    return stored


def as_values(*, phase: Phase) -> dict[str, object]:
    """The phase's settings as plain values (the defaults when it has none)."""
    ranking = current(phase=phase)
    return {name: getattr(ranking, name) for name in FIELDS}


def update(*, phase: Phase, values: Mapping[str, object]) -> dict[str, object]:
    """Change the settings ``values`` names (the others kept), each of the right
    kind and allowed by the model; raises ``core_settings.SettingsRefused`` with every
    problem, storing nothing. Returns the settings now in force (the organiser API,
    through the core's registry)."""
    problems = []
    for key, value in values.items():
        if key not in _KINDS:
            problems.append(f"unknown setting {key!r}; known: {', '.join(FIELDS)}")
            continue
        kinds, wanted = _KINDS[key]
        wrong = not isinstance(value, kinds) or (
            isinstance(value, bool) and bool not in kinds
        )
        if wrong or (isinstance(value, float) and not math.isfinite(value)):
            problems.append(f"{key}: must be {wanted}")
    if problems:
        raise core_settings.SettingsRefused(problems)
    merged = {**as_values(phase=phase), **values}
    try:
        save(phase=phase, values=merged)
    except ValidationError as exc:
        raise core_settings.SettingsRefused(
            [f"{field}: {m}" for field, ms in exc.message_dict.items() for m in ms]
        ) from None
    return as_values(phase=phase)


def export_section(*, task: SharedTask) -> dict[str, dict[str, object]] | None:
    """``ranking:`` of the task's bundle: the settings of every phase that has
    them; ``None`` when no phase does."""
    rows = PhaseRanking.objects.filter(phase__task=task).select_related("phase")
    section = {
        row.phase.slug: {
            name: getattr(row, name)
            for name in FIELDS
            if name not in _CHOICE_DEFAULTS
            or getattr(row, name) != _CHOICE_DEFAULTS[name]
        }
        for row in rows
    }
    return section or None


def import_section(*, task: SharedTask, section: object) -> list[tuple[int, str]]:
    """Create the settings ``section`` names (the bundle's line-numbered node:
    ``.value`` and ``.line``) for the task's phases. Returns the problems as
    (line, message); the bundle import creates nothing when there are any."""
    line = getattr(section, "line", None)
    phases = {p.slug: p for p in task.phases.all()}
    mapping = getattr(section, "value", None)
    if not isinstance(mapping, dict):
        return [(line, f"{SECTION!r} must map phase slugs to their settings")]
    problems: list[tuple[int, str]] = []
    for slug, node in mapping.items():
        if slug not in phases:
            known = ", ".join(phases) or "none"
            problems.append(
                (node.line, f"{SECTION}: no phase {slug!r} (phases: {known})")
            )
            continue
        values, found = _read(slug, node)
        problems.extend(found)
        if found:
            continue
        ranking = PhaseRanking(phase=phases[slug], **values)
        try:
            ranking.full_clean()
        except ValidationError as exc:
            for field, messages in exc.message_dict.items():
                at = node.value[field].line if field in node.value else node.line
                problems.extend(
                    (at, f"{SECTION}: {slug}: {field}: {m}") for m in messages
                )
            continue
        ranking.save()
    return problems


def _read(slug: str, node: object) -> tuple[dict[str, object], list[tuple[int, str]]]:
    """One phase's settings from its node, each value of the right kind."""
    items = getattr(node, "value", None)
    line = getattr(node, "line", None)
    if not isinstance(items, dict):
        return {}, [(line, f"{SECTION}: {slug}: expected a mapping (key: value)")]
    values: dict[str, object] = {}
    problems: list[tuple[int, str]] = []
    for key, item in items.items():
        if key not in _KINDS:
            problems.append(
                (item.line, f"{SECTION}: {slug}: unknown setting {key!r}; known: "
                 f"{', '.join(FIELDS)}")
            )  # fmt: skip
            continue
        kinds, wanted = _KINDS[key]
        value = item.value
        if isinstance(value, list):  # the columns: plain keys
            value = [getattr(v, "value", v) for v in value]
        wrong_kind = not isinstance(value, kinds) or (
            isinstance(value, bool) and bool not in kinds
        )
        if wrong_kind or (isinstance(value, float) and not math.isfinite(value)):
            problems.append(
                (item.line, f"{SECTION}: {slug}: {key} must be {wanted}, got {value!r}")
            )
            continue
        values[key] = value
    return values, problems
