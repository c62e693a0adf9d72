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
- Decisions are stored with the gold version and margin they were made under
  (``TestSetStatistics.data["ladder"]``) and are only used while both still hold;
  a run scored since the last refresh is not released until the refresh decides.
"""

from __future__ import annotations

from collections.abc import Mapping

from evalhub.competitions.models import Evaluation, Submission, TestSet
from evalhub.competitions.services.boards.selection import team_key
from evalhub.rankings.models import PhaseRanking, TestSetStatistics
from tasks.base import JSON
from tasks.common import resampling as rs

_SKIPPED = (Submission.Status.FAILED, Submission.Status.REJECTED)


def ladder_applies(test_set: TestSet, ranking: PhaseRanking) -> bool:
    """Ladder mode shapes public test sets only; private scores are unaffected."""
    return ranking.ladder and test_set.visibility == TestSet.Visibility.PUBLIC


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
    (``runstats``)."""
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
    history: dict[str, list[rs.LadderRun]] = {}
    blocked: set[str] = set()
    for pk, team_id, baseline, track_id, status in (
        Submission.objects.filter(phase=test_set.phase)
        .exclude(status__in=_SKIPPED)
        .order_by("created_at", "pk")
        .values_list("pk", "team_id", "is_baseline", "track_id", "status")
    ):
        key = team_key(team_id, baseline, track_id)  # per track: its own Ladder
        if key in blocked:
            continue
        if status != Submission.Status.SCORED or (
            pk in evaluated and pk not in current
        ):
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
        if (
            ladder.get("gold_version") != test_set.gold_version
            or ladder.get("margin") != ranking.ladder_margin
        ):
            return {}  # decided under other gold or margin: nothing until replayed
        return {k: int(v) for k, v in ladder.get("shown", {}).items()}
