"""Exports for the overview paper: leaderboards as CSV, JSON and a LaTeX table,
task-level figures as SVG and PDF, and all runs of a phase as a zip (organisers only).

The leak rules are those of the pages (``services/boards/access.py``): a private test set's
scores appear only for organisers until it is revealed, organiser-only figures only
for organisers until the gold is released, and no gold file is ever part of an
export."""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from collections.abc import Iterable
from typing import IO

from evalhub.competitions.models import (
    Phase,
    Submission,
    TaskArtefact,
    TestSet,
    Track,
)
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import (
    access,
    leaderboard,
    ranking,
    refreshes,
    systems,
    tables,
)
from evalhub.competitions.services.boards.tables import latex_escape
from tasks.base import Metric


class NotVisible(Exception):
    """The viewer may not see this export (shown as "not found")."""


# --- leaderboards -----------------------------------------------------------------
def visible_boards(
    *, phase: Phase, user: object
) -> list[tuple[TestSet, leaderboard.Board]]:
    if not access.can_see_task(user, phase.task):
        raise NotVisible
    return [
        (ts, leaderboard.board_for(test_set=ts, user=user))
        for ts in phase.test_sets.all()
        if access.can_see_scores(user, ts)
    ]


def visible_track_boards(
    *, phase: Phase, user: object, track: Track | None = None
) -> list[tuple[TestSet, Track | None, leaderboard.Board]]:
    """The boards per (test set, track) ``user`` may see: of ``track`` only, or
    of every track of the phase (a phase without tracks: one per test set, track
    None); ranks are within the track."""
    if not access.can_see_task(user, phase.task):
        raise NotVisible
    return [
        (ts, t, board)
        for ts in phase.test_sets.all()
        if access.can_see_scores(user, ts)
        for t, board in leaderboard.track_boards(test_set=ts, user=user, track=track)
    ]


def leaderboard_json(*, phase: Phase, user: object, track: Track | None = None) -> str:
    if not access.can_see_task(user, phase.task):
        raise NotVisible
    data = leaderboard_export(phase=phase, user=user, track=track)
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def leaderboard_csv(*, phase: Phase, user: object, track: Track | None = None) -> str:
    """One row per (test set, track, ranked run), ranks within the track (the
    ``track`` column only in a phase with tracks); metric values as stored (full
    precision), in the board's column order; ``ranked_by``: the key of the metric
    that ranks (``ranking.of``)."""
    boards = visible_track_boards(phase=phase, user=user, track=track)
    with_tracks = any(t is not None for _, t, _ in boards)
    metric_keys = list(ranking.ordered_metrics(phase))
    ranked_by = ranking.of(phase).metric
    # Feature apps' per-system columns (fact-sheet answers, papers) as this viewer
    # may see them: user text, neutralised against formulas like every cell.
    columns = systems.system_columns(phase, user)
    extra = systems.export_fields(columns)
    header = (
        [
            "test_set",
            *(["track"] if with_tracks else []),
            "rank",
            "team",
            "run",
            "method",
            "submitted_at",
            "baseline",
        ]
        + metric_keys
        + extra
        + ["ranked_by"]
    )
    rows = []
    for ts, t, board in boards:
        team_of = systems.teams_of(r.submission_id for r in board.rows)
        for row in board.rows:
            values = {key: value for key, value, _ in row.metrics}
            answers = systems.export_values(
                columns,
                (team_of.get(row.submission_id), row.method_name),  # type: ignore[arg-type]
            )
            rows.append(
                [
                    ts.slug,
                    *([t.slug if t else ""] if with_tracks else []),
                    row.rank,
                    row.team,
                    row.submission_id,
                    row.method_name,
                    row.submitted_at.isoformat(),
                    "yes" if row.is_baseline else "no",
                ]
                + ["" if values.get(k) is None else values[k] for k in metric_keys]
                + [answers[k] for k in extra]
                + [ranked_by]
            )
    return tables.csv_text(header, rows)


def _latex_number(metric: Metric, value: float | None) -> str:
    if value is None:
        return "--"
    return f"{round(value)}" if metric.count else f"{value:.4f}"


def latex_metrics(phase: Phase, *, all_columns: bool = False) -> list[Metric]:
    """The metric columns of the LaTeX export: the board's default columns in
    their order (``ranking.of(phase).columns``), or every metric on request."""
    task_type = phase.task.type
    if all_columns:
        return [task_type.metric(key) for key in ranking.ordered_metrics(phase)]
    return [task_type.metric(key) for key in ranking.of(phase).columns]


def leaderboard_latex(
    *,
    phase: Phase,
    user: object,
    track: Track | None = None,
    all_columns: bool = False,
) -> str:
    """One booktabs table per visible (test set, track) with the board's default
    metric columns (every metric with ``all_columns``); the best value of each
    quality metric in bold, per its direction (all tied values; counts such as
    nSys, TP, FP, FN are never "best": ``Metric.best``); team and method names
    escaped. Needs ``\\usepackage{booktabs}``."""
    boards = visible_track_boards(phase=phase, user=user, track=track)
    metrics = latex_metrics(phase, all_columns=all_columns)
    parts = [
        f"% {latex_escape(phase.task.title)}: {latex_escape(phase.name)}",
        "% generated by evalhub; requires \\usepackage{booktabs}",
    ]
    for ts, t, board in boards:
        values = [{key: value for key, value, _ in row.metrics} for row in board.rows]
        best = {m.key: m.best([v.get(m.key) for v in values]) for m in metrics}
        body = []
        for row, row_values in zip(board.rows, values, strict=True):
            cells = [
                str(row.rank),
                latex_escape(row.team),
                latex_escape(row.method_name)
                + (" (baseline)" if row.is_baseline else ""),
            ]
            for m in metrics:
                value = row_values.get(m.key)
                text = _latex_number(m, value)
                if value is not None and value == best[m.key]:
                    text = f"\\textbf{{{text}}}"
                cells.append(text)
            body.append(cells)
        parts.append("")
        parts += tables.booktabs(
            columns="rll" + "r" * len(metrics),
            header=["Rank", "Team", "Method"]
            + [latex_escape(m.label) for m in metrics],
            rows=body,
            caption=f"{latex_escape(phase.task.title)}, "
            f"{latex_escape(phase.name)}: {latex_escape(ts.name)}"
            + ("" if t is None else f", {latex_escape(t.name)} track")
            + f". {latex_escape(board.ranked_by)}"
            + " Bold: the best value of each quality metric (counts are not "
            "ranked).",
            label=f"tab:{_label(phase.task.slug)}-{_label(phase.slug)}-{_label(ts.slug)}"
            + ("" if t is None else f"-{_label(t.slug)}"),
            placement="[t]",
        )
    return "\n".join(parts) + "\n"


def _label(slug: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "-" else "-" for ch in slug)


# --- figures ----------------------------------------------------------------------
def figures(
    *, test_set: TestSet, user: object, track: Track | None = None
) -> list[TaskArtefact]:
    """The task-level figures of a test set's board of ``track`` (None: of every
    track together) this user may see."""
    return _visible(test_set, track, user)


def figure(
    *, test_set: TestSet, key: str, user: object, track: Track | None = None
) -> TaskArtefact:
    for artefact in _visible(test_set, track, user, key=key):
        return artefact
    raise NotVisible


def _visible(
    test_set: TestSet, track: Track | None, user: object, **where: str
) -> list[TaskArtefact]:
    """Without their data (a figure's points: thousands of them, read only for
    its CSV, which loads them for the one figure asked for)."""
    found = []
    query = test_set.task_artefacts.filter(
        track_id=None if track is None else track.pk, **where
    )
    for a in query.exclude(svg="").defer("public_data", "private_data"):
        a.test_set = test_set
        if track is not None:
            a.track = track
        if access.can_see_task_artefact(user, a):
            found.append(a)
        elif not access.artefact_current(a):
            # Left out until the worker redraws it from the board it shows.
            refreshes.request(kind=refreshes.ANALYSES, test_set_id=test_set.pk)
    return found


def figure_svg(
    *, test_set: TestSet, key: str, user: object, track: Track | None = None
) -> bytes:
    artefact = figure(test_set=test_set, key=key, user=user, track=track)
    with artefact.svg.open("rb") as fh:
        return fh.read()


# --- all runs ---------------------------------------------------------------------
def runs_zip(
    *, phase: Phase, user: object, submission_ids: Iterable[int] | None = None
) -> IO[bytes]:
    """Every run file of the phase (or only those of ``submission_ids`` among them)
    with a manifest (organisers only); a temporary file positioned at its start.
    Gold files are never included."""
    if not roles.is_organiser(user, phase.task):
        raise NotVisible
    metric_keys = [m.key for m in phase.task.type.metrics]
    test_sets = list(phase.test_sets.all())
    manifest = io.StringIO()
    writer = tables.CsvWriter(manifest)
    writer.writerow(
        [
            "run",
            "team",
            "method",
            "status",
            "baseline",
            "submitted_at",
            "sha256",
            "hidden",
            "final",
            "file",
        ]
        + [f"{ts.slug}:{k}" for ts in test_sets for k in metric_keys]
    )
    out = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        runs = Submission.objects.filter(phase=phase)
        if submission_ids is not None:
            runs = runs.filter(pk__in=submission_ids)
        runs = (
            runs.select_related("team")
            .prefetch_related("scores")
            .order_by("created_at", "pk")
        )
        for sub in runs:
            name = ""
            if sub.file:
                name = f"runs/{sub.pk:06d}-{_label(sub.team.name)}-{sub.file.name.rsplit('/', 1)[-1]}"
                with sub.file.open("rb") as fh, archive.open(name, "w") as dest:
                    for chunk in iter(lambda fh=fh: fh.read(1 << 20), b""):
                        dest.write(chunk)
            values = {(s.test_set_id, s.metric): s.value for s in sub.scores.all()}
            writer.writerow(
                [
                    sub.pk,
                    sub.team.name,
                    sub.method_name,
                    sub.status,
                    "yes" if sub.is_baseline else "no",
                    sub.created_at.isoformat(),
                    sub.sha256,
                    "yes" if sub.hidden else "no",
                    "yes" if sub.final_selected else "no",
                    name,
                ]
                + [
                    "" if values.get((ts.pk, k)) is None else values[(ts.pk, k)]
                    for ts in test_sets
                    for k in metric_keys
                ]
            )
        archive.writestr("manifest.csv", manifest.getvalue())
    out.seek(0)
    return out


def leaderboard_export(*, phase, user: object, track=None) -> dict[str, object]:  # noqa: ANN001
    """The boards per (test set, track) ``user`` may see (``track``: that track's
    only; ``leaderboard.track_boards``); ``track`` is None in a phase without
    tracks."""
    out: dict[str, object] = {
        "task": phase.task.slug,
        "phase": phase.slug,
        "test_sets": [],
    }
    organiser = access.can_see_hidden_runs(user, phase.task)
    # Feature apps' per-system columns (fact-sheet answers, papers): every one, as
    # this viewer may see them; each row carries its system's values.
    columns = systems.system_columns(phase, user)
    out["system_columns"] = [
        {"key": c.key, "label": c.label, "description": c.description,
         "on_leaderboard": c.on_board}
        for c in columns
    ]  # fmt: skip
    for ts in phase.test_sets.all():
        if not access.can_see_scores(user, ts):
            continue
        for t, board in leaderboard.track_boards(test_set=ts, user=user, track=track):
            team_of = systems.teams_of(r.submission_id for r in board.rows)
            rows = []
            for r in board.rows:
                row = _export_row(r, organiser)
                if columns:
                    system = (team_of.get(r.submission_id), r.method_name)
                    row["system"] = systems.export_values(columns, system)  # type: ignore[arg-type]
                rows.append(row)
            out["test_sets"].append(  # type: ignore[attr-defined]
                {
                    "test_set": ts.slug,
                    "track": None if t is None else t.slug,
                    "primary_metric": board.primary_metric,
                    "ranked_by": board.ranked_by,
                    "signature": board.signature,
                    "bands": board.legend,
                    "coverage_rule": board.coverage_rule,
                    "rows": rows,
                }
            )
    return out


def _export_row(r: leaderboard.Row, organiser: bool) -> dict[str, object]:
    """One ranked run: the primary metric's bootstrap interval (``interval_low``,
    ``interval_high``: None until computed) and rank band, ``coverage`` ("1 of 3
    word classes judged": a mean over fewer cells, ranked after; else None); for organisers also the
    team's choices (``hidden``, ``final``)."""
    row: dict[str, object] = {
        "rank": r.rank,
        "team": r.team,
        "run": r.submission_id,
        "method": r.method_name,
        "submitted_at": r.submitted_at.isoformat(),
        "baseline": r.is_baseline,
        **{k: v for k, v, _ in r.metrics},
        "interval_low": r.low,
        "interval_high": r.high,
        "interval": r.interval,
        "band": r.band,
        "coverage": r.coverage or None,
    }
    if organiser:
        row["hidden"] = r.hidden
        row["final"] = r.final
    return row
