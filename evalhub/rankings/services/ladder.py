"""The Ladder (Blum & Hardt 2015) as the score gate of ``services/visibility.py``.

Guarantees (stated in ``docs/internals/boards.md``, *Rankings you can trust*, and
``docs/rankings.md``):

- **Decided by submission history, not by what is visible now.** Each competitor's
  runs are taken in submission order (``created_at``, then id), *every* run counted,
  hidden or not, chosen as final or not; a run is released when it beats the run
  released before it by more than the margin (the first scored run is released).
  Hiding, unhiding, choosing final runs or anything else a team can do afterwards
  therefore changes no decision: at most one run per competitor and test set is
  ever released, and only by a new submission. In a phase with tracks a
  competitor is a team in one track: each track has its own Ladder.
- **A run waits for the runs before it.** A run submitted earlier that is not scored
  on the current gold yet (queued, being scored, or scored on replaced gold) stops
  the competitor's history there: nothing after it is released until it is scored
  (failed and rejected runs are skipped, they gave no feedback). A later decision
  can thus never be taken back by an earlier run arriving late.
- **Replaced gold replays the Ladder.** Replacing a test set's gold rescores every
  run with scores on it (``services/datasets.store_file``); decisions stored for
  older gold are not used (nothing is released meanwhile), and once the runs are
  rescored the Ladder is replayed on the new gold in submission order.
- **The evaluation after the campaign continues the campaign's Ladder.** The Ladder
  protects the test data, not the phase: a copy of an official test set
  (``TestSet.copied_from``, made when the task is opened for evaluation after its
  campaign, with the phase's ranking settings) decides each competitor's history
  starting with its campaign runs on the original (the same team, baseline and
  track slug), in submission order, while the copy's gold items are the
  original's. Submitting a withheld campaign run again after the campaign
  therefore releases nothing it did not beat. New gold on the copy starts a new
  history: its scores say nothing about the campaign's test data.
- **It ranks by the phase's ranking metric** (``boards/ranking.of``: the task
  type's primary metric unless the organisers chose another): values and per-unit
  losses are that metric's (``runstats``).
- Decisions are stored with the gold version, margin and metric they were made
  under (``TestSetStatistics.data["ladder"]``) and are only used while all hold;
  a run scored since the last refresh is not released until the refresh decides.
"""

from __future__ import annotations

from collections.abc import Mapping

from evalhub.competitions.models import Evaluation, Submission, TestSet, Track
from evalhub.competitions.services.boards import ranking as ranking_rule
from evalhub.competitions.services.boards.selection import team_key
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from evalhub.rankings.services import runstats
from tasks.base import JSON
from tasks.common import resampling as rs

_SKIPPED = (Submission.Status.FAILED, Submission.Status.REJECTED)


def ladder_applies(test_set: TestSet, ranking: PhaseRanking) -> bool:
    """Ladder mode shapes public test sets only; private scores are unaffected."""
    return ranking.ladder and test_set.visibility == TestSet.Visibility.PUBLIC


def carried_runs(*, test_set: TestSet, items: str) -> dict[int, rs.LadderRun]:
    """The campaign runs a copy after the campaign continues the Ladder of: their
    value and per-item losses on the original test set, while its gold items and
    formula (``items``, ``runstats.Shares.items``) are the copy's; none otherwise."""
    source = test_set.copied_from
    if source is None or not items:
        return {}
    shares = runstats.shares(
        test_set=source, ranking=PhaseRanking.for_phase(source.phase)
    )
    if shares.items != items:
        return {}
    return {
        pk: rs.LadderRun(str(pk), shares.arrays[pk].value, shares.losses[pk])
        for pk in shares.runs
    }


def _history(test_set: TestSet) -> list[tuple[int, str, bool]]:
    """Every run of the competitors' histories on ``test_set`` in submission order
    (failed and rejected ones left out): its id, its competitor (``team_key``) and
    whether the history waits for it (not scored on the current gold yet). A copy
    after the campaign starts with the original's runs, each in the copy's track
    of the same slug."""
    runs: list[tuple[int, str, bool]] = []
    source = test_set.copied_from
    if source is not None:
        slugs = dict(
            Track.objects.filter(phase=test_set.phase).values_list("slug", "pk")
        )
        tracks = {
            pk: slugs.get(slug)
            for pk, slug in Track.objects.filter(phase=source.phase).values_list(
                "pk", "slug"
            )
        }
        runs += _runs(source, tracks)
    return runs + _runs(test_set, None)


def _runs(
    test_set: TestSet, tracks: Mapping[int, int | None] | None
) -> list[tuple[int, str, bool]]:
    current = set(
        Evaluation.objects.filter(
            test_set=test_set, gold_version=test_set.gold_version
        ).values_list("submission_id", flat=True)
    )
    evaluated = set(
        Evaluation.objects.filter(test_set=test_set).values_list(
            "submission_id", flat=True
        )
    )
    return [
        (
            pk,
            # per track: its own Ladder
            team_key(team_id, baseline, track if tracks is None else tracks.get(track)),
            status != Submission.Status.SCORED
            or (pk in evaluated and pk not in current),
        )
        for pk, team_id, baseline, track, status in (
            Submission.objects.filter(phase=test_set.phase)
            .exclude(status__in=_SKIPPED)
            .order_by("created_at", "pk")
            .values_list("pk", "team_id", "is_baseline", "track_id", "status")
        )
    ]


def decide(
    *,
    test_set: TestSet,
    runs_of: Mapping[int, rs.LadderRun],
    higher_is_better: bool,
    margin: float,
) -> tuple[dict[str, int], list[JSON]]:
    """The released run per competitor and the Ladder's steps (organiser-only:
    they hold unreleased scores), from every run's history (module docstring).
    ``runs_of``: value and per-item losses of the runs scored on the current gold
    (``runstats``; a copy after the campaign: with ``carried_runs``)."""
    history: dict[str, list[rs.LadderRun]] = {}
    blocked: set[str] = set()
    for pk, key, waits in _history(test_set):
        if key in blocked:
            continue
        if waits:
            blocked.add(key)  # waits for this run (or its rescore)
        elif pk in runs_of:
            history.setdefault(key, []).append(runs_of[pk])
    shown: dict[str, int] = {}
    steps: list[JSON] = []
    for key, runs in history.items():
        team_steps = rs.ladder_of(
            runs, higher_is_better=higher_is_better, margin=margin
        )
        shown[key] = int(team_steps[-1].shown)
        steps.extend(
            {
                "team": key,
                "run": int(s.run),
                "value": s.value,
                "released": s.released,
                "shown": int(s.shown),
                "threshold": s.threshold,
            }
            for s in team_steps
        )
    return shown, steps


class LadderGate:
    """Registered with ``visibility.register_score_gate`` by ``RankingsConfig``."""

    def released(self, test_set: TestSet) -> Mapping[str, int] | None:
        ranking = PhaseRanking.for_phase(test_set.phase)
        if not ladder_applies(test_set, ranking):
            return None
        data = (
            TestSetStatistics.objects.filter(test_set=test_set)
            .values_list("data", flat=True)
            .first()
        ) or {}
        ladder = data.get("ladder", {})
        # Decisions stored before the metric was recorded were the primary's.
        primary = test_set.phase.task.type.primary_metric
        if (
            ladder.get("gold_version") != test_set.gold_version
            or ladder.get("margin") != ranking.ladder_margin
            or ladder.get("metric", primary) != ranking_rule.of(test_set.phase).metric
        ):
            # Decided under other gold, margin or metric: nothing until replayed.
            return {}
        return {k: int(v) for k, v in ladder.get("shown", {}).items()}
