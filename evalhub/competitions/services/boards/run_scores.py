"""A scored run's scores on its page (each test set's scores, the run's rank on
its boards, its figures), kept in the cache as HTML (issue 47: computing and
rendering them was two thirds of a scored run's page).

Who sees what of them is decided by two answers about the viewer, the key's
*audience*: whether they organise the task (every score, the per-item outcomes
before the gold is released, boards with the hidden runs) and whether they are in
the run's team (the run's scores while it is hidden). Every other viewer,
signed in or not, sees what the public sees (``visibility.visible``,
``access.can_see_scores``, ``access.can_see_detail``, ``leaderboard.board_for``
ask nothing else of the viewer), so they share one copy.

What they show is in the key too, so a change shows at once:

- the run, its phase, task and team as the page loaded them (``loading.run``:
  every field, so a rescore, a hidden or chosen run, a renamed team, the task's
  settings, state and gold release, the phase's ranking rule);
- each evaluation of the run with its test set's name, visibility, reveal and
  gold version, whether its figures are drawn yet, and each figure stored for it
  (a figure drawn later shows);
- the board versions of those test sets (``boardcache``: other runs scored,
  hidden or chosen, a Ladder decision, tracks and settings changed), read as
  boards read them, before anything the HTML is made of.

A run that is not scored has no scores: nothing is read or kept for it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping

from django.core.cache import cache
from django.utils.safestring import SafeString, mark_safe

from evalhub.competitions.models import Evaluation, Submission, TestSet
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access, boardcache, fragments
from evalhub.competitions.services.runs import loading
from evalhub.precompiled import Precompiled

_ROWS = Precompiled(
    lambda pk: (
        Evaluation.objects.filter(submission_id=pk)
        .order_by("pk", "artefacts__id")
        .values_list(
            "pk",
            "test_set_id",
            "test_set__name",
            "test_set__visibility",
            "test_set__revealed",
            "test_set__gold_version",
            "created_at",
            "test_set__" + boardcache.VERSION_FIELD,
            "artefacts__id",
            "artefacts__key",
            "artefacts__title",
            "artefacts__svg",
            "artefacts__png",
            "artefacts__svg_narrow",
            "figures",
        )
    ),
    pk=-2_000_000_005,
)


class KeptScores:
    """The scores part of ``submission``'s page as ``user`` sees it: ``html(render)``
    returns the kept copy of the viewer's audience or renders it with
    ``render(context())`` (``context``: the template's variables for it, computed
    only then) and keeps it."""

    def __init__(
        self,
        *,
        submission: Submission,
        user: object,
        context: Callable[[], Mapping[str, object]],
    ) -> None:
        self.submission = submission
        self.user = user
        self.context = context

    def _rows(self) -> list[tuple[object, ...]]:
        """The key's rows (read once per page); none for a run not scored."""
        if not hasattr(self, "_read"):
            scored = self.submission.status == Submission.Status.SCORED
            self._read = list(_ROWS.rows(pk=self.submission.pk)) if scored else []
        return self._read

    def figures_pending(self) -> bool:
        """Some of the run's figures the viewer may see are still to be drawn
        (their own job, after the score): the page's status part polls until
        they are. Figures on a test set whose scores the viewer may not see are
        not spoken of (as the scores part shows them: ``access.can_see_run_scores``).
        The answer depends on what the kept part's key holds, so it is kept
        under that key while some figures are pending (a page polled every 2 s
        during a backlog of figures asks it again and again)."""
        rows = self._rows()
        pending = {row[1] for row in rows if row[14] != Evaluation.Figures.DRAWN}
        if not pending:
            return False
        key = f"{self.key()}:figures-pending"
        answer = cache.get(key)
        if answer is None:
            answer = False
            for test_set in TestSet.objects.filter(pk__in=pending):
                test_set.phase = self.submission.phase
                if access.can_see_run_scores(self.user, self.submission, test_set):
                    answer = True
                    break
            boardcache.store(key, answer, fragments.FRAGMENT_TIMEOUT)
        return answer

    def key(self) -> str | None:
        """The cache key (see the module's docstring); None: not scored, nothing kept."""
        if not hasattr(self, "_key"):
            self._key = self._make_key()
        return self._key

    def _make_key(self) -> str | None:
        run = self.submission
        if run.status != Submission.Status.SCORED:
            return None
        rows = self._rows()
        test_sets = {}
        for row in rows:
            if row[1] not in test_sets:
                test_set = TestSet.from_db("default", ("id",), (row[1],))
                boardcache.carry(test_set, row[7])
                test_sets[row[1]] = test_set
        versions = boardcache.versions(test_sets.values())
        audience = (
            roles.is_organiser(self.user, run.phase.task),
            access.is_team_member(self.user, run),
        )
        state = (
            loading.state(run),
            tuple(rows),
            tuple(sorted(versions.items())),
            audience,
        )
        digest = hashlib.sha256(repr(state).encode()).hexdigest()[:40]
        return f"run:scores:{run.pk}:{digest}"

    def html(self, render: Callable[[Mapping[str, object]], str]) -> SafeString:
        key = self.key()
        if key is not None:
            kept = cache.get(key)
            if kept is not None:
                return mark_safe(kept)  # noqa: S308 - rendered by the template engine
        html = render(self.context())
        if key is not None:
            boardcache.store(key, html, fragments.FRAGMENT_TIMEOUT)
        return mark_safe(html)  # noqa: S308
