"""One answer to "which metric ranks this phase?" (issue 45): the boards, the
selection of runs, the overall ranking, the statistics and the Ladder, the exports,
the package and the pages all ask ``boards/ranking.of`` (or ``ranking.metric``).
A module that reads a task type's ``primary_metric`` to rank would ignore the
organisers' choice: this test parses ``evalhub/`` and fails on one outside the
places below, each of which means the task type's own default on purpose."""

from __future__ import annotations

import ast

from tests.paths import REPO_ROOT as REPO

HOME = "evalhub/competitions/services/boards/ranking.py"
#: Modules that read the task type's primary metric, and why that is right there.
DEFAULTS = {
    # The task type's description (the API's task detail, the console's choice of
    # a task type): its own primary metric, beside each phase's ranking metric.
    "evalhub/api/services/resources.py": 1,
    "evalhub/api/services/organiser.py": 1,
    "evalhub/console/forms.py": 1,
    # The console's list of every run of a task, across phases: not a ranking.
    "evalhub/console/services/run_scores.py": 1,
    "evalhub/console/services/runs.py": 1,
    # Shares computed over the primary metric keep their keys; decisions stored
    # before the metric was recorded were the primary's.
    "evalhub/rankings/services/runstats.py": 1,
    "evalhub/rankings/services/ladder.py": 1,
    # The ranking page's form names the default choice.
    "evalhub/rankings/forms.py": 1,
}


def _reads() -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted((REPO / "evalhub").rglob("*.py")):
        name = str(path.relative_to(REPO))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr == "primary_metric"):
                continue
            # A board's own field is the metric that ranked it (``ranking.of``).
            if isinstance(node.value, ast.Name) and node.value.id in ("board", "shown"):
                continue
            if isinstance(node.ctx, ast.Load):
                found[name] = found.get(name, 0) + 1
    return found


def test_every_consumer_asks_the_one_rule():
    reads = _reads()
    assert reads.pop(HOME, 0) >= 1
    assert reads == DEFAULTS


def test_the_rule_is_asked_by_the_consumers():
    users = set()
    for path in sorted((REPO / "evalhub").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if (
            "ranking.of(" in text
            or "ranking.metric(" in text
            or "ranking_rule." in text
        ):
            users.add(str(path.relative_to(REPO)))
    for consumer in (
        "evalhub/competitions/services/boards/leaderboard.py",
        "evalhub/competitions/services/boards/selection.py",
        "evalhub/competitions/services/boards/overall.py",
        "evalhub/competitions/services/boards/exports.py",
        "evalhub/competitions/services/boards/board_pages.py",
        "evalhub/rankings/services/statistics.py",
        "evalhub/rankings/services/ladder.py",
        "evalhub/rankings/services/package.py",
        "evalhub/rankings/services/exports.py",
    ):
        assert consumer in users, consumer
