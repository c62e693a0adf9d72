"""Which scores a viewer may see: the one rule, in one bulk function (``visible``)
that every consumer calls — boards (and so their fragments, pages and exports),
selection and the final-run fallback, the overall ranking and its chart, run pages,
compare, significance, the API, the analyses and comparison figures (built from
the public board) and the package.

``visible(viewer=..., test_set=..., runs=...)`` is the set of runs among ``runs``
whose scores on ``test_set`` the viewer may see:

- organisers of the task (and ``ORGANISERS``, the audience of their boards) see
  every score;
- nobody else sees anything of a draft task, nor any score on a private test set
  before it is revealed (the run's own team included);
- a hidden run (its team's choice) only to its own team;
- nothing a **score gate** withholds. A gate is a rule a feature app adds to this
  one: the rankings app registers the Ladder (Blum & Hardt 2015), which on the
  public test sets of a Ladder phase releases at most one run per competitor,
  decided from the competitor's submission history alone (every run, hidden or not,
  in submission order, on the current gold), so no later choice can release more.
  The run the gate shows is the *released* run (``released``).

``PUBLIC`` (a viewer who is not signed in) is the audience of every board, analysis
and figure computed for the public. Those are prepared before a private test set is
revealed, as the public will see them then (``once_public``), and shown to nobody
but organisers before (every consumer checks ``access.can_see_scores``). The gate is the core's extension point: the
core declares it here and never imports the feature app; exactly one gate is
registered, from the feature app's ``AppConfig.ready()``.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Iterable, Mapping
from typing import Protocol

from django.contrib.auth.models import AnonymousUser

from evalhub.competitions.models import SharedTask, Submission, TestSet
from evalhub.competitions.services import roles

#: A viewer who is not signed in: what the public sees.
PUBLIC = AnonymousUser()


class Audience(enum.Enum):
    """A viewer that is no user: the organisers' boards, computed once for all of
    them."""

    ORGANISERS = "organisers"


ORGANISERS = Audience.ORGANISERS


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


#: ``visible``'s default for ``gate``: ask the registered gate.
ASK = object()


def once_public(test_set: TestSet) -> TestSet:
    """``test_set`` as it will be once its scores are public (a copy, revealed): what
    the public board, its statistics and figures are prepared for."""
    if test_set.scores_public:
        return test_set
    revealed = copy.copy(test_set)
    revealed.revealed = True
    return revealed


def visible(
    *,
    viewer: object,
    test_set: TestSet,
    runs: Iterable[Submission],
    gate: object = ASK,
) -> frozenset[int]:
    """The ids of the runs among ``runs`` whose scores on ``test_set`` ``viewer``
    (a user, ``PUBLIC`` or ``ORGANISERS``) may see (the rule is in the module
    docstring). ``gate``: the registered gate's current answer (default: asked
    here), given by a caller that has just asked it (a board), or, for the gate's
    owner while it decides, the answer it is about to store."""
    runs = list(runs)
    task = test_set.phase.task
    if viewer is ORGANISERS or roles.is_organiser(viewer, task):
        return frozenset(r.pk for r in runs)
    if task.state == SharedTask.State.DRAFT or not test_set.scores_public:
        return frozenset()
    answer = released(test_set) if gate is ASK else gate
    shown = None if answer is None else set(answer.values())  # type: ignore[attr-defined]
    own: set[int] = set()
    if any(r.hidden for r in runs) and getattr(viewer, "is_authenticated", False):
        own = set(viewer.teams.values_list("pk", flat=True))  # type: ignore[attr-defined]
    return frozenset(
        r.pk
        for r in runs
        if (shown is None or r.pk in shown) and (not r.hidden or r.team_id in own)
    )
