"""Rules of an archive's rows that no single row shows: how deep a row may nest,
and the unique rules of the database between rows (two phases of a task with one
slug). ``reader`` asks both before anything is written, so such an archive is
refused with each offending line; a rule only the database knows (a conditional
constraint) still stops the import in its transaction (``reader._broken``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from django.db.models import Model, UniqueConstraint

#: Levels of lists and objects a row may nest (a row is an object of fields, a
#: field's JSON value a few levels more); a deeper row is refused before anything
#: reads it further, whatever the parser's own recursion limit.
MAX_NESTING = 32


class _Row(Protocol):
    line: int
    model: type[Model]
    obj: object


def depth(value: object) -> int:
    """How many lists and objects nest in ``value`` (without recursion)."""
    deepest = 0
    todo: list[tuple[object, int]] = [(value, 0)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        level += 1
        deepest = max(deepest, level)
        if deepest > MAX_NESTING:
            return deepest
        todo.extend((child, level) for child in item)
    return deepest


def _unique_sets(model: type[Model]) -> list[tuple[str, tuple[str, ...]]]:
    """(name of the rule, its fields) for each unconditional unique rule."""
    meta = model._meta
    found = [
        (f"{f.name} is unique", (f.attname,))
        for f in meta.concrete_fields
        if f.unique and not f.primary_key
    ]
    for fields in meta.unique_together:
        found.append((f"({', '.join(fields)}) is unique", tuple(fields)))
    for constraint in meta.constraints:
        if isinstance(constraint, UniqueConstraint) and constraint.fields:
            if constraint.condition is None and not constraint.expressions:
                found.append((constraint.name, tuple(constraint.fields)))
    return [
        (name, tuple(meta.get_field(f).attname for f in fields))
        for name, fields in found
    ]


def repeated(rows: Iterable[_Row]) -> Iterator[tuple[_Row, str]]:
    """(row, what it repeats of which line) for each row that repeats another's
    values of a unique rule."""
    first: dict[tuple[type[Model], str, tuple[object, ...]], int] = {}
    for row in rows:
        obj = row.obj.object  # type: ignore[attr-defined]
        for name, attnames in _unique_sets(row.model):
            values = tuple(getattr(obj, a) for a in attnames)
            if None in values:  # NULLs never collide
                continue
            key = (row.model, name, values)
            if key in first:
                label = row.model._meta.label_lower
                shown = ", ".join(
                    f"{a}={v!r}" for a, v in zip(attnames, values, strict=True)
                )
                yield (
                    row,
                    (
                        f"{label} with {shown}: line {first[key]} has the same, and "
                        f"the database holds one ({name})"
                    ),
                )
            else:
                first[key] = row.line
