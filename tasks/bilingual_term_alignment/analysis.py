"""Difficulty bins across runs (differential evaluation, Gianola et al. 2021, as in
seed 002's Tables 6-8): gold pair g is in bin_n when exactly n of the runs retrieved it.

Inputs are the organiser-only ``detail`` of each scored run: ``gold_ranks`` (aligned with
the sorted gold, -1 = missed) and ``wrong_candidates`` (per gold source term, the
run's best-ranked wrong targets as ``[target, rank]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from tasks.base import JSON, Analysis, Plot, RunDetail
from tasks.common import plotting

from .formats import Gold

#: Closest wrong candidates listed per bin member (across all runs).
MAX_MEMBER_CANDIDATES = 5


def _usable(run: RunDetail, n_gold: int) -> bool:
    ranks = run.detail.get("gold_ranks")
    return isinstance(ranks, list) and len(ranks) == n_gold


def difficulty_bins(runs: Sequence[RunDetail], gold: Gold) -> Analysis:
    """Bin sizes and percentages, and for each run on the public board
    (``RunDetail.shown``, named in ``public["columns"]``) how many pairs of each bin
    it retrieved (public: other runs count only in the bins); bin members with the
    systems' closest wrong candidates for their source term (private); a histogram.

    Percentages are of the gold size; with no usable run there is one bin, bin_0.
    Runs whose detail does not match this gold (another gold version) are skipped and
    named in ``public["skipped_runs"]``.
    """
    n_gold = len(gold.sorted_pairs)
    usable = [r for r in runs if _usable(r, n_gold)]
    skipped = [r.label for r in runs if not _usable(r, n_gold)]
    found_by: list[list[str]] = [[] for _ in range(n_gold)]
    for run in usable:
        ranks = cast(list[int], run.detail["gold_ranks"])
        for i, rank in enumerate(ranks):
            if rank > 0:
                found_by[i].append(run.label)
    n_runs = len(usable)
    sizes = [0] * (n_runs + 1)
    # found[n][label]: how many pairs of bin_n each run on the public board retrieved.
    columns = [r.label for r in usable if r.shown]
    found = [dict.fromkeys(columns, 0) for _ in range(n_runs + 1)]
    for labels in found_by:
        sizes[len(labels)] += 1
        for label in labels:
            if label in found[len(labels)]:
                found[len(labels)][label] += 1
    public: dict[str, JSON] = {
        "n_runs": n_runs,
        "runs": [r.label for r in usable],
        "columns": cast(list[JSON], columns),
        "skipped_runs": skipped,
        "n_gold": n_gold,
        "bins": [
            {
                "n": n,
                "size": size,
                "percent": 100.0 * size / n_gold if n_gold else 0.0,
                "found": [found[n][label] for label in columns],
            }
            for n, size in enumerate(sizes)
        ],
    }
    candidates = _candidates_by_source(usable)
    members: list[list[JSON]] = [[] for _ in range(n_runs + 1)]
    for (source, target), labels in zip(gold.sorted_pairs, found_by, strict=True):
        near = [c for c in candidates.get(source, []) if c["target"] != target]
        members[len(labels)].append(
            {
                "source": source,
                "target": target,
                "found_by": list(labels),
                "wrong_candidates": cast(list[JSON], near[:MAX_MEMBER_CANDIDATES]),
            }
        )
    private: dict[str, JSON] = {
        "bins": [{"n": n, "members": m} for n, m in enumerate(members)],
    }
    return Analysis(public=public, private=private, plots=(histogram(sizes, n_gold),))


def _candidates_by_source(
    runs: Sequence[RunDetail],
) -> dict[str, list[dict[str, JSON]]]:
    """source -> distinct wrong targets the runs proposed, each with the runs that
    proposed it and its best rank, best rank first."""
    best: dict[str, dict[str, tuple[int, list[str]]]] = {}
    for run in runs:
        per_source = run.detail.get("wrong_candidates")
        if not isinstance(per_source, Mapping):
            continue
        for source, items in per_source.items():
            targets = best.setdefault(str(source), {})
            for target, rank in cast(list[list[JSON]], items):
                rank_i, labels = targets.get(str(target), (cast(int, rank), []))
                labels.append(run.label)
                targets[str(target)] = (min(rank_i, cast(int, rank)), labels)
    out: dict[str, list[dict[str, JSON]]] = {}
    for source, targets in best.items():
        ordered = sorted(targets.items(), key=lambda item: (item[1][0], item[0]))
        out[source] = [
            {"target": target, "best_rank": rank, "runs": cast(list[JSON], labels)}
            for target, (rank, labels) in ordered
        ]
    return out


def histogram(sizes: Sequence[int], n_gold: int) -> Plot:
    fig = plotting.new_figure()
    ax = fig.add_subplot()
    xs = list(range(len(sizes)))
    bars = ax.bar(xs, sizes, color="#4c72b0")
    for bar, size in zip(bars, sizes, strict=True):
        pct = 100.0 * size / n_gold if n_gold else 0.0
        ax.annotate(
            f"{pct:.1f}%",
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            va="bottom",
            fontsize="small",
        )
    ax.set_xticks(xs, [f"bin{n}" for n in xs])
    ax.set_xlabel("number of runs that retrieved the gold pair")
    ax.set_ylabel("gold pairs")
    ax.set_title("Difficulty bins")
    ax.grid(True, axis="y", alpha=0.3)
    return plotting.render("difficulty_bins", "Difficulty bins", fig)
