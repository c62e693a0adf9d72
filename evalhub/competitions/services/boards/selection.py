"""Which runs a ranking lists, decided here and only here (used by the boards, the
statistics worker, the overall ranking and every export):

- public test sets: the best run per team; in a phase with a score gate (the
  Ladder, see ``services/boards/visibility.py``), the run the gate released per team and
  nothing else (a team whose released run is hidden, or that has none yet, is not
  on the public board: hiding never puts another run in its place);
- private test sets of a phase with ``max_final_runs`` > 0: each team's chosen final
  runs; a team that chose none is ranked by its run with the best *public* score
  (the ranking metric averaged over the phase's public test sets, counting only
  scores the public may see, so the fallback never reveals a score the Ladder
  withholds; without public test sets, its latest run); with ``max_final_runs`` = 0
  the best run per team;
- "best" is by the phase's ranking metric (``ranking.of``: the task type's primary
  metric unless the organisers chose another), in its direction;
- the runs a board may rank at all are those whose scores its audience may see
  (``visibility.visible``: ``PUBLIC`` or ``ORGANISERS``): hidden runs and the runs
  the gate withholds are left out of the public board as if they did not exist
  (ranks, fallbacks and bands included), so it cannot reveal them. A private test
  set's public board is prepared before its reveal as the public will see it then
  (``visibility.once_public``) and shown to organisers only until then. The
  organisers' board lists hidden runs, marked;
- tracks (``Track``): a competitor is a team *in a track* (``team_key``), so
  every rule above holds within each track: the best run per team and track, final
  runs and their fallback per track, the Ladder's released run per track. A board
  of one track ranks that track's runs only (``scored_runs(..., track_id=...)``);
  the all-tracks board ranks every (team, track) together, each row marked."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from fractions import Fraction
from typing import Any

from evalhub.competitions.models import Phase, Score, Submission, TestSet
from evalhub.competitions.services.boards import coverage as cells
from evalhub.competitions.services.boards import ranking, visibility


def team_key(team_id: int, is_baseline: bool, track_id: int | None = None) -> str:
    """The leaderboard's competitor: a team, its baseline runs counted apart, in
    its track (a phase without tracks: ``"team:baseline"``, as before tracks)."""
    key = f"{team_id}:{int(is_baseline)}"
    return key if track_id is None else f"{key}:{track_id}"


def run_key(sub: Submission) -> str:
    """``team_key`` of a run."""
    return team_key(sub.team_id, sub.is_baseline, sub.track_id)


def scored_runs(
    test_set: TestSet,
    *,
    viewer: object,
    track_id: int | None = None,
    gate: object = visibility.ASK,
) -> tuple[dict[int, Submission], dict[int, dict[str, float | None]]]:
    """The scored runs on ``test_set`` whose scores ``viewer`` may see
    (``visibility.visible``: ``PUBLIC`` for the public board, ``ORGANISERS`` for
    theirs) and their scores (``track_id``: of that track only; None: of every
    track). ``gate``: see ``visibility.visible`` (the statistics worker, and a
    board that has asked the gate already)."""
    runs = Submission.objects.filter(
        phase=test_set.phase,
        status=Submission.Status.SCORED,
        evaluations__test_set=test_set,
    ).select_related("team", "track")
    if track_id is not None:
        runs = runs.filter(track_id=track_id)
    found = list(runs)
    seen = visibility.visible(viewer=viewer, test_set=test_set, runs=found, gate=gate)
    subs = {s.pk: s for s in found if s.pk in seen}
    values: dict[int, dict[str, float | None]] = {pk: {} for pk in subs}
    for sub_id, metric, value in Score.objects.filter(
        test_set=test_set, submission_id__in=subs
    ).values_list("submission_id", "metric", "value"):
        values[sub_id][metric] = value
    return subs, values


def finals_apply(phase: Phase) -> bool:
    """The phase ranks chosen final runs (on its private test sets and overall)."""
    return phase.max_final_runs > 0


def public_scores(
    phase: Phase, runs: Mapping[int, Submission]
) -> dict[int, float | None]:
    """Each run's public score: the ranking metric averaged over the phase's public
    test sets, signed so that higher is better; None when a value is missing or
    not visible to the public (``visibility.visible``) on one of them."""
    metric = ranking.metric(phase)
    primary = metric.key
    sign = 1.0 if metric.higher_is_better else -1.0
    public = list(
        phase.test_sets.filter(visibility=TestSet.Visibility.PUBLIC).select_related(
            "phase__task"
        )
    )
    seen = {
        ts.pk: visibility.visible(
            viewer=visibility.PUBLIC, test_set=ts, runs=runs.values()
        )
        for ts in public
    }
    by_run: dict[int, list[float | None]] = {pk: [] for pk in runs}
    for sub_id, ts_id, value in Score.objects.filter(
        submission_id__in=list(by_run), test_set__in=public, metric=primary
    ).values_list("submission_id", "test_set_id", "value"):
        by_run[sub_id].append(value if sub_id in seen[ts_id] else None)
    return {
        pk: sign * sum(v) / len(v)  # type: ignore[arg-type]
        if len(v) == len(public) and public and None not in v
        else None
        for pk, v in by_run.items()
    }


def final_runs(phase: Phase, subs: Mapping[int, Submission]) -> dict[str, list[int]]:
    """The runs among ``subs`` that represent each competitor in a final ranking:
    its chosen final runs, or, when it chose none, its run with the best public
    score (ties: the earlier run; no public test set: its latest run). A competitor
    whose chosen runs are all missing from ``subs`` (hidden, or still being scored)
    has none; a chosen run that failed does not count as a choice."""
    chosen: dict[str, list[int]] = {}
    for team_id, is_baseline, track_id, pk in (
        Submission.objects.filter(phase=phase, final_selected=True)
        .exclude(status__in=[Submission.Status.FAILED, Submission.Status.REJECTED])
        .values_list("team_id", "is_baseline", "track_id", "pk")
    ):
        chosen.setdefault(team_key(team_id, is_baseline, track_id), []).append(pk)
    scores = public_scores(phase, subs)
    has_public = phase.test_sets.filter(visibility=TestSet.Visibility.PUBLIC).exists()

    def fallback_key(pk: int) -> tuple[float, float, int]:
        if not has_public:
            return (0.0, -subs[pk].created_at.timestamp(), -pk)
        score = scores.get(pk)
        return (
            float("inf") if score is None else -score,
            subs[pk].created_at.timestamp(),
            pk,
        )

    out: dict[str, list[int]] = {}
    for pk in sorted(subs, key=fallback_key):
        key = run_key(subs[pk])
        if key in chosen:
            if pk in chosen[key]:
                out.setdefault(key, []).append(pk)
        else:
            out.setdefault(key, [pk])
    return out


def ranked_runs(
    *,
    phase: Phase,
    subs: Mapping[int, Submission],
    sort_key: Callable[[int], Any],
    final: bool,
) -> list[int]:
    """The runs among ``subs`` a ranking lists, best first by ``sort_key``: with
    ``final`` (a private test set or the overall ranking) and final runs in the
    phase, each competitor's final runs (``final_runs``); otherwise each
    competitor's best run by ``sort_key``."""
    if final and finals_apply(phase):
        ranked = final_runs(phase, subs).values()
        return sorted((pk for pks in ranked for pk in pks), key=sort_key)
    best: dict[str, int] = {}
    for pk in sorted(subs, key=sort_key):
        best.setdefault(run_key(subs[pk]), pk)
    return sorted(best.values(), key=sort_key)


def select(
    test_set: TestSet,
    subs: Mapping[int, Submission],
    values: Mapping[int, Mapping[str, float | None]],
    released: Mapping[str, int] | None,
    coverage: cells.Coverage | None = None,
) -> list[int]:
    """The runs a board ranks, best first (the rules are in the module docstring;
    a mean over fewer cells after every mean over more: ``coverage.py``).
    ``released`` (a score gate applies): the released run per competitor, shown
    when it is among ``subs`` (scored, and visible to the board's audience).
    ``coverage``: ``cells.coverage_of(test_set, subs)`` if the caller has it."""
    metric = ranking.metric(test_set.phase)
    primary, higher = metric.key, metric.higher_is_better
    if coverage is None:
        coverage = cells.coverage_of(test_set, subs)

    def sort_key(pk: int) -> tuple[Fraction, float, datetime, int]:
        value = values[pk].get(primary)
        v = float("-inf") if value is None else (value if higher else -value)
        return (-cells.share(coverage, pk), -v, subs[pk].created_at, pk)

    if released is None:
        final = test_set.visibility == TestSet.Visibility.PRIVATE
        return ranked_runs(
            phase=test_set.phase, subs=subs, sort_key=sort_key, final=final
        )
    return sorted((pk for pk in set(released.values()) if pk in subs), key=sort_key)


def select_runs(
    *,
    test_set: TestSet,
    released: Mapping[str, int] | None,
    track_id: int | None = None,
) -> list[int]:
    """Submission ids the public board of ``test_set`` (in ``track_id``; None:
    every track) will show once the gate's owner stores ``released``, its new answer
    (``None``: no gate applies), as the public will see it (``once_public``),
    best first (see ``select``)."""
    subs, values = scored_runs(
        visibility.once_public(test_set),
        viewer=visibility.PUBLIC,
        track_id=track_id,
        gate=released,
    )
    return select(test_set, subs, values, released)
