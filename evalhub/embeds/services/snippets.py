"""The copy-paste snippets of a phase's embeds and badges: an ``<iframe>`` for a
workshop page, and a badge in Markdown and HTML for a README or slides. They
hold absolute addresses (the site's public address, ``public_url``) and the
boards' names, escaped: user text stays plain text in the page that pastes them."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from urllib.parse import quote

from django.urls import reverse

from evalhub.competitions.models import Phase, SharedTask, TestSet, Track
from evalhub.competitions.public_url import absolute
from evalhub.competitions.services.data import tracks

#: The iframe's height in pixels: about ten rows; the embed scrolls past them.
IFRAME_HEIGHT = 420


@dataclass(frozen=True, slots=True)
class Snippet:
    label: str  # the board: a test set's name, or "Overall ranking"
    embed_url: str
    badge_url: str
    iframe: str
    markdown: str
    html: str


def _snippet(
    *,
    label: str,
    title: str,
    embed: str,
    badge: str,
    board: str,
    track: Track | None,
) -> Snippet:
    query = "" if track is None else f"?track={quote(track.slug)}"
    embed_url, badge_url = absolute(embed + query), absolute(badge + query)
    board_url = absolute(board + query)
    alt = title.replace("[", "(").replace("]", ")")
    return Snippet(
        label=label,
        embed_url=embed_url,
        badge_url=badge_url,
        iframe=(
            f'<iframe src="{escape(embed_url)}" title="{escape(title)}" '
            f'width="100%" height="{IFRAME_HEIGHT}" style="border:0" '
            'loading="lazy"></iframe>'
        ),
        markdown=f"[![{alt}]({badge_url})]({board_url})",
        html=(
            f'<a href="{escape(board_url)}"><img src="{escape(badge_url)}" '
            f'alt="{escape(title)}"></a>'
        ),
    )


def for_phase(
    *, phase: Phase, test_sets: list[TestSet], track: Track | None = None
) -> list[Snippet]:
    """The snippets of each test set's board of ``phase`` in ``track`` (None:
    of every track), and of its overall ranking."""
    task = phase.task
    args = [task.slug, phase.slug]
    suffix = "" if track is None else f" · {track.name} track"
    board = reverse("competitions:leaderboard-detail", args=args)
    found = [
        _snippet(
            label=ts.name,
            title=f"{task.title} · {phase.name} · {ts.name}{suffix}",
            embed=reverse("embeds:board-embed", args=[*args, ts.pk]),
            badge=reverse("embeds:board-badge", args=[*args, ts.pk]),
            board=board,
            track=track,
        )
        for ts in test_sets
    ]
    if test_sets:
        found.append(
            _snippet(
                label="Overall ranking",
                title=f"{task.title} · {phase.name} · overall ranking{suffix}",
                embed=reverse("embeds:overall-embed", args=args),
                badge=reverse("embeds:overall-badge", args=args),
                board=reverse("competitions:ranking-detail", args=args),
                track=track,
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class PhaseSnippets:
    phase: Phase
    track: Track | None
    snippets: list[Snippet]


def for_task(*, task: SharedTask) -> list[PhaseSnippets]:
    """Every board's snippets, phase by phase: of every track together, then of
    each track."""
    found = []
    for phase in task.phases.order_by("order", "opens_at"):
        phase.task = task
        test_sets = list(phase.test_sets.all())
        for track in [None, *tracks.phase_tracks(phase)]:
            found.append(
                PhaseSnippets(
                    phase,
                    track,
                    for_phase(phase=phase, test_sets=test_sets, track=track),
                )
            )
    return found
