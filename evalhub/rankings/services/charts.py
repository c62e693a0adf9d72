"""The leaderboard's interval chart: each shown run's primary metric with its
bootstrap interval as an error bar, best at the top. One per board: of every track
together (``TestSetStatistics.chart_*``), and of each track from its own runs
(``TrackChart``), drawn by the statistics job.

A chart draws the board's first ``tails.TOP_ROWS`` runs, the rows a board shows
before "Show all": a chart of every run of a 1,000-team board is 350 inches tall,
unreadable, and took the statistics job 20 to 40 s to draw after every new run.
Its data CSV holds every run of the board."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from django.core.cache import cache
from django.core.files.base import ContentFile

from evalhub.competitions import logs
from evalhub.competitions.models import Submission, TestSet, Track
from evalhub.competitions.services.boards import access, tables, tails, team_colours
from evalhub.competitions.services.data import tracks
from evalhub.rankings.models import TestSetStatistics, TrackChart
from evalhub.rankings.services import narrow_chart
from tasks.base import Plot
from tasks.common import plotting

log = logging.getLogger(__name__)


def _label(sub: Submission, *, with_track: bool) -> str:
    """Team and method, and on the chart of every track together the run's track
    (the whole name: long ones are wrapped where drawn, ``plotting``)."""
    label = f"{sub.team.name} · {sub.method_name}"
    return label + (f" [{sub.track.name}]" if with_track and sub.track_id else "")


def drawn_runs(data: Mapping[str, object], track_id: int | None = None) -> list[int]:
    """The runs of the board of ``track_id`` (None: of every track) with an
    interval, best first (the chart draws the first ``tails.TOP_ROWS``)."""
    if track_id is None:
        matrix = data.get("matrix") or {}
    else:
        matrix = (data.get("tracks") or {}).get(str(track_id)) or {}  # type: ignore[union-attr]
    intervals = data.get("intervals") or {}
    return [pk for pk in matrix.get("runs", []) if str(pk) in intervals]  # type: ignore[union-attr, operator]


@dataclass(frozen=True)
class ChartInput:
    """Everything an interval chart shows: drawn again only when this changes
    (a new run outside the first rows of a 1,000-run board changes nothing)."""

    metric_label: str
    confidence: float
    samples: object
    #: The board has more runs with an interval than the chart draws. (Not their
    #: number: every new run would change it, and the chart be drawn again.)
    cut: bool
    #: label, value, low, high, colour, marker; best first.
    rows: tuple[tuple[str, float, float, float, str, str], ...]

    def key(self) -> str:
        text = json.dumps(dataclasses.astuple(self), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()


def chart_input(
    *,
    test_set: TestSet,
    data: Mapping[str, object],
    track_id: int | None = None,
    styles: Mapping[int, plotting.SeriesStyle] | None = None,
) -> ChartInput | None:
    """What the chart of the board of ``track_id`` (None: of every track
    together) shows; None when it has no run with an interval."""
    intervals = data.get("intervals") or {}
    every = drawn_runs(data, track_id)
    runs = every[: tails.TOP_ROWS]
    if not runs:
        return None
    subs = Submission.objects.select_related("team", "track").in_bulk(runs)
    if styles is None:
        styles = team_colours.team_styles(task=test_set.phase.task)
    rows = []
    for pk in runs:
        sub, iv = subs[pk], intervals[str(pk)]  # type: ignore[index]
        look = styles.get(sub.team_id, plotting.nth_style(0))
        rows.append(
            (_label(sub, with_track=track_id is None), iv["value"], iv["low"],
             iv["high"], look.colour, look.marker)
        )  # fmt: skip
    return ChartInput(
        metric_label=test_set.phase.task.type.metric(str(data["metric"])).label,
        confidence=float(data.get("confidence", 0.95)),  # type: ignore[arg-type]
        samples=data.get("samples"),
        cut=len(every) > len(runs),
        rows=tuple(rows),
    )


def interval_chart(
    *, test_set: TestSet, data: Mapping[str, object], track_id: int | None = None
) -> Plot | None:
    """The chart of the board of ``track_id`` (None: of every track together)."""
    shown = chart_input(test_set=test_set, data=data, track_id=track_id)
    return None if shown is None else draw(shown)


def draw(shown: ChartInput) -> Plot:
    rows = shown.rows
    fig = plotting.new_figure(6.4, max(2.4, 1.2 + 0.35 * len(rows)))
    ax = fig.add_subplot()
    ys = list(range(len(rows)))[::-1]
    for (_, value, low, high, colour, marker), y in zip(rows, ys, strict=True):
        ax.errorbar(
            [value],
            [y],
            xerr=[[value - low], [high - value]],
            fmt=marker,
            capsize=3,
            color=colour,
            linestyle="none",
            linewidth=1.2,
        )
    ax.set_yticks(ys, [row[0] for row in rows])
    label = shown.metric_label
    ax.set_xlabel(
        f"{label} ({shown.confidence:.0%} bootstrap interval, {shown.samples} samples)"
    )
    title = f"{label} with confidence intervals"
    if shown.cut:
        title += f"\nthe board's first {len(rows)} runs (all: data CSV)"
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    # The phone's chart is drawn here, not by ``render`` (it would be thrown away).
    plot = plotting.render("primary-intervals", f"{label} ± CI", fig, narrow=False)
    narrow = narrow_chart.narrow_svg(
        rows,
        metric_label=label,
        confidence=shown.confidence,
        cut=shown.cut,
    )
    return dataclasses.replace(plot, svg_narrow=narrow)


def save_charts(
    row: TestSetStatistics,
    test_set: TestSet,
    data: dict,
    previous: Mapping[str, object] | None = None,
) -> None:
    """The interval chart of every board: of every track together on the row,
    and each track's own (``TrackChart``); each drawn again only if what it shows
    changed since ``previous`` (the row's data before): the keys of what they show
    are kept in ``data["chart_keys"]``."""
    before: Mapping[str, str] = (previous or {}).get("chart_keys") or {}  # type: ignore[assignment]
    keys: dict[str, str] = {}
    styles = team_colours.team_styles(task=test_set.phase.task)
    shown = chart_input(test_set=test_set, data=data, styles=styles)
    keys["all"] = "" if shown is None else shown.key()
    if not (keys["all"] and keys["all"] == before.get("all") and row.chart_svg):
        for f in (row.chart_svg, row.chart_png, row.chart_pdf, row.chart_svg_narrow):
            if f:
                f.delete(save=False)
        _store_chart(row, _draw_chart(test_set, shown))
    if row.pk is None:
        row.save()
    phase_tracks = tracks.phase_tracks(test_set.phase)
    old = {c.track_id: c for c in TrackChart.objects.filter(statistics=row)}
    for track in phase_tracks:
        shown = chart_input(
            test_set=test_set, data=data, track_id=track.pk, styles=styles
        )
        key = keys[str(track.pk)] = "" if shown is None else shown.key()
        kept = old.pop(track.pk, None)
        if kept is not None and key and key == before.get(str(track.pk)):
            continue
        if kept is not None:
            _delete_chart_files(kept)
            kept.delete()
        drawn = _draw_chart(test_set, shown)
        if drawn is not None:
            chart = TrackChart(statistics=row, track=track)
            _store_chart(chart, drawn)
            chart.save()
    for gone in old.values():
        _delete_chart_files(gone)
        gone.delete()
    data["chart_keys"] = keys


def chart_of(
    row: TestSetStatistics, track: Track | None
) -> TestSetStatistics | TrackChart | None:
    """Where the chart of the board of ``track`` (None: of every track) is
    stored: its files are ``chart_svg``, ``chart_png``, ``chart_pdf`` and
    ``chart_svg_narrow``; None when it is not drawn."""
    if track is None:
        return row if row.chart_svg else None
    return (
        TrackChart.objects.filter(statistics=row, track=track)
        .exclude(chart_svg="")
        .first()
    )


def _draw_chart(
    test_set: TestSet, shown: ChartInput | None
) -> tuple[Plot, bytes | None] | None:
    if shown is None:
        return None
    try:
        with plotting.collecting_pdfs() as pdfs:
            plot = draw(shown)
    except logs.FATAL:
        raise
    except Exception:  # noqa: BLE001 - the numbers are stored without their chart
        logs.error_without_text(log, "interval chart of test set %s", test_set.pk)
        return None
    return None if plot is None else (plot, pdfs.get(plot.key))


def _store_chart(
    target: TestSetStatistics | TrackChart, drawn: tuple[Plot, bytes | None] | None
) -> None:
    if drawn is None:
        return
    plot, pdf = drawn
    target.chart_svg.save(f"{plot.key}.svg", ContentFile(plot.svg), save=False)
    target.chart_png.save(f"{plot.key}.png", ContentFile(plot.png), save=False)
    if plot.svg_narrow:
        target.chart_svg_narrow.save(
            f"{plot.key}.narrow.svg", ContentFile(plot.svg_narrow), save=False
        )
    if pdf:
        target.chart_pdf.save(f"{plot.key}.pdf", ContentFile(pdf), save=False)


def _delete_chart_files(chart: TrackChart) -> None:
    for f in (
        chart.chart_svg,
        chart.chart_png,
        chart.chart_pdf,
        chart.chart_svg_narrow,
    ):
        if f:
            f.delete(save=False)


@dataclass(frozen=True)
class ChartPdf:
    pdf: bytes
    runs: tuple[int, ...]  #: the runs it draws


#: ``interval_chart_pdf(render=False)``: not drawn yet.
NOT_DRAWN = ChartPdf(pdf=b"", runs=())


def interval_chart_pdf(*, test_set: TestSet, render: bool) -> ChartPdf | None:
    """The interval chart of the stored statistics as vector PDF (the one the
    statistics job stored, else drawn and cached); ``None`` without statistics or
    chart, ``NOT_DRAWN`` when neither stored nor cached and not ``render``."""
    row = TestSetStatistics.objects.filter(test_set=test_set).first()
    if row is None or not row.data:
        return None
    runs = row.data.get("matrix", {}).get("runs", [])
    if row.chart_pdf:  # drawn by the statistics job with the SVG and PNG
        with row.chart_pdf.open("rb") as fh:
            return ChartPdf(pdf=fh.read(), runs=tuple(int(pk) for pk in runs))
    # Statistics stored before the job kept the PDF: drawn here, cached.
    key = f"rankings:chart-pdf:{row.pk}:{row.updated_at.timestamp()}"
    found = cache.get(key)
    if found is None:
        if not render:
            return NOT_DRAWN
        found = _draw_pdf(test_set, row.data)
        cache.set(key, found, timeout=7 * 24 * 3600)
    return found if found.pdf else None


def _draw_pdf(test_set: TestSet, data: Mapping[str, object]) -> ChartPdf:
    try:
        with plotting.collecting_pdfs() as pdfs:
            plot = interval_chart(test_set=test_set, data=data)
    except logs.FATAL:
        raise
    except Exception:  # noqa: BLE001 - the package is built without this chart
        logs.error_without_text(log, "interval chart PDF of test set %s", test_set.pk)
        plot = None
    if plot is None or plot.key not in pdfs:
        return ChartPdf(pdf=b"", runs=())
    runs = data.get("matrix", {}).get("runs", [])  # type: ignore[union-attr]
    return ChartPdf(pdf=pdfs[plot.key], runs=tuple(int(pk) for pk in runs))


INTERVAL_COLUMNS = (
    "position", "run", "team", "method", "track", "value", "low", "high",
    "confidence", "samples",
)  # fmt: skip


def intervals_csv(
    *,
    test_set: TestSet,
    data: Mapping[str, object],
    user: object,
    track_id: int | None = None,
) -> str:
    """The points of the interval chart of the board of ``track_id`` (None: of
    every track) as CSV, best first: each run of the board with an interval that
    the viewer may see (those the chart leaves out too), its primary metric and its
    bootstrap interval (full precision)."""
    intervals = data.get("intervals") or {}
    runs = drawn_runs(data, track_id)
    subs = Submission.objects.select_related("team", "track", "phase__task").in_bulk(
        runs
    )
    rows = []
    for pk in runs:
        sub = subs.get(pk)
        if sub is None or not access.can_see_run(user, sub):
            continue
        iv = intervals[str(pk)]  # type: ignore[index]
        track = sub.track.name if sub.track_id else ""
        rows.append(
            [len(rows) + 1, pk, sub.team.name, sub.method_name, track,
             iv["value"], iv["low"], iv["high"], data.get("confidence", 0.95),
             data.get("samples")]
        )  # fmt: skip
    return tables.csv_text(INTERVAL_COLUMNS, rows)
