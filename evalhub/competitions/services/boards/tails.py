"""Long boards (issue 31): a board of a thousand teams shows its first
``TOP_ROWS`` ranked rows, the viewer's own rows below them wherever they rank, and
a link to every row (``?rows=all``).

The boards are cached fragments shared by every viewer of one audience
(``fragments.fragment``), so the fragment of the first rows cannot hold the
viewer's own rows. When it is rendered, the rows past the first ones (the
*tail*) are kept too, each team's under a cache key of its own made of a token
of that rendering, with what the row template needs of the board; the fragment
holds a placeholder naming the token and the tail's teams (``render_tail``: ids
and a random token, the same for every viewer). The page, after reading the
fragment, renders the viewer's teams' tail rows in place of the placeholder
(``insert``: one cache read, none for a viewer without a team on the tail nor
for rows the process drew from that tail before) and
drops the placeholder for everyone else. The tail is stored with
``boardcache.store_many``, so what a worker rendered ahead of a failed bump is
dropped with the fragment, and it outlives the fragment that names it. Should
it be gone all the same (evicted), the row says where the team's row is: on the
full board."""

from __future__ import annotations

import dataclasses
import re
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from django.core.cache import cache
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.safestring import SafeString, mark_safe

from evalhub.competitions.models import Phase, Track
from evalhub.competitions.services.boards import (
    analyses,
    board_layout,
    boardcache,
    fragments,
)

T = TypeVar("T")

#: Ranked rows a board shows before "Show all" (its own rows come on top of these).
TOP_ROWS = 50
#: The query that shows every row: ``?rows=all``.
ALL = "all"
#: Seconds the tail rows are kept: longer than the fragment naming them.
TAIL_TIMEOUT = fragments.FRAGMENT_TIMEOUT + 120

_PLACEHOLDER = re.compile(r"<!--tail:(\d+):([0-9a-f]+):([0-9,]*):(\d+)-->")


def shows_all(rows: str | None) -> bool:
    """``?rows=`` asks for every row of the boards."""
    return rows == ALL


def numbers() -> dict[str, int]:
    """What the boards' template says of long boards: the rows shown first, and
    the runs the figures comparing runs show (drawn once for every viewer, so
    the viewer's run is not added to them: its run page has its figures)."""
    return {"top_rows": TOP_ROWS, "plot_runs": analyses.MAX_RUNS_IN_PLOTS}


def cut(view: T, *, phase: Phase, track: Track | None, every_row: bool) -> T:
    """``view`` (a ``board_pages.BoardView``) as its board shows: unchanged up to
    ``TOP_ROWS`` ranked rows; longer, with its links and every row
    (``every_row``) or the first ones and its tail's placeholder."""
    board = view.board  # type: ignore[attr-defined]
    ranked = sum(1 for r in board.rows if not r.is_baseline)
    if ranked <= TOP_ROWS:
        return view
    path = reverse(
        "competitions:leaderboard-detail", args=[phase.task.slug, phase.slug]
    )
    more, less = links(
        path=path,
        track_slug="" if track is None else track.slug,
        test_set_id=view.test_set.pk,  # type: ignore[attr-defined]
    )
    view = dataclasses.replace(  # type: ignore[type-var]
        view,
        ranked_count=ranked,
        more_url=more,
        less_url=less,
        rows_slice=":" if every_row else f":{TOP_ROWS}",
    )
    if every_row:
        return view
    shape = board_layout.layout(task_type=phase.task.type, board=board)
    tail = render_tail(
        context={"view": view, "layout": shape},
        rows=shape.ranked[TOP_ROWS:],
        width=shape.width + view.system_count,  # type: ignore[attr-defined]
    )
    return dataclasses.replace(view, tail=tail)  # type: ignore[type-var]


def links(*, path: str, track_slug: str, test_set_id: int) -> tuple[str, str]:
    """The board's "Show all" and "Show the first rows" addresses (the track
    kept)."""
    track = {"track": track_slug} if track_slug else {}
    every = f"{path}?{urlencode({**track, 'rows': ALL})}#testset-{test_set_id}"
    first = f"{path}{'?' + urlencode(track) if track else ''}#testset-{test_set_id}"
    return every, first


def render_tail(
    *, context: Mapping[str, object], rows: Sequence[object], width: int
) -> SafeString:
    """Keep the ``rows`` past the first ones, each team's under this rendering's
    token, with what the row template needs of ``context`` (its ``view`` and
    ``layout``, without their rows), and return the fragment's placeholder for
    them. The rows are kept, not their HTML: a viewer's own rows are rendered on
    its request (a millisecond or two), where rendering all of them here took
    most of a 1,000-row board's render."""
    view, shape = context["view"], context["layout"]
    light = (
        dataclasses.replace(  # type: ignore[type-var]
            view,
            # The first row (the row template's needs) and the leaders' runs, which
            # the own rows' "compare" link puts beside the team's best.
            board=dataclasses.replace(view.board, rows=view.board.rows[:COMPARED]),  # type: ignore[attr-defined]
            plots=(),
            analysis=None,
            cells={},
        ),
        dataclasses.replace(shape, ranked=(), baselines=()),  # type: ignore[type-var]
    )
    token = secrets.token_hex(8)
    cells = view.cells  # type: ignore[attr-defined]
    by_team: dict[int, list[tuple[int, object, object]]] = {}
    for position, row in enumerate(rows):
        pk = row.submission_id  # type: ignore[attr-defined]
        by_team.setdefault(row.team_id, []).append((position, row, cells.get(pk, ())))  # type: ignore[attr-defined]
    boardcache.store_many(
        {
            _key(token, "view"): light,
            **{_key(token, team): value for team, value in by_team.items()},
        },
        TAIL_TIMEOUT,
    )
    teams = ",".join(str(int(t)) for t in sorted(by_team))
    test_set_id = int(view.test_set.pk)  # type: ignore[attr-defined]
    return mark_safe(  # noqa: S308 - integers and a hex token
        f"<!--tail:{test_set_id}:{token}:{teams}:{int(width)}-->"
    )


#: Runs of the board's first rows the own rows' link compares the team's best with
#: (the compare page takes 2 to 5 runs).
COMPARED = 4


def _compare_link(view: object, own: object) -> str:
    """A link to the compare page with the team's best run on the tail and the
    board's first ``COMPARED`` runs: the figures of its run among the leaders'
    (the board's own figures draw its first rows only)."""
    test_set = view.test_set  # type: ignore[attr-defined]
    leaders = [r.submission_id for r in view.board.rows[:COMPARED]]  # type: ignore[attr-defined]
    query = urlencode([("runs", pk) for pk in [*leaders, own.submission_id]])  # type: ignore[attr-defined]
    url = reverse(
        "competitions:runs-compare",
        args=[test_set.phase.task.slug, test_set.phase.slug],
    )
    return format_html(
        ' <a href="{}">compare your run with the first {} in figures</a>',
        f"{url}?{query}",
        len(leaders),
    )


def _key(token: str, what: int | str) -> str:
    """A tail's row of a team (its id), or the tail's ``"view"``."""
    return f"leaderboard:tail:{token}:{what}"


def insert(html: str, own_teams: Iterable[int]) -> str:
    """``html`` (a fragment read from the cache) with each tail placeholder
    replaced by the rows of ``own_teams`` it names, after a separator row, or
    removed. One cache read for all boards, none without own rows on a tail, nor
    for rows this process drew from the same tail before (``_drawn``)."""
    if "<!--tail:" not in html:
        return html
    own = set(own_teams)
    wanted: dict[str, object] = {}
    found = []
    for m in _PLACEHOLDER.finditer(html):
        teams = sorted({int(t) for t in m.group(3).split(",") if t} & own)
        drawn = _drawn.get((m.group(0), tuple(teams))) if teams else ""
        found.append((m, teams, drawn))
        if drawn is None:
            wanted.update({_key(m.group(2), t): None for t in teams})
            wanted[_key(m.group(2), "view")] = None
    if wanted:
        wanted.update(cache.get_many(list(wanted)))
    out, at = [], 0
    for m, teams, drawn in found:
        out.append(html[at : m.start()])
        at = m.end()
        if drawn is None:
            drawn = _own_rows(m, teams, wanted)
        out.append(drawn)
    out.append(html[at:])
    return "".join(out)


class _Drawn:
    """The own rows this process drew, by placeholder and teams: a tail's rows never
    change under its token (a new rendering of the board makes a new token), so
    what was drawn from them is the same for the next viewer of those teams. Only
    complete drawings are kept (none with rows evicted from the cache); the
    oldest go first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[tuple[str, tuple[int, ...]], str] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[str, tuple[int, ...]]) -> str | None:
        with self.lock:
            found = self.items.get(key)
            if found is not None:
                self.items.move_to_end(key)
            return found

    def put(self, key: tuple[str, tuple[int, ...]], html: str) -> None:
        with self.lock:
            self.items[key] = html
            while len(self.items) > self.size:
                self.items.popitem(last=False)


_drawn = _Drawn(2048)


def _own_rows(
    m: re.Match[str],
    teams: list[int],
    cached: Mapping[str, object],
) -> str:
    test_set_id, token, width = int(m.group(1)), m.group(2), int(m.group(4))
    found: list[tuple[int, object, object]] = []
    light = cached.get(_key(token, "view"))
    missing = light is None
    for team in teams:
        got = cached.get(_key(token, team))
        if got is None:
            missing = True
        else:
            found.extend(got)
    rows: list[tuple[int, str]] = []
    if light is not None:
        view, shape = light
        for position, row, cells in found:
            own = dataclasses.replace(view, cells={row.submission_id: cells})  # type: ignore[attr-defined]
            rows.append(
                (
                    position,
                    render_to_string(
                        "competitions/board_row.html",
                        {"view": own, "layout": shape, "row": row},
                    ),
                )
            )
    note = "Your team, further down the board:"
    if light is not None and found:
        note += _compare_link(light[0], min(found, key=lambda f: f[0])[1])
    if missing:  # evicted since: the "Show all" link is on the page
        note = (
            f'Your team is further down: <a href="#testset-{test_set_id}-more">'
            "show every row</a>."
        )
    gap = f'<tr class="tail-gap"><td colspan="{width}">{note}</td></tr>'
    drawn = gap + "".join(piece for _, piece in sorted(rows))
    if not missing:
        _drawn.put((m.group(0), tuple(teams)), drawn)
    return drawn
