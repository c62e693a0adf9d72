"""Score a task type's demo runs (shared by the per-type resampling tests)."""

from __future__ import annotations

from tasks import registry
from tasks.base import ScoreReport


def demo_reports(slug: str) -> list[tuple[str, str, ScoreReport]]:
    """(test set, method, report) for every demo run on every demo test set."""
    tt = registry.get(slug)
    demo = tt.demo(seed=0)
    settings = tt.parse_settings(demo.settings)
    inputs = [tt.parse_inputs(ts.inputs, settings) for ts in demo.test_sets]
    out = []
    for _team, method, files in demo.runs:
        data = next(iter(files.values())) if len(set(files.values())) == 1 else None
        for i, ts in enumerate(demo.test_sets):
            raw = files.get(ts.name, data)
            if raw is None:
                continue
            run = tt.parse_phase_run(raw, "run", inputs, settings)[i]
            gold = tt.parse_gold(ts.gold, inputs[i], settings)
            out.append((ts.name, method, tt.score(run, gold, inputs[i], settings)))
    return out
