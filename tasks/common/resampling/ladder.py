"""Blum & Hardt's Ladder over a team's runs (see :mod:`tasks.common.resampling`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tasks.common.resampling.bootstrap import _check_aligned
from tasks.common.resampling.items import DEFAULT_LADDER_MARGIN, FloatArray, ItemStats


@dataclass(frozen=True, slots=True)
class LadderStep:
    run: str
    value: float
    released: bool
    #: The run whose score the team sees after this step.
    shown: str
    threshold: float


@dataclass(frozen=True, slots=True, eq=False)
class LadderRun:
    """What the Ladder needs of a run: its value and per-item losses
    (``ItemStats.losses()``), e.g. kept from an earlier refresh."""

    name: str
    value: float
    losses: FloatArray


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
    if runs:
        _check_aligned([s for _, s in runs])
    return ladder_of(
        [LadderRun(name, s.value(), s.losses()) for name, s in runs],
        higher_is_better=higher_is_better,
        margin=margin,
    )


def ladder_of(
    runs: Sequence[LadderRun],
    *,
    higher_is_better: bool = True,
    margin: float = DEFAULT_LADDER_MARGIN,
) -> list[LadderStep]:
    """:func:`ladder` from each run's value and losses (runs on the same items)."""
    steps: list[LadderStep] = []
    best: LadderRun | None = None
    sign = 1.0 if higher_is_better else -1.0
    for run in runs:
        if best is None:
            best = run
            steps.append(LadderStep(run.name, run.value, True, run.name, 0.0))
            continue
        n = len(run.losses)
        diff = run.losses - best.losses
        sd = float(np.std(diff, ddof=1)) if n > 1 else 0.0
        threshold = margin * sd / math.sqrt(n) if n else 0.0
        gain = sign * (run.value - best.value)
        released = gain > threshold and gain > 0
        if released:
            best = run
        steps.append(LadderStep(run.name, run.value, released, best.name, threshold))
    return steps
