"""The boards of a phase the overview-paper package ranks: one per (test set, track).

This module is the one place that knows how a phase is split into tracks
(``competitions.models.Track``): a phase without tracks has one unnamed track
(``None``) and its boards are its test sets' boards; a phase with tracks has a board
per (test set, track), each ranked within its track, with the significance bands and
p-values of that track's board (``statistics.matrix_of``). The package, its tables
and its tests go through these functions only.

A package board is always the board the public sees (hidden runs left out, the
Ladder's released runs on its test sets), also for organisers: the package is what
an overview paper publishes. Which test sets a viewer gets is decided in
``services/package.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evalhub.competitions.models import Phase, TestSet, Track
from evalhub.competitions.services.boards import leaderboard
from evalhub.competitions.services.data import tracks
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import statistics


@dataclass(frozen=True)
class BoardKey:
    test_set: TestSet
    #: The track, or ``None``: the phase has no tracks.
    track: Track | None = None

    @property
    def slug(self) -> str:
        """File stem in the package: the test set's slug, ``--`` the track's."""
        base = file_slug(self.test_set.slug)
        if self.track is None:
            return base
        return f"{base}--{file_slug(self.track.slug)}"

    @property
    def title(self) -> str:
        """Plain text (escape before LaTeX)."""
        if self.track is None:
            return self.test_set.name
        return f"{self.test_set.name}, track {self.track.name}"

    @property
    def caption(self) -> str:
        """What the board's tables are of, as their captions name it (plain text):
        ``test set Public``, ``test set Public, track closed``."""
        base = f"test set {self.test_set.name}"
        return base if self.track is None else f"{base}, track {self.track.name}"

    @property
    def track_name(self) -> str:
        return "" if self.track is None else self.track.name


def file_slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in text) or "x"


def tracks_of(phase: Phase) -> list[Track | None]:
    """The phase's tracks in order; ``[None]`` for a phase without tracks."""
    return list(tracks.phase_tracks(phase)) or [None]


def keys(phase: Phase, test_sets: list[TestSet]) -> list[BoardKey]:
    """Every (test set, track) pair of ``test_sets``, test sets first."""
    found = tracks_of(phase)
    return [BoardKey(ts, track) for ts in test_sets for track in found]


def board_of(key: BoardKey) -> leaderboard.Board:
    """The public board of one (test set, track)."""
    return leaderboard.board(
        test_set=key.test_set, include_hidden=False, track=key.track
    )


def statistics_of(
    key: BoardKey,
) -> tuple[str, Mapping[str, object], Mapping[str, object]]:
    """The stored signature, statistics (intervals, settings) and the pairwise
    matrix (runs, p-values, bands) of the board's track."""
    row = TestSetStatistics.objects.filter(test_set=key.test_set).first()
    if row is None or not row.data:
        return "", {}, {}
    track_id = None if key.track is None else key.track.pk
    matrix = statistics.matrix_of(row.data, track_id)
    return (
        row.signature,
        row.data,
        statistics.with_pairs(test_set=key.test_set, matrix=matrix),
    )
