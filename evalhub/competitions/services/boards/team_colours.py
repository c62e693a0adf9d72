"""One style per team, the same in every figure of a task (each test set's
comparison plots, the overall chart, the interval charts): the team's place in the
order of registration for the task (public: the registration list) picks a colour
of the colour-blind-safe palette of ``tasks.common.plotting``. A team with runs but
no registration (e.g. the organisers' baselines) comes after the registered ones,
by primary key. Past the palette's length a colour comes back with another dash
pattern, marker and hatch (``plotting.nth_style``), so no two teams look alike."""

from __future__ import annotations

from collections.abc import Iterable

from evalhub.competitions.models import Registration, SharedTask, Submission
from tasks.common.plotting import SeriesStyle, nth_style


def team_styles(*, task: SharedTask) -> dict[int, SeriesStyle]:
    """Team primary key -> style, for every team registered or with a run."""
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
    return {team: nth_style(i) for i, team in enumerate(order)}


def by_label(
    *, task: SharedTask, runs: Iterable[tuple[str, int]]
) -> dict[str, SeriesStyle]:
    """Series label -> its team's style, for ``(label, team primary key)`` pairs
    (what ``tasks.common.plotting.series_styles`` takes)."""
    styles = team_styles(task=task)
    return {label: styles[team] for label, team in runs if team in styles}
