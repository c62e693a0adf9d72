"""The leaderboard's figure area: figures grouped by what they show (a figure and
its log-x twin are one entry, the reader picks linear or log), and each figure's
data (the points it draws) as CSV, under the figure's own leak rules."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import BooleanField, ExpressionWrapper, Q

from evalhub.competitions.models import TaskArtefact, TestSet, Track
from evalhub.competitions.services.boards import analyses, exports, tables
from tasks.common.plotting import POINT_COLUMNS

#: Annotated on the figures a board shows (``has_points``): it has data for a CSV
#: (its points, a list: ``analyses._points``), without loading them.
HAS_POINTS = ExpressionWrapper(
    Q(public_data__has_key="points"), output_field=BooleanField()
)

#: Title suffixes of a figure's logarithmic twin (``tasks`` names them so).
LOG_SUFFIXES = (" (log x)", " (log scale)")


@dataclass(frozen=True, slots=True)
class Figure:
    artefact: TaskArtefact
    log: bool
    has_csv: bool
    has_pdf: bool

    @property
    def scale(self) -> str:
        return "log" if self.log else "linear"


@dataclass(frozen=True, slots=True)
class FigureGroup:
    title: str
    figures: tuple[Figure, ...]  # linear first

    @property
    def has_scales(self) -> bool:
        return len(self.figures) == 2


def base_title(title: str) -> tuple[str, bool]:
    """A figure's title without its log suffix, and whether it had one."""
    for suffix in LOG_SUFFIXES:
        if suffix in title:
            return title.replace(suffix, "", 1), True
    return title, False


def groups(plots: Iterable[TaskArtefact]) -> list[FigureGroup]:
    """``plots`` (annotated with ``HAS_POINTS``) in their order, a log twin joined
    to its linear figure (by title without the log suffix) when both are there."""
    by_title: dict[str, list[Figure]] = {}
    for artefact in plots:
        title, log = base_title(artefact.title)
        figure = Figure(
            artefact,
            log,
            has_csv=artefact.has_points,  # type: ignore[attr-defined]
            has_pdf=artefact.key.startswith(analyses.COMPARE_PREFIX)
            or bool(artefact.pdf),
        )
        by_title.setdefault(title, []).append(figure)
    out = []
    for title, figures in by_title.items():
        scales = {f.log for f in figures}
        if len(figures) == 2 and scales == {False, True}:
            out.append(FigureGroup(title, tuple(sorted(figures, key=lambda f: f.log))))
        else:  # nothing to pair: each figure on its own, under its own title
            out += [FigureGroup(f.artefact.title, (f,)) for f in figures]
    return out


def figure_csv(
    *, test_set: TestSet, key: str, user: object, track: Track | None = None
) -> str:
    """The points a task-level figure of the board of ``track`` (None: of every
    track) draws, as CSV (panel, series, x, y); raises ``exports.NotVisible`` to
    whoever may not see the figure, or when the figure was drawn before its data
    was kept (until its next refresh)."""
    artefact = exports.figure(test_set=test_set, key=key, user=user, track=track)
    points = (artefact.public_data or {}).get("points")
    if not isinstance(points, list):
        raise exports.NotVisible
    return tables.csv_text(POINT_COLUMNS, points)
