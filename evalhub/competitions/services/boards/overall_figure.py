"""The overall ranking's figure (ARCADE's Fig. 2): a bar per ranked run, the best
``FIGURE_BARS`` at most, drawn in the request that asks for it and kept with a
digest of what it draws, one drawing per form and audience."""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from evalhub.cache import kept_latest
from evalhub.competitions.models import Phase, Submission, Track
from evalhub.competitions.services.boards import team_colours
from evalhub.competitions.services.boards.overall import (
    Overall,
    audience_name,
    overall,
)

#: Seconds a drawn overall figure is kept (with a digest of what it draws).
FIGURE_KEPT = 24 * 3600
#: Bars the figure draws at most: the best ranked runs. A web request draws it,
#: so its work is bounded whatever the board's size (a bar per run of a
#: 1,000-run board would be a figure 450 inches tall); the table and the CSV list
#: every run.
FIGURE_BARS = 40


def figure_cut(board: Overall) -> tuple[int, int] | None:
    """(runs the figure shows, runs ranked) when the figure cannot show every
    ranked run (``FIGURE_BARS``), else None: what its title and the page say."""
    ranked = len(board.rows)
    return (FIGURE_BARS, ranked) if ranked > FIGURE_BARS else None


def figure_title(board: Overall) -> str:
    """The figure's title: which track, and how many of the ranked runs it shows
    when it cannot show them all (``figure_cut``)."""
    title = "Overall ranking" + (f", {board.track.name} track" if board.track else "")
    cut = figure_cut(board)
    if cut is not None:
        title += f": the best {cut[0]} of {cut[1]} runs"
    return title


@functools.cache
def _code_digest() -> str:
    """This module's source: a release that draws the figure otherwise draws it
    again (the figure code of ``tasks/`` is in ``plotting.drawing_digest``)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def overall_plot(
    *, phase: Phase, user: object, ext: str, track: Track | None = None
) -> bytes:
    """A horizontal bar chart of the overall ranking (ARCADE's Fig. 2) of at most
    the ``FIGURE_BARS`` best ranked runs, SVG (or ``narrow.svg``, drawn for a
    phone), PNG or PDF. It depends on who asks (the runs they may see), so the
    request computes what it draws; the drawing is kept with a digest of exactly
    that (``evalhub.cache.kept_latest``), one per phase, track, form and audience
    (``overall.audience_name``): a viewer is handed only bytes they would draw
    themselves, an equal figure is drawn once, not for every visitor, and a
    change leaves no superseded drawing behind."""
    from tasks.common import plotting

    board = overall(phase=phase, user=user, track=track)
    rows = list(reversed(board.rows[:FIGURE_BARS]))
    teams = dict(
        Submission.objects.filter(pk__in=[r.submission_id for r in rows]).values_list(
            "pk", "team_id"
        )
    )
    styles = team_colours.team_styles(task=phase.task)
    looks = [
        styles.get(teams.get(r.submission_id, -1), plotting.nth_style(0)) for r in rows
    ]
    labels = [
        f"{r.rank}. {r.team}: {r.method_name}"
        + (f" ({r.track})" if r.track else "")
        + (f" ({r.coverage})" if r.coverage else "")
        for r in rows
    ]
    means = [r.mean for r in rows]
    x_label = f"{board.score_label} over {', '.join(ts.name for ts in board.test_sets) or 'no test set'}"
    title = figure_title(board)
    drawn = [ext, labels, means, [(k.colour, k.hatch) for k in looks], x_label, title]

    def draw() -> bytes:
        fig = plotting.new_figure(6.4, max(2.0, 0.45 * len(rows) + 1.2))
        ax = fig.add_subplot()
        ax.barh(
            labels,
            means,
            color=[look.colour for look in looks],
            hatch=[look.hatch for look in looks],
            edgecolor="white",
            linewidth=0,
        )
        for y, mean in enumerate(means):
            ax.text(mean, y, f" {mean:.4f}", va="center", fontsize="small")
        ax.set_xlabel(x_label)
        ax.set_title(title)
        ax.set_xlim(0, max([*means, 1.0]) * 1.15)
        if ext == "pdf":
            return plotting.render_pdf(fig)
        # The form asked for alone: a request draws one form, not all three.
        plot = plotting.render("overall", "Overall ranking", fig, only=ext)
        return {"svg": plot.svg, "narrow.svg": plot.svg_narrow}.get(ext, plot.png)

    digest = hashlib.sha256(
        json.dumps([plotting.drawing_digest(), _code_digest(), drawn]).encode()
    ).hexdigest()
    audience = audience_name(phase=phase, user=user)
    slot = f"overall-figure:{phase.pk}:{track.pk if track else ''}:{ext}:{audience}"
    return kept_latest(slot, digest, draw, FIGURE_KEPT)
