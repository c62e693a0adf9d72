"""The one band rule, the power check and every sentence that states them (see
:mod:`tasks.common.resampling`). The leaderboard, the significance page, the overall
ranking, the Ladder's explanation, the exports, the package and ``evalhub compare``
all take their wording from here, so that a reader meets one definition everywhere.

**Unit.** A task type declares the unit its primary metric treats as independent
(``TaskType.unit``, beside its metrics: the gold pair for BUCC, the document for
ARCADE, the gold term for TermoMeter, the probe word for MT probing). The bootstrap
interval, the paired bootstrap and the randomisation test all resample that unit,
and every number says its unit and ``n``.

**Band rule** (Holm 1979, :data:`REFERENCE`): runs sorted best first; the band's
leader is tested against every run below it (approximate randomisation, exact when
every swap can be enumerated) and the ``m`` p-values are Holm-corrected at ``alpha``;
the band is the leader and the runs above the first rejected one; the first rejected
run leads the next band, tested against the runs below it, and so on. So a band's
runs are not significantly different from the band's best run, with the family-wise
error of each band's ``m`` comparisons held at ``alpha``.

**Power.** Over ``n`` units the randomisation test cannot give a p-value below
:func:`smallest_p` (``2 / 2^n`` exact, ``1 / (R + 1)`` with ``R`` trials; 1 below two
units). When that is not below ``alpha`` no difference can be significant: no bands
are drawn and the board says so (:func:`power_sentence`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tasks.common.resampling.items import DEFAULT_ALPHA
from tasks.common.resampling.runs import exact_randomisation, tested
from tasks.reports import GOLD_ITEM, Unit  # noqa: F401 (declared beside Metric)

REFERENCE = (
    "Holm, S. (1979). A simple sequentially rejective multiple test procedure. "
    "Scandinavian Journal of Statistics 6(2), 65-70"
)
#: What a band means, on every surface.
RULE = "runs in one band are not significantly different from the band's best run"
#: The test the bands rest on, on every surface.
TEST = "approximate randomisation"
#: Short name in the signature line.
SIGNATURE = "holm-leader"


def smallest_p(n: int, trials: int) -> float:
    """The smallest two-sided p-value the randomisation test can give over ``n``
    units: 1 below two units; ``2 / 2^n`` when every swap is enumerated (the
    observed split and its mirror are always at least as extreme); else
    ``1 / (trials + 1)``."""
    if not tested(n):
        return 1.0
    if exact_randomisation(n, trials):
        return 2.0 / 2**n
    return 1.0 / (trials + 1)


def can_reach(n: int, trials: int, alpha: float = DEFAULT_ALPHA) -> bool:
    """Some difference over ``n`` units can be significant (p < alpha)."""
    return smallest_p(n, trials) < alpha


def power_sentence(unit: Unit, n: int, alpha: float) -> str:
    """``"2 documents: no difference can be significant at α = 0.05"``."""
    return f"{unit.count(n)}: no difference can be significant at α = {alpha:g}"


def power_reason(n: int, trials: int) -> str:
    """Why (:func:`power_sentence`): the test's smallest p-value over ``n`` units."""
    if not tested(n):
        return "a paired test needs at least two units"
    kind = "exact " if exact_randomisation(n, trials) else ""
    return f"the smallest p-value the {kind}randomisation test can give is {smallest_p(n, trials):.3g}"


def band_rule_text() -> str:
    """The rule in one sentence, without a board's numbers."""
    return (
        f"{RULE}: {TEST} tests of each band's best run against every run below "
        "it, Holm-corrected at alpha; the band ends before the first rejected run, "
        "which leads the next band"
    )


def band_sentence(
    unit: Unit, n: int, alpha: float, comparisons: Sequence[int] = ()
) -> str:
    """The band rule with its test, unit, ``n``, level and correction; with the
    number of comparisons each band rests on when given."""
    text = (
        f"Band: {RULE} ({TEST} over {unit.count(n)}, each band's best run "
        f"against every run below it, Holm-corrected at α = {alpha:g}; Holm 1979)"
    )
    if comparisons:
        counts = ", ".join(str(c) for c in comparisons)
        text += f"; comparisons per band: {counts}"
    return text + "."


def legend(
    unit: Unit,
    n: int,
    *,
    alpha: float,
    trials: int,
    powered: bool,
    comparisons: Sequence[int] = (),
) -> str:
    """What a board's bands mean, or why it has none: the one sentence the
    leaderboard, the significance page, the exports, the package and ``evalhub
    compare`` show."""
    if not powered:
        return (
            f"{power_sentence(unit, n, alpha)} ({power_reason(n, trials)}), "
            "so no bands are drawn."
        )
    text = band_sentence(unit, n, alpha, comparisons)
    most = max_comparisons(n, trials, alpha)
    if comparisons and max(comparisons) >= most:
        text += (
            f" No p-value can fall below {smallest_p(n, trials):.3g} ({power_reason_short(n, trials)}), "
            f"so a band resting on {most} comparisons or more cannot be split."
        )
    return text


def max_comparisons(n: int, trials: int, alpha: float) -> int:
    """The smallest number of comparisons ``m`` at which Holm's first threshold
    ``alpha / m`` is at or below :func:`smallest_p`: a band of ``m`` or more
    comparisons cannot be split."""
    floor = smallest_p(n, trials)
    return max(1, math.ceil(alpha / floor - 1e-9)) if floor > 0 else 2**62


def power_reason_short(n: int, trials: int) -> str:
    if exact_randomisation(n, trials):
        return f"exact test over {n} units"
    return f"{trials:,} randomisation trials"


def unit_json(unit: Unit) -> dict[str, str]:
    return {"singular": unit.singular, "plural": unit.plural}


def unit_from(value: object) -> Unit:
    """:func:`unit_json` read back (``GOLD_ITEM`` when absent)."""
    if not isinstance(value, dict):
        return GOLD_ITEM
    return Unit(str(value["singular"]), str(value["plural"]))


#: The words every degenerate interval's text ends with (:func:`is_degenerate`).
NO_INTERVAL = "no interval"


def is_degenerate(text: str) -> bool:
    """Whether an :func:`interval_text` says there is no interval."""
    return text.endswith(f"{NO_INTERVAL})")


def interval_text(value: float, half_width: float, n: int) -> str:
    """``"0.2816 ± 0.012"``; a degenerate interval (fewer than two units, or every
    resample equal) says so instead of ``± 0.000``."""
    if n < 2:
        return f"{value:.4f} (n = {n}: {NO_INTERVAL})"
    if half_width <= 0.0:
        return f"{value:.4f} (n = {n}: every resample equal, {NO_INTERVAL})"
    if half_width < 0.0005:  # not "± 0.000": the width is small, not zero
        return f"{value:.4f} ± {half_width:.2g}"
    return f"{value:.4f} ± {half_width:.3f}"


def holm_rejected(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which of the hypotheses are rejected at ``alpha``
    (family-wise). Worked example: p = 0.01, 0.04, 0.03 at 0.05 -> thresholds
    0.05/3, 0.05/2, 0.05/1 in p order: 0.01 rejected, 0.03 not (> 0.025), so
    neither is 0.04."""
    m = len(p_values)
    rejected = [False] * m
    for k, i in enumerate(sorted(range(m), key=lambda i: (p_values[i], i))):
        if not p_values[i] < alpha / (m - k):
            break
        rejected[i] = True
    return rejected


@dataclass(frozen=True, slots=True)
class Bands:
    """Band number (1 = best) of each run in input order, and the number of
    comparisons each band rests on (band order)."""

    bands: list[int]
    comparisons: list[int]


def holm_bands(
    values: Sequence[float],
    p_against: Callable[[int, Sequence[int]], Sequence[float]],
    *,
    higher_is_better: bool = True,
    alpha: float = DEFAULT_ALPHA,
    floor: float = 0.0,
) -> Bands:
    """The band rule (module docstring). ``p_against(leader, others)`` gives the
    p-values of run ``leader`` against each of ``others`` (indices into
    ``values``); ``floor``: the smallest p-value the test can give
    (:func:`smallest_p`). Holm's first threshold is ``alpha / m``, so a band of
    ``m`` comparisons with ``alpha / m <= floor`` cannot reject any: its p-values
    are not computed (the cost of a refresh stays bounded)."""
    sign = 1.0 if higher_is_better else -1.0
    order = sorted(range(len(values)), key=lambda i: (-sign * values[i], i))
    bands = [0] * len(values)
    comparisons: list[int] = []
    start = 0
    while start < len(order):
        leader, rest = order[start], order[start + 1 :]
        if rest and not floor < alpha / len(rest):
            p: Sequence[float] = [1.0] * len(rest)  # no p-value can be small enough
        else:
            p = np.asarray(p_against(leader, rest), dtype=np.float64) if rest else []
        rejected = holm_rejected([float(v) for v in p], alpha)
        stop = next(
            (k for k, r in enumerate(rejected) if r), len(rest)
        )  # first rejected run, in score order
        comparisons.append(len(rest))
        for i in order[start : start + 1 + stop]:
            bands[i] = len(comparisons)
        start += 1 + stop
    return Bands(bands, comparisons)
