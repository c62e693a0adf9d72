"""Benchmark: the CPU of drawing a run's own figures, per task type, in one process.

Each task type's demo runs are scored (``tasks/``, no Django), then each run's
figures are drawn with the task type's ``plots`` as the figure job draws them
(``tasks.common.plotting.render``: the SVG, the PNG and the phone's SVG of every
figure). The first run of each type is drawn once uncounted (matplotlib's import,
its font cache, the first glyphs); then ``--rounds`` rounds draw every other run
again. CPU time is ``time.process_time()`` of this process, so the figure does not
depend on how busy the machine is; the layouts the engine ran are counted too (at
the wide and at the phone's width), and the share of the CPU that went to the
phone's SVG (``narrow.narrow_svg``, drawn last from the same figure).

Run in the checkout to measure (another commit: a ``git worktree`` of it, the same
venv, ``PYTHONPATH`` its folder):

    .venv/bin/python bench/figures.py --rounds 3

Results: ``bench/results/figures-<date>.json``."""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tasks import registry  # noqa: E402
from tasks.common.narrow import NARROW_WIDTH  # noqa: E402


def demo_reports(slug: str) -> tuple[object, object, list]:
    """The task type, its demo settings and each demo run's report."""
    tt = registry.get(slug)
    demo = tt.demo(seed=0)
    settings = tt.parse_settings(demo.settings)
    reports = []
    for i, ts in enumerate(demo.test_sets):
        inputs = tt.parse_inputs(ts.inputs, settings)
        gold = tt.parse_gold(ts.gold, inputs, settings)
        all_inputs = [tt.parse_inputs(t.inputs, settings) for t in demo.test_sets]
        for _team, _method, files in demo.runs:
            same = len(set(files.values())) == 1
            raw = files.get(ts.name, next(iter(files.values())) if same else None)
            if raw is None:
                continue
            run = tt.parse_phase_run(raw, "run", all_inputs, settings)[i]
            reports.append(tt.score(run, gold, inputs, settings))
    return tt, settings, reports


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    layouts: Counter[str] = Counter()
    execute = ConstrainedLayoutEngine.execute

    def counted(self, fig):  # noqa: ANN001, ANN202
        wide = fig.get_size_inches()[0] > NARROW_WIDTH
        layouts["wide" if wide else "phone"] += 1
        return execute(self, fig)

    ConstrainedLayoutEngine.execute = counted  # type: ignore[method-assign]
    from tasks.common import narrow

    phone = [0.0]
    narrow_svg = narrow.narrow_svg

    def timed(fig):  # noqa: ANN001, ANN202
        began = time.process_time()
        try:
            return narrow_svg(fig)
        finally:
            phone[0] += time.process_time() - began

    narrow.narrow_svg = timed  # ``render`` imports it when it draws
    results = {}
    for slug in registry.slugs():
        tt, settings, reports = demo_reports(slug)
        tt.plots(reports[0], settings)  # uncounted: the process's first drawing
        layouts.clear()
        phone[0] = 0.0
        figures = 0
        start = time.process_time()
        for _ in range(args.rounds):
            for report in reports[1:]:
                figures += len(tt.plots(report, settings))
        cpu = time.process_time() - start
        runs = args.rounds * (len(reports) - 1)
        results[slug] = {
            "runs_drawn": runs,
            "figures_drawn": figures,
            "cpu_ms_per_run": round(1000 * cpu / runs, 1),
            "cpu_ms_per_figure": round(1000 * cpu / figures, 1),
            "phone_svg_share": round(phone[0] / cpu, 3),
            "layouts_per_figure": {
                k: round(v / figures, 2) for k, v in layouts.items()
            },
        }
        print(slug, results[slug])
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    now = datetime.now(UTC)
    out = {
        "when": now.isoformat(timespec="seconds"),
        "commit": commit,
        "command": " ".join(["bench/figures.py", *sys.argv[1:]]),
        "machine": {"python": platform.python_version(), "cpus": _cpus()},
        "task_types": results,
    }
    path = ROOT / "bench" / "results" / f"figures-{now:%Y%m%d-%H%M}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"saved {path.relative_to(ROOT)}")
    return 0


def _cpus() -> int:
    import os

    return os.cpu_count() or 1


if __name__ == "__main__":
    sys.exit(main())
