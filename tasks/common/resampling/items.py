"""Per-item sufficient statistics of a metric, its formulas and the defaults (see
:mod:`tasks.common.resampling`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 0
DEFAULT_CONFIDENCE = 0.95
DEFAULT_ALPHA = 0.05
DEFAULT_LADDER_MARGIN = 1.0

#: ``ratio``: s0 / s1 (a mean when s1 counts items).
#: ``f_measure``: P = s0 / s1, R = s2 / s3, F = 2PR / (P + R).
#: ``mean_of_ratios``: mean over the defined pairs (s_2j > 0) of s_2j+1 / s_2j;
#: NaN (undefined) when no pair is defined.
Formula = Literal["ratio", "f_measure", "mean_of_ratios"]


def _div(a: FloatArray, b: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b != 0, a / np.where(b != 0, b, 1.0), 0.0)


def apply_formula(formula: Formula, sums: npt.ArrayLike) -> FloatArray:
    """The metric from column sums ``(..., k)`` -> ``(...)``.

    >>> float(apply_formula("ratio", [3.0, 4.0]))
    0.75
    >>> round(float(apply_formula("f_measure", [1, 3, 1, 2])), 4)
    0.4
    >>> float(apply_formula("mean_of_ratios", [2, 1, 0, 0, 4, 4]))
    0.75
    """
    s = np.asarray(sums, dtype=np.float64)
    if formula == "ratio":
        return _div(s[..., 0], s[..., 1])
    if formula == "f_measure":
        p, r = _div(s[..., 0], s[..., 1]), _div(s[..., 2], s[..., 3])
        return _div(2 * p * r, p + r)
    if formula == "mean_of_ratios":
        den, num = s[..., 0::2], s[..., 1::2]
        defined = den > 0
        total = np.sum(_div(num, den) * defined, axis=-1)
        count = np.sum(defined, axis=-1).astype(np.float64)
        # No defined pair: the scorer's metric is undefined (None); NaN here so a
        # resample without any judged item is left out of quantiles.
        return np.where(count > 0, _div(total, count), np.nan)
    raise ValueError(f"unknown formula {formula!r}")


@dataclass(frozen=True, slots=True, eq=False)
class ItemStats:
    """Per-item sufficient statistics of one run's primary metric on one test set.

    ``keys`` name the gold items in a fixed order (two runs on the same gold have the
    same keys); ``values`` is ``(len(keys), k)``; ``offset`` (``k``) is added to the
    sums and never resampled.
    """

    keys: tuple[str, ...]
    values: FloatArray
    formula: Formula
    offset: tuple[float, ...] = field(default=())

    def __post_init__(self) -> None:
        values = np.asarray(self.values, dtype=np.float64)
        if values.ndim != 2 or values.shape[0] != len(self.keys):
            raise ValueError("values must be (number of keys, k)")
        object.__setattr__(self, "values", values)
        offset = self.offset or (0.0,) * values.shape[1]
        if len(offset) != values.shape[1]:
            raise ValueError("offset must have k entries")
        object.__setattr__(self, "offset", tuple(float(v) for v in offset))

    @property
    def n(self) -> int:
        return len(self.keys)

    @property
    def sums(self) -> FloatArray:
        return self.values.sum(axis=0) + np.asarray(self.offset)

    def value(self) -> float:
        """The metric on all items (equals the scorer's value)."""
        return float(apply_formula(self.formula, self.sums))

    def on(self, weights: npt.ArrayLike) -> FloatArray:
        """The metric on resamples given as item multiplicities ``(..., n)``."""
        w = np.asarray(weights, dtype=np.float64)
        return apply_formula(self.formula, w @ self.values + np.asarray(self.offset))

    def losses(self) -> FloatArray:
        """Per-item losses ``-n * grad formula(S) . x_i`` (linearised influence)."""
        sums = self.sums
        grad = np.empty(len(sums))
        for j in range(len(sums)):
            h = 1e-6 * max(1.0, abs(sums[j]))
            up, down = sums.copy(), sums.copy()
            up[j] += h
            down[j] -= h
            grad[j] = (
                apply_formula(self.formula, up) - apply_formula(self.formula, down)
            ) / (2 * h)
        return -self.n * (self.values @ grad)


@dataclass(frozen=True, slots=True)
class Interval:
    value: float
    low: float
    high: float
    samples: int
    seed: int
    confidence: float

    @property
    def half_width(self) -> float:
        return max(self.value - self.low, self.high - self.value, 0.0)

    def format(self) -> str:
        """``"0.2816 ± 0.012"``."""
        return f"{self.value:.4f} ± {self.half_width:.3f}"

    def to_json(self) -> dict[str, float | int]:
        return {
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "half_width": self.half_width,
            "samples": self.samples,
            "seed": self.seed,
            "confidence": self.confidence,
        }


#: Resamples are drawn and used this many at a time (bounded memory).
