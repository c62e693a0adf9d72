"""An import-linter contract type that import-linter lacks: no import circle between
modules (its ``acyclic_siblings`` works on packages, where a service that enqueues a
job and the job that calls the service already form a circle).

Named in pyproject.toml's ``[tool.importlinter] contract_types``; ``lint-imports`` runs
from the repository root, which it puts on ``sys.path``, so ``tests.`` imports.
"""

from __future__ import annotations

import grimp
from importlinter import Contract, ContractCheck, fields, output


class NoCirclesContract(Contract):
    """No module of ``packages`` reaches itself again through direct imports (every
    import counts, also those inside functions)."""

    type_name = "no_circles"

    packages = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        modules: set[str] = set()
        for package in self.packages:  # type: ignore[attr-defined]
            modules |= {package} | graph.find_descendants(package)
        edges = {
            m: sorted(graph.find_modules_directly_imported_by(m) & modules)
            for m in modules
        }
        circles = [sorted(c) for c in _strongly_connected(edges) if len(c) > 1]
        ties = [
            [
                (a, b, _lines(graph, a, b))
                for a in circle
                for b in edges[a]
                if b in circle
            ]
            for circle in sorted(circles)
        ]
        return ContractCheck(kept=not circles, metadata={"circles": ties})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for ties in check.metadata["circles"]:
            names = sorted({a for a, _, _ in ties})
            output.print_error(f"A circle of {len(names)} modules:")
            output.new_line()
            for a, b, lines in ties:
                output.print_error(f"- {a} -> {b} (l.{', '.join(map(str, lines))})")
            output.new_line()


def _lines(graph: grimp.ImportGraph, importer: str, imported: str) -> list[int]:
    details = graph.get_import_details(importer=importer, imported=imported)
    return sorted({d["line_number"] for d in details})


def _strongly_connected(edges: dict[str, list[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (import chains can be deep)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[set[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = edges[node]
            if i < len(targets):
                work.append((node, i + 1))
                target = targets[i]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found
