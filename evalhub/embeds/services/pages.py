"""The embed of a board (HTML without the site's chrome or script) and its
badge (SVG), cached like the leaderboard page anonymous visitors share: under a
key holding the boards' versions (``fragments.page_key``), so a change of a
board (a score, a hidden run, a Ladder decision, a reveal, a setting) shows at
once and nothing drawn before it is served again. What they show is
``shown``'s: what an anonymous visitor may see, whoever asks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.core.cache import cache
from django.template.loader import render_to_string

from evalhub.competitions.models import Phase, Track
from evalhub.competitions.services.boards import (
    access,
    board_pages,
    boardcache,
    fragments,
    visibility,
)
from evalhub.embeds.services import badge, origins, shown

#: Changed with the templates or ``Shown``: a new release never serves an older one's.
LAYOUT = "e2"
EMBED, BADGE = "embed", "badge"


class NotFound(Exception):
    """No such phase or test set, or a task the public does not see."""


@dataclass(frozen=True, slots=True)
class Answer:
    body: bytes
    etag: str  # the cache key's digest: the same as long as the board is
    policy: str  # the Content-Security-Policy (``origins.policy``)
    framed: bool  # some origin may frame it


def answer(
    *,
    slug: str,
    phase_slug: str,
    test_set_id: int | None,
    track: Callable[[Phase], Track | None],
    kind: str,
) -> Answer:
    """The embed or badge (``kind``) of a test set's board (``test_set_id``) or
    of the phase's overall ranking (None); ``track`` picks the track of the
    phase from the request (it may raise the caller's "not found")."""
    try:
        phase, test_sets = board_pages.leaderboard_phase(
            slug=slug, phase_slug=phase_slug
        )
    except Phase.DoesNotExist:
        raise NotFound from None
    task = phase.task
    if not access.can_see_task(visibility.PUBLIC, task):
        raise NotFound
    chosen = track(phase)
    if test_set_id is None:
        keyed = test_sets
        counted = tuple(ts.counts_for_ranking for ts in test_sets)
    else:
        keyed = [ts for ts in test_sets if ts.pk == test_set_id]
        if not keyed:
            raise NotFound
        counted = ()
    track_key = None if chosen is None else (chosen.pk, chosen.slug, chosen.name)
    key = fragments.page_key(
        test_sets=keyed,
        vary_on=(
            "embeds",
            LAYOUT,
            kind,
            test_set_id,
            track_key,
            counted,
            task.slug,
            task.title,
            task.task_type,
            task.state,
            phase.slug,
            phase.name,
            phase.max_final_runs,
        ),
    )

    def render() -> bytes:
        if test_set_id is None:
            board = shown.of_overall(phase=phase, track=chosen)
        else:
            board = shown.of_test_set(phase=phase, test_set=keyed[0], track=chosen)
        if kind == BADGE:
            return badge.svg(board)
        return render_to_string("embeds/board.html", {"shown": board}).encode()

    body = cache.get(key)
    if body is None:
        body = render()
        boardcache.store(key, body, fragments.FRAGMENT_TIMEOUT)
    allowed = origins.allowed(task=task)
    return Answer(
        body=body,
        etag=f'"{key.rsplit(":", 1)[-1]}"',
        policy=origins.policy(allowed),
        framed=bool(allowed),
    )
