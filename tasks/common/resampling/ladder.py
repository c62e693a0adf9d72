"""Blum & Hardt's Ladder over a team's runs (see :mod:`tasks.common.resampling`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tasks.common.resampling.bootstrap import _check_aligned
from tasks.common.resampling.items import DEFAULT_LADDER_MARGIN, ItemStats


@dataclass(frozen=True, slots=True)
class LadderStep:
    run: str
    value: float
    released: bool
    #: The run whose score the team sees after this step.
    shown: str
    threshold: float


def ladder(
    runs: Sequence[tuple[str, ItemStats]],
    *,
    higher_is_better: bool = True,
    margin: float = DEFAULT_LADDER_MARGIN,
) -> list[LadderStep]:
    """Blum & Hardt's parameter-free Ladder over one team's runs in submission order
    (see the module docstring): a run is released when it beats the shown run by more
    than ``margin`` standard errors (1.0 in the paper). The first run is always
    released."""
    steps: list[LadderStep] = []
    best: tuple[str, ItemStats] | None = None
    sign = 1.0 if higher_is_better else -1.0
    for name, stats in runs:
        value = stats.value()
        if best is None:
            best = (name, stats)
            steps.append(LadderStep(name, value, True, name, 0.0))
            continue
        _check_aligned([best[1], stats])
        n = stats.n
        diff = stats.losses() - best[1].losses()
        sd = float(np.std(diff, ddof=1)) if n > 1 else 0.0
        threshold = margin * sd / math.sqrt(n) if n else 0.0
        gain = sign * (value - best[1].value())
        released = gain > threshold and gain > 0
        if released:
            best = (name, stats)
        steps.append(LadderStep(name, value, released, best[0], threshold))
    return steps
