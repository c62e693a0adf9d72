"""One colour per team, the same in every figure of a task (each test set's
comparison plots, the overall chart, the interval charts): the team's place in the
order of registration for the task (public: the registration list) picks a colour
of the colour-blind-safe palette of ``tasks.common.plotting``. A team with runs but
no registration (e.g. the organisers' baselines) comes after the registered ones,
by primary key. Past the palette's length colours repeat."""

from __future__ import annotations

from collections.abc import Iterable

from evalhub.competitions.models import Registration, SharedTask, Submission
from tasks.common.plotting import PALETTE


def team_colours(*, task: SharedTask) -> dict[int, str]:
    """Team primary key -> colour, for every team registered or with a run."""
    order = list(
        Registration.objects.filter(task=task)
        .order_by("created_at", "pk")
        .values_list("team_id", flat=True)
    )
    seen = set(order)
    order += sorted(
        set(
            Submission.objects.filter(phase__task=task).values_list(
                "team_id", flat=True
            )
        )
        - seen
    )
    return {team: PALETTE[i % len(PALETTE)] for i, team in enumerate(order)}


def by_label(*, task: SharedTask, runs: Iterable[tuple[str, int]]) -> dict[str, str]:
    """Series label -> its team's colour, for ``(label, team primary key)`` pairs
    (what ``tasks.common.plotting.series_colours`` takes)."""
    colours = team_colours(task=task)
    return {label: colours[team] for label, team in runs if team in colours}
