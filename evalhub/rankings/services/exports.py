"""What the significance page and its exports show, with the leak rules applied:
everything follows the test set's score visibility; the Ladder's steps (scores of
unreleased runs) are organiser-only."""

from __future__ import annotations

from dataclasses import dataclass

from evalhub.competitions.models import Submission, TestSet
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access, tables
from evalhub.competitions.services.boards import ranking as ranking_rule
from evalhub.competitions.services.boards.tables import latex_escape
from evalhub.competitions.services.data import tracks
from evalhub.rankings.models import TestSetStatistics
from evalhub.rankings.services import statistics
from tasks.common import resampling as rs


class Hidden(Exception):
    """The viewer may not see this test set's scores."""


@dataclass(frozen=True, slots=True)
class RunLabel:
    index: int
    submission_id: int
    team: str
    method: str
    track: str  # "" in a phase without tracks
    value: float
    interval: str
    band: int | None  # None: no bands (the test set's units cannot reach alpha)


def _p_text(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def significance(
    *, test_set: TestSet, user: object, track_slug: str | None = None
) -> dict[str, object]:
    """The page of one test set's pairwise tests, within the track ``track_slug``
    (unknown or None: the board of every track together)."""
    task = test_set.phase.task
    if not access.can_see_task(user, task) or not access.can_see_scores(user, test_set):
        raise Hidden
    organiser = roles.is_organiser(user, task)
    track = tracks.by_slug(phase=test_set.phase, slug=track_slug)
    row = TestSetStatistics.objects.filter(test_set=test_set).first()
    data = row.data if row is not None else {}
    matrix = statistics.with_pairs(
        test_set=test_set,
        matrix=statistics.matrix_of(data, None if track is None else track.pk),
    )
    runs = matrix.get("runs", [])
    subs = Submission.objects.select_related("team", "phase__task", "track").in_bulk(
        runs
    )
    intervals = data.get("intervals", {})
    # A run hidden since the matrix was computed (until the worker recomputes it)
    # is left out for those who may not see it.
    keep = [i for i, pk in enumerate(runs) if access.can_see_run(user, subs[pk])]
    metric = ranking_rule.metric(test_set.phase)
    n = int(data.get("n_items") or 0)
    alpha = data.get("alpha", 0.05)
    powered = bool(matrix.get("powered", True))
    # Every pair says it when no difference over these units can be significant.
    unreachable = (
        ""
        if powered or not runs
        else rs.bands.power_sentence(statistics.unit_of(data), n, alpha)
    )
    labels = []
    for i in keep:
        pk = runs[i]
        iv = intervals.get(str(pk), {})
        labels.append(
            RunLabel(
                index=len(labels) + 1,
                submission_id=pk,
                team=subs[pk].team.name,
                method=subs[pk].method_name,
                track=subs[pk].track.name if subs[pk].track_id else "",
                value=float(matrix["values"][i]),
                interval=statistics.format_interval(metric, iv or None, n),
                band=None if matrix["bands"][i] is None else int(matrix["bands"][i]),
            )
        )
    cells = [
        [
            {
                "p_randomisation": matrix["p_randomisation"][i][j],
                "p_bootstrap": matrix["p_bootstrap"][i][j],
                "text": "–" if i == j else _p_text(matrix["p_randomisation"][i][j]),
                "significant": i != j and matrix["p_randomisation"][i][j] < alpha,
                "note": "" if i == j else unreachable,
            }
            for j in keep
        ]
        for i in keep
    ]
    ladder = data.get("ladder", {})
    return {
        "task": task,
        "phase": test_set.phase,
        "test_set": test_set,
        "track": track,
        "tracks": tracks.phase_tracks(test_set.phase),
        "signature": row.signature if row is not None else "",
        "updated_at": row.updated_at if row is not None else None,
        "has_chart": bool(row is not None and row.chart_svg)
        and (organiser or not statistics.draws_hidden_runs(row)),
        "metric": metric,
        "runs": labels,
        "legend": statistics.legend(data, matrix) if runs else "",
        "unit": statistics.unit_of(data),
        "n": n,
        "power": unreachable,
        "cells": list(zip(labels, cells, strict=True)),
        "alpha": data.get("alpha"),
        "samples": data.get("samples"),
        "seed": data.get("seed"),
        "exact": matrix.get("exact", False),
        "ladder_enabled": bool(ladder.get("enabled")),
        "ladder_applies": bool(ladder.get("applies")),
        "ladder_steps": ladder.get("steps", []) if organiser else [],
        "is_organiser": organiser,
    }


def as_json(page: dict[str, object]) -> dict[str, object]:
    runs: list[RunLabel] = page["runs"]  # type: ignore[assignment]
    cells = page["cells"]
    track = page.get("track")
    return {
        "test_set": page["test_set"].slug,  # type: ignore[attr-defined]
        "track": None if track is None else track.slug,  # type: ignore[attr-defined]
        "metric": page["metric"].key,  # type: ignore[attr-defined]
        "signature": page["signature"],
        "alpha": page["alpha"],
        "unit": page["unit"].singular,  # type: ignore[attr-defined]
        "n": page["n"],
        "bands": page["legend"],
        "power": page["power"],
        "runs": [
            {
                "run": r.submission_id,
                "team": r.team,
                "method": r.method,
                "track": r.track,
                "value": r.value,
                "interval": r.interval,
                "band": r.band,
            }
            for r in runs
        ],
        "p_randomisation": [[c["p_randomisation"] for c in row] for _, row in cells],  # type: ignore[attr-defined]
        "p_bootstrap": [[c["p_bootstrap"] for c in row] for _, row in cells],  # type: ignore[attr-defined]
    }


def as_csv(page: dict[str, object]) -> str:
    """Every pair of runs once; team names as text cells, numbers as numbers."""
    runs: list[RunLabel] = page["runs"]  # type: ignore[assignment]
    rows = [
        [
            a.submission_id,
            a.team,
            b.submission_id,
            b.team,
            f"{a.value - b.value:.6f}",
            f"{cell['p_randomisation']:.6f}",
            f"{cell['p_bootstrap']:.6f}",
            cell["note"],
        ]
        for a, row in page["cells"]  # type: ignore[attr-defined]
        for b, cell in zip(runs, row, strict=True)
        if a.index < b.index
    ]
    header = ["run_a", "team_a", "run_b", "team_b", "delta", "p_randomisation"]
    return tables.csv_text([*header, "p_bootstrap", "power"], rows)


def as_latex(page: dict[str, object]) -> str:
    """A booktabs table: rank band, system, score ± CI, then the p-values of
    approximate randomisation against every other system (bold: p < alpha)."""
    runs: list[RunLabel] = page["runs"]  # type: ignore[assignment]
    metric = page["metric"]
    body = []
    for r, row in page["cells"]:  # type: ignore[attr-defined]
        cells = []
        for cell in row:
            text = latex_escape(cell["text"]).replace("–", "--")
            cells.append(rf"\textbf{{{text}}}" if cell["significant"] else text)
        system = latex_escape(
            f"{r.team} ({r.method}{', ' + r.track if r.track else ''})"
        )
        score = r.interval.replace("±", r"$\pm$") if r.interval else f"{r.value:.4f}"
        band = "--" if r.band is None else str(r.band)
        body.append([band, str(r.index), system, score, *cells])
    test_set = page["test_set"]
    track = page.get("track")
    on = f"test set {test_set.name}" + (  # type: ignore[attr-defined]
        "" if track is None else f", track {track.name}"  # type: ignore[attr-defined]
    )
    caption = (
        latex_escape(
            f"Pairwise tests on {on}: "
            f"{metric.label} with {page['samples']}-sample paired bootstrap 95% "  # type: ignore[attr-defined]
            f"intervals (seed {page['seed']}); p-values of approximate "
            f"randomisation; bold: p < {page['alpha']}. {page['legend']} "
        )
        + r"\texttt{"
        + latex_escape(str(page["signature"]))
        + "}"
    )
    lines = tables.booktabs(
        columns="rllr" + "r" * len(runs),
        header=["Band", "\\#", "System", latex_escape(metric.label)]  # type: ignore[attr-defined]
        + [str(r.index) for r in runs],
        rows=body,
        caption=caption,
    )
    lines.append("")
    return "\n".join(lines)
