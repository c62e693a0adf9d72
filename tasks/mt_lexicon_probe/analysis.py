"""Volk (1997) Tables 1-4 across the runs of a leaderboard, as data for the page's
own template (``templates/competitions/analyses/mt_lexicon_probe.html``): for each
measure, one row per word class (and their mean) and frequency class, one column per
run, the share of judged items in %; then each run's wrong determiners (Table 4) and
its items awaiting annotation. The same numbers as the "Tables 1-4" figure, as a
table a reader can select, sort out and read aloud."""

from __future__ import annotations

from collections.abc import Sequence

from tasks.base import JSON, Analysis, RunDetail
from tasks.mt_lexicon_probe.probes import FreqClass
from tasks.mt_lexicon_probe.scoring import (
    GROUPS,
    MEASURES,
    TABLE_TITLES,
    tabulate_items,
)

#: The paper's names of the rows.
GROUP_NAMES = {"adj": "adjectives", "noun": "nouns", "verb": "verbs", "mean": "mean"}


def paper_tables(
    runs: Sequence[RunDetail], *, count_proposed: bool = True
) -> Analysis | None:
    """The tables over the runs on the public board (``RunDetail.shown``) that
    have per-item records; None without any."""
    tables = []
    for run in runs:
        items = run.detail.get("items")
        if run.shown and isinstance(items, list):
            tab = tabulate_items(items, count_proposed=count_proposed)  # type: ignore[arg-type]
            if tab is not None:
                tables.append((run.label, tab))
    if not tables:
        return None
    measures: list[JSON] = []
    for measure in MEASURES:
        by_run = [tab.table(measure) for _, tab in tables]
        rows: list[JSON] = [
            {
                "group": GROUP_NAMES[group],
                "freq": fc.value,
                "values": [_percent(t[group][fc.value]) for t in by_run],
            }
            for group in GROUPS
            for fc in FreqClass
        ]
        measures.append({"key": measure, "title": TABLE_TITLES[measure], "rows": rows})
    public: dict[str, JSON] = {
        "runs": [label for label, _ in tables],
        "measures": measures,
        "wrong_determiners": [tab.wrong_determiners for _, tab in tables],
        "pending": [tab.n_pending for _, tab in tables],
    }
    return Analysis(public=public, private={})


def _percent(share: float | None) -> float | None:
    return None if share is None else 100 * share
