"""An archive export's status has one writer: ``console/services/archive_exports.py``
(like a run's, ``competitions/services/runs/lifecycle.py``)."""

from __future__ import annotations

import ast

from tests.paths import REPO_ROOT


def _export_status_writes(source: str) -> list[int]:
    """Lines of ``source`` (a module that names ``ArchiveExport``) that write an
    export's status: a ``status=`` in an update/create call or the constructor, or
    an assignment to ``.status``."""
    if "ArchiveExport" not in source:
        return []
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and "status" in {k.arg for k in node.keywords}:
            func = ast.unparse(node.func)
            if func.endswith((".update", ".create", ".get_or_create", "ArchiveExport")):
                lines.append(node.lineno)
        elif isinstance(node, ast.Assign):
            if any(ast.unparse(t).endswith(".status") for t in node.targets):
                lines.append(node.lineno)
    return sorted(lines)


def test_only_the_export_service_writes_an_export_status():
    assert _export_status_writes(
        "ArchiveExport.objects.filter(pk=1).update(status='ready')\n"
        "ArchiveExport(status='queued')\nexport.status = 'failed'\n"
    ) == [1, 2, 3]
    owner = REPO_ROOT / "evalhub/console/services/archive_exports.py"
    found = {
        str(path.relative_to(REPO_ROOT)): lines
        for path in sorted((REPO_ROOT / "evalhub").rglob("*.py"))
        if "migrations" not in path.parts
        and path != owner
        and (lines := _export_status_writes(path.read_text()))
    }
    assert found == {}
    assert _export_status_writes(owner.read_text()) != []
