"""The overview-paper package of a phase: one zip with what an overview paper
publishes (the files are written by ``services/package_files.py``).

Who gets it (``available``):

- the task's organisers, always (every test set, revealed or not);
- everyone who may see the task, once the phase's results are revealed: every
  private test set of the phase is revealed (a phase without private test sets has
  nothing to reveal: its scores are public already). Before that: "not found".

What it holds: a board per (test set, track) (``services/boards.py``), each the board
the public sees (hidden runs never appear, for anyone; in Ladder mode the released
runs), with the stored statistics of the significance page; the comparison figures
and the interval chart as PDF, only those drawing no hidden run; and the systems
(team, method, track) with the columns feature apps add for this viewer
(``competitions.services.systems.system_columns``: fact-sheet answers, paper links),
then the ORCID iDs the listed teams' members linked (``competitions.services.orcid``).

Each board's table has the shape of :func:`tasks.common.compare.overview`, so the
LaTeX table is written by the same function as ``evalhub compare --format latex``
(:mod:`tasks.common.tables`) and equals it on the same files (names given with
``--name``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.core.cache import cache

from evalhub.competitions.models import Phase, Submission, TestSet
from evalhub.competitions.services import orcid, roles
from evalhub.competitions.services.boards import access, figure_pdfs, systems
from evalhub.competitions.services.boards import ranking as ranking_rule
from evalhub.rankings.models import PhaseRanking
from evalhub.rankings.services import boards, charts, statistics
from evalhub.rankings.services.boards import BoardKey
from tasks.base import JSON
from tasks.common import compare
from tasks.common import resampling as rs

#: The systems table's column of ORCID iDs.
ORCID_KEY = "orcid"


class NotAvailable(Exception):
    """The viewer may not download this phase's package (shown as "not found")."""


class Preparing(Exception):
    """A figure of the package is not drawn yet: a worker is drawing it."""


def results_revealed(phase: Phase, test_sets: list[TestSet] | None = None) -> bool:
    """Every private test set of the phase is revealed (``test_sets``: the phase's,
    when the caller has them already: no query)."""
    if test_sets is not None:
        return all(ts.scores_public for ts in test_sets)
    return not phase.test_sets.filter(
        visibility=TestSet.Visibility.PRIVATE, revealed=False
    ).exists()


def available(
    *, phase: Phase, user: object, test_sets: list[TestSet] | None = None
) -> bool:
    task = phase.task
    # The overview paper reports the official results: an evaluation after the
    # campaign has none.
    if phase.after_campaign or not access.can_see_task(user, task):
        return False
    return roles.is_organiser(user, task) or results_revealed(phase, test_sets)


def system_name(team: str, method: str, baseline: bool = False) -> str:
    """A system's name in the tables (plain text): ``team (method)``."""
    return f"{team} ({method}{', baseline' if baseline else ''})"


@dataclass
class BoardTable:
    key: BoardKey
    #: The shape of ``tasks.common.compare.overview`` (what ``tables`` writes).
    table: dict[str, JSON]
    #: Per system, in table order: run id, team id, team, method, baseline.
    runs: list[dict[str, JSON]]
    #: The statistics cover exactly the board's runs (else: no bands, no p-values).
    statistics_current: bool


@dataclass
class Package:
    phase: Phase
    organiser: bool
    boards: list[BoardTable]
    #: ``figures/<test set>/<name>.pdf`` -> PDF bytes
    figures: dict[str, bytes] = field(default_factory=dict)
    #: The same paths -> the figure's caption: short (list of figures) and full
    #: (plain text).
    captions: dict[str, tuple[str, str]] = field(default_factory=dict)
    columns: list[systems.SystemColumn] = field(default_factory=list)
    #: Unique systems over the boards: team id, team, method, track, baseline.
    systems: list[dict[str, JSON]] = field(default_factory=list)
    unrevealed: list[str] = field(default_factory=list)


def board_table(key: BoardKey) -> BoardTable:
    """One board as an offline-shaped table (numbers as the leaderboard shows them,
    intervals, bands and p-values from the stored statistics)."""
    test_set = key.test_set
    task_type = test_set.phase.task.type
    board = boards.board_of(key)
    signature, data, matrix = boards.statistics_of(key)
    ranking = PhaseRanking.for_phase(test_set.phase)
    if not signature:
        signature = statistics.signature(test_set, ranking)
    intervals = data.get("intervals") or {}
    ids = [row.submission_id for row in board.rows]
    # The p-value matrix is the board's when the statistics cover exactly its runs
    # (not when a run was scored since: the board shows no bands then either).
    current = list(matrix.get("runs", [])) == ids  # type: ignore[union-attr]
    subs = Submission.objects.select_related("team").in_bulk(ids)
    systems_rows: list[JSON] = []
    runs: list[dict[str, JSON]] = []
    for position, row in enumerate(board.rows, 1):
        systems_rows.append(
            {
                "index": position,
                "name": system_name(row.team, row.method_name, row.is_baseline),
                "band": row.band,
                "metrics": {k: value for k, value, _ in row.metrics},
                "interval": intervals.get(str(row.submission_id)),  # type: ignore[union-attr]
            }
        )
        runs.append(
            {
                "run": row.submission_id,
                "team_id": subs[row.submission_id].team_id,
                "team": row.team,
                "method": row.method_name,
                "baseline": row.is_baseline,
                "track": key.track_name,
                "rank": row.rank,
            }
        )
    chosen = ranking_rule.of(test_set.phase)
    table: dict[str, JSON] = {
        **compare.metrics_head(task_type, metric=chosen.metric, columns=chosen.columns),
        "n_items": data.get("n_items", 0),
        "unit": rs.bands.unit_json(statistics.unit_of(data)),
        "powered": bool(matrix.get("powered", True)),  # type: ignore[union-attr]
        "band_comparisons": matrix.get("band_comparisons", []),  # type: ignore[union-attr]
        "bands_legend": statistics.legend(data, matrix),
        "samples": data.get("samples", ranking.bootstrap_samples),
        "seed": data.get("seed", ranking.seed),
        "confidence": data.get("confidence", statistics.CONFIDENCE),
        "alpha": data.get("alpha", ranking.alpha),
        "signature": signature,
        "systems": systems_rows,
        # Named in the captions and labels (``evalhub compare --title --label``).
        "title": key.caption,
        "label": key.slug,
    }
    if current and ids:
        for name in ("delta", "p_bootstrap", "p_randomisation", "exact"):
            table[name] = matrix[name]  # type: ignore[index]
    return BoardTable(key=key, table=table, runs=runs, statistics_current=current)


def _figures(
    test_set: TestSet, user: object, *, render: bool
) -> dict[str, tuple[bytes, tuple[str, str]]]:
    """The test set's comparison figures and interval chart as PDF with their
    captions, those drawing no hidden run (the package never shows one). Without
    ``render``, ``Preparing`` when one is not drawn yet."""
    out: dict[str, tuple[bytes, tuple[str, str]]] = {}
    hidden = set(
        Submission.objects.filter(phase=test_set.phase, hidden=True).values_list(
            "pk", flat=True
        )
    )
    folder = f"figures/{boards.file_slug(test_set.slug)}"
    pdfs = figure_pdfs.comparison_pdfs(
        test_set=test_set, user=user, exclude_runs=hidden, cached_only=not render
    )
    if pdfs is None:
        raise Preparing
    # The figures of the board of every track (a phase with tracks also keeps each
    # track's own under the same key): those ``comparison_pdfs`` drew.
    artefacts = {
        a.key.removeprefix(figure_pdfs.COMPARE_PREFIX): a
        for a in test_set.task_artefacts.filter(track__isnull=True).defer(
            "public_data", "private_data"
        )
    }
    for key, pdf in pdfs.items():
        artefact = artefacts.get(key)
        title = artefact.title if artefact is not None else key
        runs = len(artefact.runs) if artefact is not None else 0
        caption = f"{title}, on test set {test_set.name}: one line per system" + (
            f" ({runs} systems)." if runs else "."
        )
        out[f"{folder}/{boards.file_slug(key)}.pdf"] = (pdf, (title, caption))
    chart = charts.interval_chart_pdf(test_set=test_set, render=render)
    if chart is charts.NOT_DRAWN:
        raise Preparing
    if chart is not None and not set(chart.runs) & hidden:
        metric = ranking_rule.metric(test_set.phase)
        caption = (
            f"{metric.label} of each system on test set {test_set.name} "
            f"({len(chart.runs)} systems), with its paired-bootstrap "
            f"{statistics.CONFIDENCE:.0%} interval."
        )
        short = f"{metric.label} with its interval, test set {test_set.name}"
        out[f"{folder}/intervals.pdf"] = (chart.pdf, (short, caption))
    return out


def prepare(*, phase_id: int) -> int:
    """Draw and cache every figure the phase's packages hold (a worker job: the
    web request only reads them). Returns how many figures are cached."""
    phase = Phase.objects.select_related("task").filter(pk=phase_id).first()
    if phase is None:
        return 0
    count = 0
    for test_set in phase.test_sets.select_related("phase__task"):
        count += figure_pdfs.warm_comparison_pdfs(test_set=test_set)
        count += charts.interval_chart_pdf(test_set=test_set, render=True) is not None
    return count


#: How ``prepare`` is run on a worker: set from ``RankingsConfig.ready()`` (the Celery
#: job calls this module, so this module cannot import the job).
_preparers: list[Callable[[int], None]] = []


def register_preparer(preparer: Callable[[int], None]) -> None:
    _preparers[:] = [preparer]


def _request_preparation(phase: Phase) -> None:
    """Ask a worker to draw the figures, once a minute at most per phase."""
    if _preparers and cache.add(f"rankings:package-preparing:{phase.pk}", 1, 60):
        _preparers[0](phase.pk)


def build(*, phase: Phase, user: object, render: bool = False) -> Package:
    """Everything the package holds for this viewer; ``NotAvailable`` if none.
    Without ``render`` (a web request), ``Preparing`` while a figure is not drawn
    yet: ``prepare`` draws them on a worker, so the request stays short."""
    if not available(phase=phase, user=user):
        raise NotAvailable
    organiser = roles.is_organiser(user, phase.task)
    test_sets = [ts for ts in phase.test_sets.all() if access.can_see_scores(user, ts)]
    package = Package(phase=phase, organiser=organiser, boards=[])
    package.unrevealed = [ts.name for ts in test_sets if not ts.scores_public]
    for key in boards.keys(phase, test_sets):
        package.boards.append(board_table(key))
    try:
        for ts in test_sets:
            for path, (pdf, caption) in _figures(ts, user, render=render).items():
                package.figures[path] = pdf
                package.captions[path] = caption
    except Preparing:
        _request_preparation(phase)
        raise
    package.columns = systems.system_columns(phase, user)
    seen: set[tuple[int, str, str]] = set()
    for board in package.boards:
        for run in board.runs:
            ident = (int(run["team_id"]), str(run["method"]), str(run["track"]))  # type: ignore[arg-type]
            if ident not in seen:
                seen.add(ident)
                package.systems.append(run)
    package.columns.extend(_orcid_column(package.systems))
    return package


def _orcid_column(shown: list[dict[str, JSON]]) -> list[systems.SystemColumn]:
    """The ORCID iDs the members of each listed team linked (``orcid.py``): of the
    systems the package lists, so only of those the viewer may see."""
    team_ids = {int(s["team_id"]) for s in shown if not s["baseline"]}  # type: ignore[arg-type]
    linked = orcid.team_orcid_ids(team_ids)
    values = {
        (int(s["team_id"]), str(s["method"])): "; ".join(linked[int(s["team_id"])])  # type: ignore[arg-type]
        for s in shown
        if not s["baseline"] and int(s["team_id"]) in linked  # type: ignore[arg-type]
    }
    if not values:
        return []
    return [
        systems.SystemColumn(
            key=ORCID_KEY,
            label="ORCID iDs",
            on_board=False,
            values=values,
            description="The ORCID iDs the team's members linked to their accounts",
        )
    ]
