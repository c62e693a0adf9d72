"""The leaderboard exports as text (the CSV, the JSON and the LaTeX of
``/exports/...``; the board's own ``leaderboard.json`` is that JSON), written once per
change and audience and kept under the versions of the phase's boards for five
minutes (``fragments.kept``; a text of a 1,000-team board is a megabyte): every
change they show (a score, a hidden run, a team's name, a fact-sheet answer, a
setting) raises them, so the next request writes them again. Written per request,
one of a 1,000-team board cost about a tenth of a second of CPU (``json.dumps``
with indentation runs in Python), and scripts poll them.

Viewers share a text when the boards' leak rules give them the same answers
(``board_pages.audience``: the scores of each test set, the gold's detail, the
hidden runs, which also decide the fact-sheet columns' systems)."""

from __future__ import annotations

from collections.abc import Callable

from evalhub.competitions.models import Phase, Track
from evalhub.competitions.services.boards import (
    access,
    board_pages,
    exports,
    fragments,
    ranking,
)

#: Part of a kept text's key: changed with what the exports write, so that a
#: process of a new release never hands out one written by an older.
LAYOUT = "e1"


#: What each kind writes: ``fn(phase=, user=, track=, **options)`` -> text.
WRITERS: dict[str, Callable[..., str]] = {
    "csv": exports.leaderboard_csv,
    "json": exports.leaderboard_json,
    "tex": exports.leaderboard_latex,
}


def register(kind: str, writer: Callable[..., str]) -> None:
    """Adds ``kind``, written by ``writer`` (as those of ``WRITERS``): a feature
    app's own form of the boards, kept as these are (the API's leaderboard,
    ``evalhub/api/api.py``)."""
    if WRITERS.setdefault(kind, writer) is not writer:
        raise ValueError(f"{kind!r} is written by another writer already")


def leaderboard_text(
    *, kind: str, phase: Phase, user: object, track: Track | None = None, **options
) -> str:
    """The export ``kind`` (a key of ``WRITERS``) of ``phase``'s boards as ``user``
    may see them, in ``track``; ``options``: the writer's (the LaTeX's
    ``all_columns``). Raises ``exports.NotVisible`` for a task the viewer may not
    see."""
    task = phase.task
    if not access.can_see_task(user, task):
        raise exports.NotVisible
    test_sets = list(phase.test_sets.all())
    vary_on = (
        "export",
        LAYOUT,
        kind,
        tuple(sorted(options.items())),
        phase.pk,
        task.state,
        repr(ranking.of(phase)),
        board_pages.audience(user, task, test_sets),
        None if track is None else track.pk,
    )
    return fragments.kept(
        test_sets=test_sets,
        vary_on=vary_on,
        compute=lambda: WRITERS[kind](phase=phase, user=user, track=track, **options),
    )
