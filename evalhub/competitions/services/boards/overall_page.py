"""The overall ranking's page: the ranking its viewer's audience sees
(``overall.overall``, kept) and its table, rendered once per change and audience
(``fragments.fragment``, on the ranking's own key): a table of 1,000 runs is most
of a tenth of a second of CPU to render. Each team's row carries its neutral
placeholder; the viewer's own rows are marked after (``own_rows.mark``)."""

from __future__ import annotations

from django.template.loader import render_to_string

from evalhub.competitions.models import Phase, Track
from evalhub.competitions.services.boards import (
    fragments,
    overall,
    overall_figure,
    own_rows,
)
from evalhub.competitions.services.data import tracks

TABLE_TEMPLATE = "competitions/_overall_table.html"


def context(*, phase: Phase, user: object, track: Track | None) -> dict[str, object]:
    """What the page shows besides its task, phase and track: the ranking, the
    phase's tracks, the table with the viewer's rows marked, and how much of
    the ranking the figure shows (``overall_figure.figure_cut``)."""
    test_sets = list(phase.test_sets.all())
    board = overall.overall(phase=phase, user=user, track=track, test_sets=test_sets)
    phase_tracks = tracks.phase_tracks(phase)
    every_track = bool(phase_tracks) and track is None
    vary_on, _ = overall.audience(
        phase=phase, user=user, track=track, test_sets=test_sets
    )
    table = fragments.fragment(
        test_sets=test_sets,
        vary_on=(vary_on, "table", every_track),
        render=lambda: render_to_string(
            TABLE_TEMPLATE, {"overall": board, "every_track": every_track}
        ),
    )
    return {
        "overall": board,
        "tracks": phase_tracks,
        "table": own_rows.mark(table, user),
        "figure_cut": overall_figure.figure_cut(board),
    }
