"""The boards' cache: a version number per test set (``BoardVersion``, in the
database), under which boards, fragments and whole pages are kept in the cache.

``bump`` raises the versions in one ``UPDATE ... SET version = version + 1``, so
concurrent bumps both count, and ``invalidate`` calls it once the transaction that
made the change commits (``transaction.on_commit``; at once outside a transaction):
a viewer who reads the board between the change and the commit caches the old
board under the old version, which the commit's bump retires; a viewer who reads
the new version reads the committed change with it (the version is read first).
A version bumped inside the change's transaction would be reused after a
rollback, with the boards cached meanwhile under it: it never is. Inside the
transaction, the test sets it changed are keyed by a token of that transaction
(``_uncommitted``), so code and tests reading their own uncommitted change get the
new board, which nobody else ever reads. The versions live with the data: a lost
cache (eviction, a Redis restart) only costs renders, never brings an old board
back.

Every change of what a board shows invalidates it: scored or rescored runs and
statistics (the services that make them), a run hidden or chosen as final
(``services/runs/hiding.py``, ``finals.py``), and settings saved from any page or the admin
(``competitions/receivers.py``: test sets, phases, tasks, gold files, team names).
A change that takes something off the boards (a run hidden, a team renamed, a
Ladder decision) is a *retraction* (``BoardVersion.retracted``): nothing drawn
before it is served again, not even as the fragment's stale fallback."""

from __future__ import annotations

import contextlib
import contextvars
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import F

from evalhub.competitions import signals
from evalhub.competitions.models import BoardVersion, Phase, SharedTask, TestSet
from evalhub.competitions.services.boards import refreshes

log = logging.getLogger(__name__)

#: Where ``leaderboard_phase``'s precompiled query reads the version from (see
#: ``carry``): the page's one query brings its boards' versions too.
VERSION_FIELD = "board_version__version"


def bump(test_set_ids: Iterable[int], *, retract: bool = False) -> None:
    """Raise the board versions of these test sets by one, atomically (the
    row's first bump creates it); ``retract``: the change took something off the
    boards, so nothing drawn before it is served again (``BoardVersion.retracted``).
    Call it after the change committed: this is what ``invalidate`` does."""
    ids = sorted(set(test_set_ids))
    changes = {"version": F("version") + 1}
    if retract:
        changes["retracted"] = F("version") + 1
    with transaction.atomic():
        BoardVersion.objects.bulk_create(
            [BoardVersion(test_set_id=pk) for pk in ids], ignore_conflicts=True
        )
        BoardVersion.objects.filter(test_set_id__in=ids).update(**changes)


def carry(test_set: TestSet, stored: int | None) -> None:
    """Keep the board version read with ``test_set`` (``VERSION_FIELD``) on it,
    for ``versions`` to use instead of a query."""
    test_set._board_version = stored or 0  # noqa: SLF001


def version(test_set: TestSet | int) -> int | str:
    """The test set's board version as cache keys hold it (see ``versions``)."""
    pk = test_set if isinstance(test_set, int) else test_set.pk
    return versions([test_set])[pk]


def versions(test_sets: Iterable[TestSet | int]) -> dict[int, int | str]:
    """The board versions: those carried by the test sets (``carry``), the others
    in one query. While rendering ahead, the bumped one as it will be; inside a
    transaction that changed a board, a version private to the transaction."""
    found: dict[int, int | str] = {}
    missing = []
    for ts in test_sets:
        carried = getattr(ts, "_board_version", None)
        if isinstance(ts, int) or carried is None:
            missing.append(ts if isinstance(ts, int) else ts.pk)
        else:
            found[ts.pk] = carried
    if missing:
        found.update(_stored(missing))
    ahead = _predicted.get()
    if ahead:
        found.update({pk: v for pk, v in ahead[0].items() if pk in found})
    for pk, token in _uncommitted().items():
        if pk in found:
            found[pk] = f"{found[pk]}~{token}"
    return found


def _stored(test_set_ids: Iterable[int]) -> dict[int, int]:
    ids = list(test_set_ids)
    stored = BoardVersion.objects.filter(test_set_id__in=ids)
    return {
        **dict.fromkeys(ids, 0),
        **dict(stored.values_list("test_set_id", "version")),
    }


class _AfterCommit:
    """What ``invalidate`` runs once the transaction commits; until then (or a
    rollback drops it), its test set's boards are keyed by ``token``."""

    def __init__(
        self, test_set_id: int, refresh_statistics: bool, retract: bool
    ) -> None:
        self.test_set_id = test_set_id
        self.refresh_statistics = refresh_statistics
        self.retract = retract
        self.token = secrets.token_hex(8)
        self.ran = False
        # Django's robust ``on_commit`` logs a failing callback by its
        # ``__qualname__``: without one the logging itself raised, and every hook
        # still waiting after it was dropped.
        self.__qualname__ = f"boardcache.invalidate(test_set_id={test_set_id})"

    def __call__(self) -> None:
        # Robust on its own (the hooks after it run whatever happens here): the
        # cache is only needed to render ahead, which viewers can do themselves,
        # and the refreshes asked for by ``scores_changed`` are database rows.
        self.ran = True
        try:
            _render_then_bump(self.test_set_id, retract=self.retract)
        except Exception:  # noqa: BLE001 - the database restarting: logged
            log.exception("board of test set %s not invalidated", self.test_set_id)
        if self.refresh_statistics:
            signals.scores_changed.send(sender=TestSet, test_set_id=self.test_set_id)


def _uncommitted() -> dict[int, str]:
    """Test sets changed by the open transaction (their bumps wait for its
    commit) -> its token: the callbacks it still holds (Django drops those of a
    rolled-back transaction or savepoint)."""
    if not connection.in_atomic_block:
        return {}
    return {
        func.test_set_id: func.token
        for _, func, _ in connection.run_on_commit
        if isinstance(func, _AfterCommit) and not func.ran
    }


def invalidate(
    *, test_set_id: int, refresh_statistics: bool = True, retract: bool = False
) -> None:
    """Drop the cached board once the transaction commits (see the module
    docstring). Scores changed (a scored or rescored run, replaced gold, new
    judgements, a run hidden or chosen), so by default ``signals.scores_changed``
    is sent after the commit too: the rankings app recomputes intervals,
    p-values and the Ladder (coalesced, see ``services/boards/refreshes.py``) and then
    invalidates the board again without asking for another refresh.

    In a worker process (see ``render_ahead_with``) the public boards are rendered
    as they will be after the bump, before it, so that viewers go on getting the
    previous page until the new one is ready. ``retract``: the change took
    something off the boards (a run hidden, a team renamed, a Ladder decision):
    no page drawn before it is served, not even while the new one renders."""
    # robust: the change is committed; a cache or broker failure here is logged
    # rather than failing the request.
    transaction.on_commit(
        _AfterCommit(test_set_id, refresh_statistics, retract), robust=True
    )


def _render_then_bump(test_set_id: int, *, retract: bool = False) -> None:
    if not _render_ahead:
        bump([test_set_id], retract=retract)
        return
    written: list[str] = []
    # One worker at a time renders a board ahead and bumps it, so the version
    # rendered is the one the bump makes: two workers rendering at once both
    # rendered the same next version, and the second bump made one nobody had
    # rendered (every viewer's request then drew the board itself).
    with _rendering_ahead(test_set_id):
        ahead = {test_set_id: _stored([test_set_id])[test_set_id] + 1}
        token = _predicted.set((ahead, written))
        try:
            _render_ahead[0](test_set_id)
        except Exception:  # noqa: BLE001 - viewers will render it themselves
            log.warning(
                "could not render test set %s ahead", test_set_id, exc_info=True
            )
        finally:
            _predicted.reset(token)
        try:
            bump([test_set_id], retract=retract)
        except Exception:
            # Rendered for a version that may never be reached, or reached by a
            # later change: drop it.
            with contextlib.suppress(Exception):
                cache.delete_many(written)
            raise


#: Seconds a worker waits for another to finish rendering a board ahead (a board
#: of 1,000 rows takes about a second), and the lock's lifetime if its holder died.
RENDER_AHEAD_WAIT = 30


@contextlib.contextmanager
def _rendering_ahead(test_set_id: int) -> Iterator[None]:
    """Hold the test set's render-ahead lock (in the cache, shared by every worker
    of every node); after ``RENDER_AHEAD_WAIT`` seconds, or with the cache down,
    go on without it (at worst viewers render one version themselves)."""
    key = f"leaderboard:render-ahead:{test_set_id}"
    deadline = time.monotonic() + RENDER_AHEAD_WAIT
    held = False
    try:
        while not (held := cache.add(key, 1, timeout=RENDER_AHEAD_WAIT)):
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
    except Exception:  # noqa: BLE001 - the render will fail too and say why
        log.warning("no render-ahead lock for test set %s", test_set_id)
    try:
        yield
    finally:
        if held:
            with contextlib.suppress(Exception):
                cache.delete(key)


def store(key: str, value: object, timeout: int) -> None:
    """Cache ``value`` under a key holding board versions (noted while rendering
    ahead, see ``_render_then_bump``)."""
    cache.set(key, value, timeout)
    ahead = _predicted.get()
    if ahead:
        ahead[1].append(key)


def store_many(values: Mapping[str, object], timeout: int) -> None:
    """``store`` each of ``values`` (one round trip): what goes with a fragment,
    such as a long board's tail rows (``services/boards/tails.py``)."""
    if not values:
        return
    cache.set_many(dict(values), timeout)
    ahead = _predicted.get()
    if ahead:
        ahead[1].extend(values)


def invalidate_phase(
    *, phase: Phase | int, refresh_statistics: bool = True, retract: bool = False
) -> None:
    """Every board of the phase (and its bands, Ladder and comparison plots)
    follows: a team changed its final runs or a run's visibility, or a setting of
    the phase changed (``retract``: see ``invalidate``)."""
    phase_id = phase if isinstance(phase, int) else phase.pk
    for test_set_id in TestSet.objects.filter(phase_id=phase_id).values_list(
        "pk", flat=True
    ):
        invalidate(
            test_set_id=test_set_id,
            refresh_statistics=refresh_statistics,
            retract=retract,
        )
        if refresh_statistics or retract:
            transaction.on_commit(
                lambda pk=test_set_id: refreshes.request(
                    kind=refreshes.ANALYSES, test_set_id=pk
                ),
                robust=True,
            )


def invalidate_task(*, task: SharedTask | int) -> None:
    """Every board of the task (its state, gold release or title changed: what the
    pages around the boards show, not the ranked runs)."""
    task_id = task if isinstance(task, int) else task.pk
    for test_set_id in TestSet.objects.filter(phase__task_id=task_id).values_list(
        "pk", flat=True
    ):
        invalidate(test_set_id=test_set_id, refresh_statistics=False)


#: The renderer ``invalidate`` calls before a bump (a list of at most one).
_render_ahead: list[Callable[[int], None]] = []
#: While rendering ahead: board versions as they will be after the bump, and the
#: keys cached under them.
_predicted: contextvars.ContextVar[tuple[Mapping[int, int], list[str]] | None] = (
    contextvars.ContextVar("leaderboard_predicted_versions", default=None)
)


def render_ahead_with(render: Callable[[int], None] | None) -> None:
    """Have ``invalidate`` call ``render(test_set_id)`` before each bump, with the
    board versions read by ``board`` and ``fragment`` showing the bump already
    (``None``: stop). Worker processes set it (``evalhub.celery``): rendering a
    board of 50 teams takes tens of milliseconds, which a web process would spend
    in one of its threads while slowing the others. Workers take turns per test
    set (``_rendering_ahead``), so each renders the version its own bump makes; a
    change bumped meanwhile without rendering ahead (a web request's) makes a
    version nobody rendered ahead, which the viewers' first request renders (once:
    ``fragments.fragment``, ``leaderboard.board``); if the bump fails, what was
    rendered ahead is dropped."""
    _render_ahead[:] = [render] if render is not None else []
