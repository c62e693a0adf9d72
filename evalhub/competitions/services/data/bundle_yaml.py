"""Reading a bundle's ``task.yaml``: values with their line numbers, so that every
problem names the manifest and the line (``services/data/bundles.py`` uses it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import yaml
from django.utils.dateparse import parse_datetime

from tasks.base import Problem

MANIFEST = "task.yaml"


@dataclass(frozen=True, slots=True)
class Value:
    value: object
    line: int


def plain(node: yaml.Node) -> object:
    """A YAML node as Python values wrapped with their 1-based line numbers."""
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        return Value({k.value: plain(v) for k, v in node.value}, line)
    if isinstance(node, yaml.SequenceNode):
        return Value([plain(v) for v in node.value], line)
    loader = yaml.SafeLoader("")
    return Value(loader.construct_object(node, deep=True), line)


def _unwrap(item: Value) -> object:
    """Plain Python values of a wrapped node (lists and mappings inside a setting,
    e.g. ``exclude_labels: [Named_Entity]``)."""
    value = item.value
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


_KINDS = {int: "a whole number", bool: "true or false", str: "text"}


class Reader:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(MANIFEST, line, message))

    def get(
        self,
        mapping: Value,
        key: str,
        kind: type | tuple[type, ...],
        default: object = ...,
    ) -> object:
        items = mapping.value
        if not isinstance(items, dict):
            self.error(mapping.line, "expected a mapping (key: value)")
            return None
        if key not in items:
            if default is ...:
                self.error(mapping.line, f"missing key {key!r}")
                return None
            return default
        item = items[key]
        value = item.value
        if kind is list:
            if not isinstance(value, list):
                self.error(item.line, f"{key!r} must be a list")
                return []
            return value
        if kind is dict:
            if not isinstance(value, dict):
                self.error(item.line, f"{key!r} must be a mapping")
                return {}
            return {k: _unwrap(v) for k, v in value.items()}
        if kind is datetime:
            parsed = (
                value if isinstance(value, datetime) else parse_datetime(str(value))
            )
            if parsed is None or parsed.tzinfo is None:
                self.error(
                    item.line,
                    f"{key!r} must be a date and time with a time zone, e.g. 2026-01-31T23:59:00Z",
                )
                return None
            return parsed
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            wanted = _KINDS.get(kind, "another kind of value")  # type: ignore[arg-type]
            self.error(item.line, f"{key!r} must be {wanted}, got {value!r}")
            return None
        return value
