"""What the public may see of a run's score: the one definition every consumer uses
(boards, the overall ranking and its chart, the default final run, run pages,
compare, significance, exports, the API).

A run's score on a test set is *public* when all of these hold:

- the run is not hidden (its team's choice);
- the test set's scores are public (a public test set, or a private one revealed);
- no **score gate** withholds it. A gate is a rule a feature app adds to this one:
  the rankings app registers the Ladder (Blum & Hardt 2015), which on the public
  test sets of a Ladder phase releases at most one run per competitor, decided from
  the competitor's submission history alone (every run, hidden or not, in
  submission order, on the current gold), so no later choice can release more.

Organisers see every score; a run's team sees its hidden runs, but neither private
scores before reveal nor a score the gate withholds: the viewer's side of the rule is
``access.can_see_run_scores`` (and its bulk form ``access.visible_runs``), built on
this module. The gate is the core's
extension point: the core declares it here and never imports the feature app;
exactly one gate is registered, from the feature app's ``AppConfig.ready()``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from evalhub.competitions.models import Submission, TestSet


class ScoreGate(Protocol):
    def released(self, test_set: TestSet) -> Mapping[str, int] | None:
        """``None`` when the gate does not apply to ``test_set`` (every score
        passes); otherwise the released run per competitor (``team_key``): every
        other run's score on ``test_set`` is withheld from all but organisers."""


_gates: list[ScoreGate] = []


def register_score_gate(gate: ScoreGate | None) -> None:
    """Install the score gate (``None``: none). Called from ``AppConfig.ready()``;
    a second call replaces the first, so there is exactly one answer."""
    _gates[:] = [] if gate is None else [gate]


def released(test_set: TestSet) -> Mapping[str, int] | None:
    """The released run per competitor on ``test_set``, or ``None`` when no gate
    applies (the same for every viewer)."""
    return _gates[0].released(test_set) if _gates else None


def gated(released_runs: Mapping[str, int] | None, run_id: int) -> bool:
    """``run_id``'s score is withheld by the gate's answer ``released_runs``."""
    return released_runs is not None and run_id not in set(released_runs.values())


def public_score(
    submission: Submission,
    test_set: TestSet,
    released_runs: Mapping[str, int] | None,
) -> bool:
    """Anyone may see ``submission``'s score on ``test_set`` (``released_runs``:
    the gate's answer for ``test_set``, from ``released``)."""
    return (
        not submission.hidden
        and test_set.scores_public
        and not gated(released_runs, submission.pk)
    )
