"""What the leaderboard pages kept whole are keyed on (the page anonymous visitors share,
and the signed-in page's shell shared by the viewers of one audience:
``viewer_page``), and the little these keys need, read in one precompiled query:
for a page served from the cache, the phase's and its test sets' other fields (the
task's description, settings and dates, ...) are not read (issue 47: reading and
building them was a third of such a page's CPU). ``board_pages.cached_anonymous_leaderboard``
and ``viewer_page.cached_signed_in_leaderboard`` serve pages from it;
``board_pages.anonymous_leaderboard`` and ``viewer_page.signed_in_leaderboard``
render and keep them under the same keys (``fragments.page``)."""

from __future__ import annotations

from collections.abc import Hashable

from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services.boards import boardcache
from evalhub.precompiled import Precompiled

#: What the key holds (``key``), and what ``access.can_see_task``, the audience
#: (``board_pages.audience``) and the header's "My runs" link read.
_TEST_SET = ("id", "name", "visibility", "revealed", "gold_version")
_PHASE = ("id", "name", "max_final_runs", "after_campaign")
_TASK = ("id", "slug", "title", "task_type", "state", "gold_released")


def vary_on(*, phase: Phase, path: str, audience: Hashable = "anonymous") -> tuple:
    """What the page at ``path`` as the viewers of ``audience`` see it is kept on,
    besides its boards (``fragments.page``)
    ("anonymous", or what the signed-in page's shell depends on of its viewer:
    ``viewer_page``; times are drawn in UTC and redrawn by the browser): it holds
    everything the page shows that may change (task title, type, state and gold
    release, phase name, final-run rule and campaign, each test set's name,
    visibility, reveal and board version, which ``fragments.page`` adds), so a
    change shows at once."""
    task = phase.task
    return (
        audience,
        path,
        task.title,
        task.task_type,
        task.state,
        task.gold_released,
        phase.name,
        phase.max_final_runs,
        phase.after_campaign,
    )


def light_phase(*, slug: str, phase_slug: str) -> tuple[Phase, list[TestSet]] | None:
    """The phase (its task attached) and test sets with only the fields ``key``,
    ``access.can_see_task`` and the audience read, the others deferred (never to
    be read: a page rendered needs ``board_pages.leaderboard_phase``); None when
    the phase does not exist or has no test set."""
    rows = _ROWS.rows(slug=slug, phase_slug=phase_slug)
    if not rows:
        return None
    n_ts, n_phase = len(_TEST_SET) + 1, len(_PHASE)
    first = rows[0]
    phase = Phase.from_db("default", _PHASE, first[n_ts : n_ts + n_phase])
    phase.task = SharedTask.from_db("default", _TASK, first[n_ts + n_phase :])
    test_sets = []
    for row in rows:
        test_set = TestSet.from_db("default", _TEST_SET, row[: n_ts - 1])
        test_set.phase = phase
        boardcache.carry(test_set, row[n_ts - 1])
        test_sets.append(test_set)
    return phase, test_sets


_ROWS = Precompiled(
    lambda slug, phase_slug: TestSet.objects.filter(
        phase__task__slug=slug, phase__slug=phase_slug
    ).values_list(
        *_TEST_SET,
        boardcache.VERSION_FIELD,
        *(f"phase__{f}" for f in _PHASE),
        *(f"phase__task__{f}" for f in _TASK),
    ),
    slug="\x00task-slug",
    phase_slug="\x00phase-slug",
)
