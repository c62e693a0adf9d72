"""What ``evalhub score`` and ``evalhub compare`` do once their arguments are parsed
(see :mod:`tasks.cli`): score with the task type's own ``cli_score``, then add what
the platform adds — the bootstrap interval, the figures, the overview table."""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

from tasks import registry
from tasks.errors import FormatError, SettingsError
from tasks.reports import JSON, ScoreReport

EXIT_OK, EXIT_BAD_INPUT = 0, 2


def _fail(exc: FormatError | SettingsError, as_json: bool) -> int:
    if as_json:
        body = (
            exc.to_json()
            if isinstance(exc, FormatError)
            else {"errors": [{"message": str(exc)}]}
        )
        print(json.dumps(body, ensure_ascii=False, indent=2))
    else:
        problems = exc.problems if isinstance(exc, FormatError) else (str(exc),)
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        more = getattr(exc, "more", 0)
        if more:
            print(f"error: ... and {more} more problem(s)", file=sys.stderr)
    return EXIT_BAD_INPUT


def _statistics_defaults(args: argparse.Namespace) -> None:
    from tasks.common import resampling as rs

    if args.samples is None:
        args.samples = rs.DEFAULT_SAMPLES
    if args.seed is None:
        args.seed = rs.DEFAULT_SEED


def score(args: argparse.Namespace) -> int:
    task_type = registry.get(args.slug)
    if args.ci:  # only the interval needs them (resampling imports numpy)
        _statistics_defaults(args)
    try:
        settings = task_type.cli_settings(args)
        report = task_type.cli_score(args)
    except (FormatError, SettingsError) as exc:
        return _fail(exc, args.json)
    payload: dict[str, JSON] = dict(report.payload)
    interval = _interval(task_type, report, args) if args.ci else None
    if args.ci:
        payload["ci"] = interval  # null: no interval (as on the platform)
    if args.plots:
        written = write_plots(
            lambda: task_type.plots(report, settings), Path(args.plots)
        )
        payload["plots"] = [str(p) for p in written]
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        for key, value in payload.items():
            if isinstance(value, (int, float, str)) or value is None:
                print(f"{key}\t{value}")
        if args.ci:
            print(f"ci\t{_interval_text(interval)}")
        for path in payload.get("plots", ()):  # type: ignore[union-attr]
            print(f"plot\t{path}")
        for warning in report.warnings:
            print(f"warning: {warning}", file=sys.stderr)
    return EXIT_OK


def _interval(task_type, report: ScoreReport, args) -> dict[str, JSON] | None:  # noqa: ANN001
    """The platform's interval (``rankings.services.statistics.compute``): none
    with fewer than two gold items."""
    from tasks.common import resampling as rs

    stats = task_type.item_statistics(report)
    if stats is None or stats.n < 2:
        return None
    (interval,) = rs.bootstrap_intervals(
        [stats], samples=args.samples, seed=args.seed, confidence=rs.DEFAULT_CONFIDENCE
    )
    return {"metric": task_type.primary_metric, **interval.to_json()}


def _interval_text(interval: dict[str, JSON] | None) -> str:
    if interval is None:
        return "none (fewer than two gold items, or no per-item statistics)"
    return (
        f"{interval['value']:.4f} ± {interval['half_width']:.3f} "
        f"[{interval['low']:.4f}, {interval['high']:.4f}] "
        f"({interval['confidence']:.0%} bootstrap, {interval['samples']} samples, "
        f"seed {interval['seed']})"
    )


def write_plots(render, directory: Path) -> list[Path]:  # noqa: ANN001
    """Render the figures (``render()``) and write each as ``KEY.svg``, ``KEY.png`` and ``KEY.pdf``."""
    from tasks.common import plotting

    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with plotting.collecting_pdfs() as pdfs:
        plots = tuple(render())
    for plot in plots:
        for ext, data in (("svg", plot.svg), ("png", plot.png)):
            path = directory / f"{plot.key}.{ext}"
            path.write_bytes(data)
            written.append(path)
        if plot.key in pdfs:
            path = directory / f"{plot.key}.pdf"
            path.write_bytes(pdfs[plot.key])
            written.append(path)
    return written


def _known_metrics(task_type, args: argparse.Namespace) -> bool:  # noqa: ANN001
    """``--metric`` ranks this task type and ``--columns`` names its metrics (else
    the error is printed)."""
    from tasks.common import compare as overview

    try:
        overview.metrics_head(
            task_type,
            metric=args.metric or None,
            columns=[c for c in args.columns.split(",") if c] or None,
        )
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return False
    return True


def compare(args: argparse.Namespace) -> int:
    from tasks.common import compare as overview
    from tasks.common import tables

    task_type = registry.get(args.slug)
    _statistics_defaults(args)
    runs: list[str] = list(args.run)
    names = list(args.name) or [Path(r).name for r in runs]
    if len(names) != len(runs):
        print(
            f"error: --name: {len(names)} name(s) for {len(runs)} run(s)",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    if len(runs) < 2:
        print("error: --run: compare needs two or more runs", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not _known_metrics(task_type, args):
        return EXIT_BAD_INPUT
    systems = []
    try:
        settings = task_type.cli_settings(args)
        for name, run in zip(names, runs, strict=True):
            one = copy.copy(args)
            one.run = run
            systems.append(overview.System(name, task_type.cli_score(one)))
    except (FormatError, SettingsError) as exc:
        return _fail(exc, args.format == "json")
    table = overview.overview(
        task_type,
        systems,
        samples=args.samples,
        seed=args.seed,
        alpha=args.alpha,
        gold_version=args.gold_version,
        metric=args.metric or None,
        columns=[c for c in args.columns.split(",") if c] or None,
    )
    for key in ("title", "label"):
        if getattr(args, key):
            table[key] = getattr(args, key)
    writer = {
        "text": tables.as_text,
        "csv": tables.as_csv,
        "json": tables.as_json,
        "latex": tables.as_latex,
    }[args.format]
    sys.stdout.write(writer(table))
    if args.plots:
        from tasks.pages import RunDetail

        details = [
            RunDetail(s.name, s.report.detail, s.report.curves, s.report.metrics)
            for s in systems
        ]
        for path in write_plots(
            lambda: task_type.comparison_plots(details, settings), Path(args.plots)
        ):
            print(f"plot\t{path}", file=sys.stderr)
    return EXIT_OK
