"""The overall ranking of a phase: each run's ranking metric (``ranking.of``)
combined over the test sets the organiser marks as counted (ARCADE's overall
ranking left TECH out) by the phase's method: its mean, or its average rank
(``docs/rankings.md``, "Overall ranking": each listed run's competition rank on
each test set among the listed runs, averaged; lower is better), best run
per team (or, in a phase with final runs, each team's final runs: the leaderboards'
rule in ``selection.ranked_runs``), competition ranking. Only test sets whose scores the
viewer may see are averaged, and the page says which; a run is ranked only if the
viewer may see its score on every one of them (``visibility.visible``: hidden
runs, and in a Ladder phase the runs the Ladder did not release, are left out).
In a phase with tracks the ranking is of one track (``track``) or of every track,
each row marked with its track (a team's best or final runs per track). A mean over
incomplete cells (the MT-probe's word classes, over the averaged test sets together)
is marked and ranked after every mean over more, by the boards' one rule
(``coverage.py``)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from evalhub.competitions.models import Phase, Score, Submission, TestSet, Track
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import (
    access,
    fragments,
    ranking,
    selection,
    tables,
    visibility,
)
from evalhub.competitions.services.boards import coverage as cells


@dataclass(frozen=True, slots=True)
class OverallRow:
    rank: int
    team: str
    submission_id: int
    method_name: str
    submitted_at: datetime
    #: What ranks the row: the mean of the metric, or the mean rank
    #: (``Overall.method``).
    mean: float
    per_test_set: tuple[str, ...]  # formatted values in ``Overall.test_sets`` order
    values: tuple[float, ...] = ()  # the same values, unformatted
    track: str = ""  # the run's track's name ("" without tracks)
    team_id: int = 0
    #: "1 of 3 word classes judged" for a mean over fewer cells than the test
    #: sets have (``coverage.py``); "" when complete.
    coverage: str = ""


@dataclass(frozen=True, slots=True)
class Overall:
    metric_label: str
    test_sets: tuple[TestSet, ...]
    hidden: int  # counted test sets not shown to this viewer
    rows: tuple[OverallRow, ...]
    track: Track | None = None
    #: The coverage rule's sentence when a row is marked ("" otherwise).
    coverage_rule: str = ""
    #: ``ranking.MEAN`` or ``ranking.AVERAGE_RANK``.
    method: str = ranking.MEAN
    #: What ``OverallRow.mean`` is ("Mean TF", "Mean rank by TF").
    score_label: str = ""
    #: Which metric ranks it, and how (``ranking.ranked_by`` and the method).
    ranked_by: str = ""


#: Part of a kept ranking's key: changed with ``Overall``'s or ``OverallRow``'s
#: fields, so that a process of a new release never reads one pickled by an older.
LAYOUT = "o1"


def audience_name(*, phase: Phase, user: object) -> str:
    """Whose overall ranking ``user`` sees: ``"organisers"`` (the task's, who also
    rank hidden runs) or ``"public"`` (everyone else)."""
    return "organisers" if roles.is_organiser(user, phase.task) else "public"


def audience(
    *, phase: Phase, user: object, track: Track | None, test_sets: list[TestSet]
) -> tuple[tuple, object]:
    """What the overall ranking ``user`` may see depends on (the key it is kept
    on besides its boards' versions), and the viewer it is computed for: the
    task's organisers (who also rank hidden runs) or ``visibility.PUBLIC`` for
    everyone else (a hidden run is ranked for organisers only, its own team's
    included)."""
    name = audience_name(phase=phase, user=user)
    vary_on = (
        "overall",
        LAYOUT,
        phase.pk,
        phase.task.state,
        repr(ranking.of(phase)),
        name,
        None if track is None else track.pk,
        tuple((ts.counts_for_ranking, ts.gold_version) for ts in test_sets),
    )
    return vary_on, (user if name == "organisers" else visibility.PUBLIC)


def overall(
    *,
    phase: Phase,
    user: object,
    track: Track | None = None,
    test_sets: list[TestSet] | None = None,
) -> Overall:
    """The overall ranking ``user`` may see: their audience's (``audience``), kept
    under the versions of the phase's boards (``fragments.kept``), which every
    change of a ranked run, a score, a team's name or a setting raises. A request
    reads it; the first after a change computes it (O(runs): a tenth of a second
    of CPU on a 1,000-run board). ``test_sets``: the phase's, if the caller has
    them."""
    if test_sets is None:
        test_sets = list(phase.test_sets.all())
    vary_on, viewer = audience(phase=phase, user=user, track=track, test_sets=test_sets)
    return fragments.kept(
        test_sets=test_sets,
        vary_on=vary_on,
        compute=lambda: _compute(
            phase=phase, viewer=viewer, track=track, test_sets=test_sets
        ),
    )


def _compute(
    *, phase: Phase, viewer: object, track: Track | None, test_sets: list[TestSet]
) -> Overall:
    """The ranking as ``viewer`` (an organiser of the task, or ``PUBLIC``:
    ``audience``) sees it, computed from the database."""
    chosen = ranking.of(phase)
    metric = phase.task.type.metric(chosen.metric)
    counted = [ts for ts in test_sets if ts.counts_for_ranking]
    visible = tuple(ts for ts in counted if access.can_see_scores(viewer, ts))
    runs = Submission.objects.filter(
        phase=phase, status=Submission.Status.SCORED
    ).select_related("team", "track")
    if track is not None:
        runs = runs.filter(track=track)
    found = list(runs)
    allowed = {
        ts.pk: visibility.visible(viewer=viewer, test_set=ts, runs=found)
        for ts in visible
    }
    # A run is ranked only if its score is visible on every averaged test set; a
    # hidden run is listed for organisers only (the boards' rule).
    shown = access.can_see_hidden_runs(viewer, phase.task)
    subs = {s.pk: s for s in found if shown or not s.hidden}
    values: dict[int, dict[int, float | None]] = {pk: {} for pk in subs}
    for sub_id, ts_id, value in Score.objects.filter(
        submission_id__in=subs, test_set__in=visible, metric=metric.key
    ).values_list("submission_id", "test_set_id", "value"):
        if sub_id in allowed[ts_id]:
            values[sub_id][ts_id] = value
    sign = 1.0 if metric.higher_is_better else -1.0
    means: dict[int, float] = {}
    for pk, by_ts in values.items():
        if visible and all(by_ts.get(ts.pk) is not None for ts in visible):
            means[pk] = sum(by_ts[ts.pk] for ts in visible) / len(visible)  # type: ignore[misc]

    # The cells each mean rests on, over the averaged test sets together: a mean
    # over fewer ranks after every mean over more (the boards' rule, coverage.py).
    coverage = cells.across(visible, subs)

    def key(pk: int) -> tuple[Fraction, float, datetime, int]:
        mean = means.get(pk)
        return (
            -cells.share(coverage, pk),
            float("inf") if mean is None else -sign * mean,
            subs[pk].created_at,
            pk,
        )

    # Which runs are ranked (final runs, fallbacks, hidden runs) is the
    # leaderboards' rule; a run without a mean over the shown test sets is left out.
    ranked = [
        pk
        for pk in selection.ranked_runs(
            phase=phase, subs=subs, sort_key=key, final=True
        )
        if pk in means
    ]
    if chosen.overall == ranking.AVERAGE_RANK:
        means = mean_ranks(
            {pk: [values[pk][ts.pk] for ts in visible] for pk in ranked},  # type: ignore[misc]
            higher_is_better=metric.higher_is_better,
        )
        ranked.sort(
            key=lambda pk: (
                -cells.share(coverage, pk),
                means[pk],
                subs[pk].created_at,
                pk,
            )
        )
    rows: list[OverallRow] = []
    previous: tuple[Fraction, float] | None = None
    rank = 0
    for position, pk in enumerate(ranked, start=1):
        if (cells.share(coverage, pk), means[pk]) != previous:
            rank = position
        previous = (cells.share(coverage, pk), means[pk])
        sub = subs[pk]
        rows.append(
            OverallRow(
                rank=rank,
                team=sub.team.name,
                submission_id=pk,
                method_name=sub.method_name,
                submitted_at=sub.created_at,
                mean=means[pk],
                per_test_set=tuple(
                    metric.format(values[pk].get(ts.pk)) for ts in visible
                ),
                values=tuple(values[pk][ts.pk] for ts in visible),  # type: ignore[misc]
                track=sub.track.name if sub.track_id else "",
                team_id=sub.team_id,
                coverage=cells.mark(visible[0], coverage, pk),
            )
        )
    marked = any(r.coverage for r in rows)
    by_rank = chosen.overall == ranking.AVERAGE_RANK
    return Overall(
        metric_label=metric.label,
        test_sets=visible,
        hidden=len(counted) - len(visible),
        rows=tuple(rows),
        track=track,
        coverage_rule=cells.rule(visible[0]) if marked else "",
        method=chosen.overall,
        score_label=f"Mean rank by {metric.label}"
        if by_rank
        else f"Mean {metric.label}",
        ranked_by=ranking.ranked_by(phase, chosen)
        + (
            " Overall: the average of each run's rank on the test sets (lower is better)."
            if by_rank
            else " Overall: the mean of the metric over the test sets."
        ),
    )


def mean_ranks(
    values: dict[int, list[float]], *, higher_is_better: bool
) -> dict[int, float]:
    """Each run's mean over the test sets (the lists' positions) of its
    competition rank among ``values``' runs on that test set (1 + the number of
    runs strictly better: tied values share the best rank, "1, 2, 2, 4").

    Example: runs a, b, c with values [0.9, 0.1], [0.5, 0.5], [0.1, 0.9] (higher
    is better) have ranks [1, 3], [2, 2], [3, 1]: mean ranks 2.0, 2.0, 2.0.
    """
    runs = list(values)
    width = len(next(iter(values.values()), []))
    totals = dict.fromkeys(runs, 0.0)
    for i in range(width):
        column = sorted(values[pk][i] for pk in runs)
        for pk in runs:
            mine = values[pk][i]
            if higher_is_better:
                better = len(column) - bisect.bisect_right(column, mine)
            else:
                better = bisect.bisect_left(column, mine)
            totals[pk] += 1 + better
    return {pk: totals[pk] / width for pk in runs} if width else totals


def overall_csv(*, phase: Phase, user: object, track: Track | None = None) -> str:
    """The overall ranking as CSV (the chart's data): one row per ranked run, its
    mean (of the metric, or of its ranks: ``ranked_by``) and its value on each
    averaged test set, at full precision; ``ranked_by``: the metric's key and
    the method (``ranking.Ranking``)."""
    board = overall(phase=phase, user=user, track=track)
    header = ["rank", "run", "team", "method", "track", "mean"]
    header += [ts.name for ts in board.test_sets]
    header += ["coverage"] if board.coverage_rule else []
    header += ["ranked_by"]
    how = f"{ranking.of(phase).metric}:{board.method}"
    rows = [
        [
            r.rank,
            r.submission_id,
            r.team,
            r.method_name,
            r.track,
            r.mean,
            *r.values,
            *([r.coverage] if board.coverage_rule else []),
            how,
        ]
        for r in board.rows
    ]
    return tables.csv_text(header, rows)
