"""One visibility rule, one place (issue 28): no consumer re-implements
``visibility.visible`` (the gate's answer read elsewhere, a hidden-run score filter
of its own, the deleted copies called), and no module re-exports another's names
(import from where things live)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import evalhub

ROOT = Path(evalhub.__file__).parent
#: The rule itself, and the gate's owner (the Ladder decides what it releases;
#: its statistics worker notes when a decision changed the public boards).
OWNERS = {
    "competitions/services/boards/visibility.py",
    "rankings/services/ladder.py",
    "rankings/services/statistics.py",
}
#: Where a board picks which of the runs the rule lets it show (the gate's
#: answer selects the released run per competitor on organisers' boards too).
SELECTION = {"competitions/services/boards/leaderboard.py"}
COPIES = re.compile(
    r"\b(visible_runs|public_score|gated)\(|visibility\.released\(|\.released\(test"
)
#: Score filters by a run's hidden flag (counting runs is not showing scores).
HIDDEN_FILTER = re.compile(r"(?<!\w)(submission__)?hidden\s*=\s*False")
COUNTS_ONLY = {
    "competitions/services/boards/home.py",  # how many runs a task has
    "factsheets/services/columns.py",  # which systems have a fact sheet
    "console/services/disclosure.py",  # how many runs a gold release concerns
}


def _sources() -> dict[str, str]:
    return {
        str(path.relative_to(ROOT)): path.read_text()
        for path in ROOT.rglob("*.py")
        if "migrations" not in path.parts
    }


def test_no_consumer_re_implements_the_rule():
    found = []
    for name, text in _sources().items():
        if name in OWNERS:
            continue
        for line in text.splitlines():
            if COPIES.search(line) and name not in SELECTION:
                found.append((name, line.strip()))
            if HIDDEN_FILTER.search(line) and name not in COUNTS_ONLY:
                found.append((name, line.strip()))
    assert found == []


def test_every_score_consumer_calls_the_rule():
    """Boards (selection), the overall ranking, run pages, compare, a team's "My
    runs", significance, the API and the console's counts reach ``visibility.visible``, directly or
    through ``access.can_see_run_scores`` (a one-line call of it)."""
    sources = _sources()
    access = sources["competitions/services/boards/access.py"]
    body = access[access.index("def can_see_run_scores") :]
    body = body[: body.index("\ndef ") if "\ndef " in body else len(body)]
    assert "visibility.visible(" in body
    for name in (
        "competitions/services/boards/selection.py",
        "competitions/services/boards/overall.py",
        "competitions/services/boards/compare.py",
        "competitions/services/boards/own_rows.py",
        "console/services/disclosure.py",
    ):
        assert "visibility.visible(" in sources[name], name
    for name in (
        "competitions/services/boards/pages.py",
        "rankings/services/statistics.py",
        "api/services/resources.py",
    ):
        assert "access.can_see_run_scores(" in sources[name], name


#: The modules of the boards and their rule (``leaderboard`` and ``pages`` were
#: façades of ``boardcache``, ``selection`` and ``board_pages``).
BOARD_MODULES = {
    f"competitions/services/{m}.py"
    for m in (
        "access", "analyses", "board_pages", "boardcache", "compare", "exports",
        "figures", "home", "leaderboard", "overall", "pages", "selection",
        "visibility",
    )
}  # fmt: skip


def test_no_module_re_exports_another():
    """``from x import name  # noqa: F401`` kept only for others to import from
    here is a façade: every importer names the module the thing lives in."""
    found = []
    for name, text in _sources().items():
        if name not in BOARD_MODULES:
            continue
        tree = ast.parse(text)
        lines = text.splitlines()
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and "evalhub" in (node.module)
            ):
                first = lines[node.lineno - 1]
                if "noqa: F401" in first:
                    found.append((name, first.strip()))
    assert found == []
