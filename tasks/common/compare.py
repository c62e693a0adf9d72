"""The overview of several runs on one gold, as the platform's significance page
computes it (``evalhub.rankings.services.statistics.compute``), for ``evalhub
compare``: every metric, the ranking metric's (the primary one, or ``--metric``)
bootstrap interval, pairwise paired
bootstrap and approximate-randomisation p-values, rank bands, and the signature line.

Order: best first on the primary metric, ties in the order the runs were given (the
platform breaks ties by submission time). Intervals use resamples shared by all runs
(a function of seed and number of gold items only), so each run's interval is the one
the platform shows for it; with fewer than two gold items there is none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tasks.common import resampling as rs
from tasks.reports import JSON, ScoreReport


def metrics_head(
    task_type,  # noqa: ANN001  (a tasks.base.TaskType)
    *,
    metric: str | None = None,
    columns: Sequence[str] | None = None,
) -> dict[str, JSON]:
    """What a comparison table says of the task type's metrics (the one that
    ranks, every metric, the table's default columns): the same for ``evalhub
    compare`` and the platform's overview-paper package. ``metric`` (one of
    ``rankable_metrics``) and ``columns`` (metric keys, in order): a phase's
    choice; None: the task type's."""
    primary = metric or task_type.primary_metric
    if primary not in task_type.rankable_metrics():
        raise ValueError(
            f"metric {primary!r} does not rank {task_type.slug}; "
            f"rankable: {', '.join(task_type.rankable_metrics())}"
        )
    table = list(columns) if columns else list(task_type.default_metrics())
    known = {m.key for m in task_type.metrics}
    unknown = [key for key in table if key not in known]
    if unknown:
        raise ValueError(f"unknown metric {', '.join(unknown)}")
    if primary not in table:
        table.insert(0, primary)
    return {
        "task_type": task_type.slug,
        "metric": primary,
        "metric_label": task_type.metric(primary).label,
        "higher_is_better": task_type.metric(primary).higher_is_better,
        "metrics": [
            {
                "key": m.key,
                "label": m.label,
                "count": m.count,
                "quality": m.quality,
                "higher_is_better": m.higher_is_better,
            }
            for m in task_type.metrics
        ],
        "table_metrics": table,  # type: ignore[dict-item]
    }


@dataclass(frozen=True, slots=True)
class System:
    name: str
    report: ScoreReport


def signature(
    *,
    slug: str,
    version: str,
    metric: str,
    gold_version: int,
    samples: int,
    seed: int,
    alpha: float,
    ladder_margin: float | None = None,
    unit: rs.bands.Unit | None = None,
    n: int | None = None,
) -> str:
    """Method, version and parameters behind the numbers (sacrebleu style); the
    platform prints the same line for a test set."""
    parts = [
        f"{slug}:{version}",
        f"metric:{metric}",
        f"gold:{gold_version}",
        f"ci:percentile-{rs.DEFAULT_CONFIDENCE:g}",
        f"bootstrap:{samples}",
        f"seed:{seed}",
        f"ar:{samples}",
        f"alpha:{alpha:g}",
        f"bands:{rs.bands.SIGNATURE}",
    ]
    if unit is not None:
        parts.append(f"unit:{unit.singular.replace(' ', '-')}")
    if n is not None:
        parts.append(f"n:{n}")
    if ladder_margin is not None:
        parts.append(f"ladder:{ladder_margin:g}se")
    return "|".join(parts)


def overview(
    task_type,  # noqa: ANN001  (a tasks.base.TaskType)
    systems: Sequence[System],
    *,
    samples: int = rs.DEFAULT_SAMPLES,
    seed: int = rs.DEFAULT_SEED,
    alpha: float = rs.DEFAULT_ALPHA,
    gold_version: int = 1,
    metric: str | None = None,
    columns: Sequence[str] | None = None,
) -> dict[str, JSON]:
    """``metric``, ``columns``: see :func:`metrics_head` (what a phase ranks by)."""
    head = metrics_head(task_type, metric=metric, columns=columns)
    primary = str(head["metric"])
    higher = task_type.metric(primary).higher_is_better

    def sort_key(i: int) -> tuple[float, int]:
        value = systems[i].report.metrics.get(primary)
        v = float("-inf") if value is None else (value if higher else -value)
        return (-v, i)

    order = sorted(range(len(systems)), key=sort_key)
    stats = [task_type.item_statistics(systems[i].report, primary) for i in order]
    usable = all(s is not None for s in stats) and len({s.keys for s in stats}) == 1
    intervals: list[rs.Interval | None] = [None] * len(order)
    bands: list[int | None] = list(range(1, len(order) + 1))
    comparisons: list[int] = []
    n = stats[0].n if usable and stats else 0
    powered = usable and rs.bands.can_reach(n, samples, alpha)
    matrices: dict[str, JSON] = {}
    if usable and stats:
        if stats[0].n >= 2:
            intervals = list(
                rs.bootstrap_intervals(
                    stats, samples=samples, seed=seed, confidence=rs.DEFAULT_CONFIDENCE
                )
            )
        result = rs.pairwise(stats, samples=samples, trials=samples, seed=seed)
        p = result.p_randomisation
        held = rs.bands.holm_bands(
            result.values,
            lambda i, others: p[i, list(others)],
            higher_is_better=higher,
            alpha=alpha,
            floor=rs.bands.smallest_p(n, samples),
        )
        # The platform's rule: no bands where no difference can reach alpha.
        bands = list(held.bands) if powered else [None] * len(order)
        comparisons = held.comparisons if powered else []
        matrices = {
            "delta": _rounded(result.delta),
            "p_bootstrap": _rounded(result.p_bootstrap),
            "p_randomisation": _rounded(result.p_randomisation),
            "exact": result.exact,
        }
    rows: list[JSON] = []
    for position, (i, interval, band) in enumerate(
        zip(order, intervals, bands, strict=True), start=1
    ):
        report = systems[i].report
        rows.append(
            {
                "index": position,
                "name": systems[i].name,
                "band": band,
                "metrics": {
                    m.key: report.metrics.get(m.key) for m in task_type.metrics
                },
                "interval": None if interval is None else interval.to_json(),
            }
        )
    return {
        **head,
        "n_items": n,
        "unit": rs.bands.unit_json(task_type.unit),
        "powered": powered,
        "band_comparisons": comparisons,  # type: ignore[dict-item]
        "bands_legend": rs.bands.legend(
            task_type.unit,
            n,
            alpha=alpha,
            trials=samples,
            powered=powered,
            comparisons=comparisons,
        )
        if usable
        else "",
        "samples": samples,
        "seed": seed,
        "confidence": rs.DEFAULT_CONFIDENCE,
        "alpha": alpha,
        "signature": signature(
            slug=task_type.slug,
            version=task_type.version,
            metric=primary,
            gold_version=gold_version,
            samples=samples,
            seed=seed,
            alpha=alpha,
            unit=task_type.unit,
            n=n,
        ),
        "systems": rows,
        **matrices,
    }


def _rounded(matrix: Sequence[Sequence[float]]) -> list[JSON]:
    """As the platform stores them (12 decimals)."""
    return [[round(float(v), 12) for v in row] for row in matrix]
