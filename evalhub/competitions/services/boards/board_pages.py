"""The leaderboard page: its phase and test sets (one precompiled query), the
boards' HTML from the fragment cache for each viewer class, boards rendered ahead
by the workers, the whole page cached for anonymous visitors, and the leaderboard
export. The leak rules are applied by ``services/boards/access.py`` and
``services/boards/visibility.py``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from evalhub.competitions.models import Phase, SharedTask, TaskArtefact, TestSet, Track
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import (
    access,
    boardcache,
    figures,
    fragments,
    home,
    leaderboard,
    own_rows,
    page_keys,
    ranking,
    refreshes,
    selection,
    systems,
    tails,
)
from evalhub.competitions.services.data import tracks
from evalhub.precompiled import Precompiled, fields, instance
from tasks.base import Metric


@dataclass(frozen=True, slots=True)
class BoardView:
    test_set: TestSet
    board: leaderboard.Board | None  # None when hidden from this viewer
    plots: tuple[TaskArtefact, ...]
    analysis: TaskArtefact | None
    show_private_analysis: bool
    #: Feature apps' per-system columns shown on the board (fact-sheet answers,
    #: papers) and each row's cells: run id -> ((text, url), ...).
    system_columns: tuple[systems.SystemColumn, ...] = ()
    cells: Mapping[int, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    #: Figures or the analysis were drawn from runs the board no longer shows: not
    #: shown until the worker has redrawn them (``access.artefact_current``).
    redrawing: bool = False
    #: A long board (``tails.cut``): the ranked rows shown, how many are ranked,
    #: the placeholder of the viewer's rows past them, "show all"/"first" links.
    rows_slice: str = ":"
    ranked_count: int = 0
    tail: SafeString = SafeString("")
    more_url: str = ""
    less_url: str = ""

    @property
    def system_count(self) -> int:
        return len(self.system_columns)


def leaderboard_phase(*, slug: str, phase_slug: str) -> tuple[Phase, list[TestSet]]:
    """The leaderboard page's phase (its task loaded) and test sets with their
    board versions (``boardcache.carry``), in one precompiled query (see
    ``evalhub.precompiled``: this page is the site's busiest, and compiling its
    queries had cost more than running them). Raises
    ``Phase.DoesNotExist``; the caller checks the task's visibility."""
    rows = _PAGE_ROWS.rows(slug=slug, phase_slug=phase_slug)
    if not rows:  # no such phase, or one without test sets yet
        phase = Phase.objects.select_related("task").get(
            task__slug=slug, slug=phase_slug
        )
        return phase, []
    n_ts, n_phase = len(_TEST_SET_FIELDS), len(_PHASE_FIELDS)
    first = rows[0]
    phase = instance(Phase, first[n_ts + 1 : n_ts + 1 + n_phase])
    phase.task = instance(SharedTask, first[n_ts + 1 + n_phase :])
    test_sets = []
    for row in rows:
        test_set = instance(TestSet, row[:n_ts])
        test_set.phase = phase
        boardcache.carry(test_set, row[n_ts])
        test_sets.append(test_set)
    return phase, test_sets


_TEST_SET_FIELDS = fields(TestSet)
_PHASE_FIELDS = fields(Phase, "phase__")
_PAGE_ROWS = Precompiled(
    lambda slug, phase_slug: TestSet.objects.filter(
        phase__task__slug=slug, phase__slug=phase_slug
    ).values_list(
        *_TEST_SET_FIELDS,
        boardcache.VERSION_FIELD,
        *_PHASE_FIELDS,
        *fields(SharedTask, "phase__task__"),
    ),
    slug="\x00task-slug",
    phase_slug="\x00phase-slug",
)


def leaderboard_page(
    *,
    phase: Phase,
    test_sets: list[TestSet],
    user: object,
    track: Track | None = None,
    every_row: bool = False,
    own_rows_marked: bool = True,
) -> dict[str, object]:
    """The page around the boards, and the boards' HTML from the fragment cache
    (see ``boards_fragment``; ``phase`` and ``test_sets`` from
    ``leaderboard_phase``). In a phase with tracks: the boards of ``track``, or
    of every track together (None), and the track selector. ``every_row``: long
    boards show every row, not the first ones and the viewer's (``tails``).
    ``own_rows_marked`` False: the boards as the fragment holds them, for a page
    shared by several viewers that marks each one's rows after reading it
    (``viewer_page``)."""
    task = phase.task
    html = boards_fragment(
        phase=phase, test_sets=test_sets, user=user, track=track, every_row=every_row
    )
    return {
        "task": task,
        "phase": phase,
        "test_sets": test_sets,
        "tracks": tracks.phase_tracks(phase),
        "track": track,
        # The viewer's own rows are marked on the fragment read from the cache,
        # never in it; so are a long board's own rows past the first ones put in
        # (``own_rows``, ``tails``).
        "boards_html": own_rows.mark(html, user) if own_rows_marked else html,
        "primary": _ranking_metric(phase, test_sets),
        "finals": selection.finals_apply(phase),
        "has_private": any(
            ts.visibility == TestSet.Visibility.PRIVATE for ts in test_sets
        ),
        "is_organiser": roles.is_organiser(user, task),
        # The link preview's and meta description's leader, read once per page.
        "leader": home.phase_leader(phase, test_sets),
    }


def _ranking_metric(phase: Phase, test_sets: list[TestSet]) -> Metric:
    """The metric that ranks the phase (``ranking.of``), as its first board was
    drawn with it: read from the board cache (under the versions a change of the
    ranking bumps), so a cached page asks the database nothing more."""
    if not test_sets:
        return ranking.metric(phase)
    _, key = leaderboard.leading_row(test_set=test_sets[0])
    return phase.task.type.metric(key)


def boards_fragment(
    *,
    phase: Phase,
    test_sets: list[TestSet],
    user: object,
    viewer: bool = True,
    track: Track | None = None,
    every_row: bool = False,
) -> SafeString:
    """The leaderboard page's boards as ``user`` may see them, from the
    fragment cache (``fragments.fragment``): a hit costs two cache
    reads, whoever the viewer is. A ``viewer``'s request (not ``warm_leaderboard``'s)
    is noted for ``warm_leaderboard``. ``track``: the boards of that track (None:
    of every track, each row marked with its track); part of the fragment's key,
    as is ``every_row`` (long boards: every row, or the first ones, ``tails``)."""
    audience_ = audience(user, phase.task, test_sets)
    if viewer:
        note_view(phase.pk)

    def render() -> str:
        return render_to_string(
            "competitions/phase_leaderboard_boards.html",
            {
                "boards": _board_views(
                    phase, test_sets, user, *audience_, track=track, every_row=every_row
                ),
                "primary": ranking.metric(phase),
                **tails.numbers(),
                "track": track,
                # Every figure address of a track's board names the track.
                "tq": "" if track is None else f"?track={quote(track.slug)}",
            },
        )

    track_key = None if track is None else (track.pk, track.slug, track.name)
    return fragments.fragment(
        test_sets=test_sets,
        vary_on=(phase.pk, audience_, track_key, every_row),
        render=render,
    )


def audience(
    user: object, task: SharedTask, test_sets: Sequence[TestSet]
) -> tuple[tuple[bool, ...], bool, bool]:
    """Everything the boards fragment may show ``user`` is decided by these flags
    (the leak rules of services/boards/access.py): viewers with the same flags
    share one fragment (and one signed-in page shell, ``viewer_page``)."""
    return (
        tuple(access.can_see_scores(user, ts) for ts in test_sets),
        access.can_see_detail(user, task),
        access.can_see_hidden_runs(user, task),
    )


#: Seconds after its last view that a phase's public boards are still rendered
#: ahead. Pages draw times in one zone for every viewer (``evalhub_tags.when``;
#: the browser redraws them in its own), so one rendering serves everyone.
VIEWED_WINDOW = 600
#: Seconds between two notes of the same view by one process.
_NOTE_EVERY = 60
_noted: dict[int, float] = {}  # process-local: phase -> last note


def warm_leaderboard(test_set_id: int) -> None:
    """Render the public boards of the test set's phase if they were viewed
    during the last ``VIEWED_WINDOW`` seconds, unless already there
    (the default view: every track together; a track's view is rendered by its
    first request).
    ``boardcache.invalidate`` calls it in worker processes, just before a new
    version of the board shows (see ``boardcache.render_ahead_with``), so that no
    viewer's request renders them; a board nobody reads costs nothing.

    Public boards are what anonymous visitors see, and what every signed-in viewer
    who does not organise the task sees (the same audience flags, the same
    fragment); organisers' boards are rendered on their first request."""
    phase = Phase.objects.select_related("task").filter(test_sets=test_set_id).first()
    if phase is None:
        return
    seen = cache.get(_viewed_key(phase.pk))
    if seen is None or time.time() - seen >= VIEWED_WINDOW:
        return
    # As the page reads them (their versions with them), each board read once.
    phase, test_sets = leaderboard_phase(slug=phase.task.slug, phase_slug=phase.slug)
    with leaderboard.read_once():
        boards_fragment(
            phase=phase, test_sets=test_sets, user=AnonymousUser(), viewer=False
        )


def _viewed_key(phase_id: int) -> str:
    return f"leaderboard:viewed-at:{phase_id}"


def note_view(phase_id: int) -> None:
    """Note that the phase's boards were viewed: at most once a minute per
    process (a cache write), so pages served from the cache stay as cheap."""
    now = time.monotonic()
    if now - _noted.get(phase_id, float("-inf")) < _NOTE_EVERY:
        return
    _noted[phase_id] = now
    cache.set(_viewed_key(phase_id), time.time(), timeout=VIEWED_WINDOW)


def anonymous_leaderboard(
    *, phase: Phase, test_sets: list[TestSet], path: str, render: Callable[[], bytes]
) -> bytes:
    """The whole leaderboard page as anonymous visitors see it, shared by all of
    them (the caller checks there is nothing of the viewer's on it: no CSRF token,
    no messages) and rendered by ``render`` once per change of anything it shows
    (``page_keys.vary_on``); while another request renders it, the previous
    one (``fragments.page``)."""
    note_view(phase.pk)
    return fragments.page(
        test_sets=test_sets,
        vary_on=page_keys.vary_on(phase=phase, path=path),
        render=render,
    )


def cached_anonymous_leaderboard(
    *, slug: str, phase_slug: str, path: str
) -> bytes | None:
    """The page ``anonymous_leaderboard`` keeps, if the cache holds it for the
    phase as it is now (or the previous one while another request renders it:
    ``fragments.kept_page``): one light query (``page_keys.light_phase``) and
    one cache read. None (the caller takes the full way, which renders it or answers
    404): no such phase, a task hidden from the public, no page kept yet."""
    found = page_keys.light_phase(slug=slug, phase_slug=phase_slug)
    if found is None:
        return None
    phase, test_sets = found
    if not access.can_see_task(AnonymousUser(), phase.task):
        return None
    note_view(phase.pk)
    return fragments.kept_page(
        test_sets=test_sets, vary_on=page_keys.vary_on(phase=phase, path=path)
    )


def _board_views(
    phase: Phase,
    test_sets: list[TestSet],
    user: object,
    shown: tuple[bool, ...],
    detail: bool,
    hidden_runs: bool,
    track: Track | None = None,
    every_row: bool = False,
) -> list[BoardView]:
    """What the fragment shows; it depends on ``user`` only through the audience
    flags (``shown``, ``detail``, ``hidden_runs``), which key the cache (the
    per-system columns too: ``signals.system_columns`` answers per organiser flag)."""
    views = []
    columns = tuple(systems.system_columns(phase, user, board_only=True))
    for ts, visible in zip(test_sets, shown, strict=True):
        if not visible:
            views.append(BoardView(ts, None, (), None, False))
            continue
        # The figures and analysis drawn from this board's runs (``analyses``).
        track_id = None if track is None else track.pk
        artefacts = list(
            ts.task_artefacts.filter(track_id=track_id)
            # A figure's points (thousands) are read for its CSV only; the
            # analysis' data is read when it is shown.
            .defer("public_data", "private_data")
            .annotate(has_points=figures.HAS_POINTS)
        )
        for a in artefacts:
            a.test_set, a.track = ts, track
        plots = tuple(
            a for a in artefacts if a.svg and access.can_see_task_artefact(user, a)
        )
        analysis = next(
            (
                a
                for a in artefacts
                if a.key == "analysis" and access.can_see_task_artefact(user, a)
            ),
            None,
        )
        board = leaderboard.board(test_set=ts, include_hidden=hidden_runs, track=track)
        redrawing = not all(
            access.artefact_current(a) for a in artefacts
        ) or access.track_figures_missing(ts, track, board.rows, artefacts)
        if redrawing:
            # Stale or missing figures: the worker draws them (requests coalesce).
            refreshes.request(kind=refreshes.ANALYSES, test_set_id=ts.pk)
        views.append(
            tails.cut(
                BoardView(
                    ts,
                    board,
                    plots,
                    analysis,
                    detail,
                    columns,
                    systems.cells(
                        list(columns),
                        board.rows,
                        systems.teams_of(r.submission_id for r in board.rows),
                    )
                    if columns
                    else {},
                    redrawing=redrawing,
                ),
                phase=phase,
                track=track,
                every_row=every_row,
            )
        )
    return views
