"""Queries compiled by the ORM once per database connection, then run many times.

Django compiles a queryset to SQL every time it is evaluated. For the few small
queries that every signed-in page makes (the user, the page's phase and test sets,
the tasks the user organises), compiling cost several times what running them cost
on loopback: a third of a signed-in leaderboard page's CPU. A ``Precompiled`` query
is built by the ORM from placeholder values the first time a connection runs it;
its SQL, the positions of its parameters and the ORM's value converters (JSON,
dates on SQLite, ...) are kept on that connection, and each call runs the same SQL
with new values.

Use it only for ``values_list`` querysets whose shape does not depend on the values
(no ``__in`` lists, no optional filters); ``objects`` turns rows into model instances
through ``Model.from_db``, as the ORM itself does.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from django.db import connections, router
from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)

#: Numbers the queries: the name each keeps its compiled form under on a
#: connection. (Not ``id(query)``: a query collected and a new one made at the
#: same address would find the old one's SQL on the connection.)
_serial = itertools.count()


class Precompiled:
    """``build(**placeholders)`` compiled once per connection; ``rows(**values)``
    runs it with ``values`` in the placeholders' places.

    Each placeholder must be a value no real call passes and that the ORM keeps as
    it is when preparing it (a string for text fields, an int for keys), so that it
    can be found among the compiled parameters (an int within the column's range:
    the ORM turns an out-of-range key into an empty query)."""

    def __init__(
        self, build: Callable[..., QuerySet[Any]], **placeholders: Hashable
    ) -> None:
        if len(set(placeholders.values())) != len(placeholders):
            raise ValueError("placeholders must be distinct")
        self._build = build
        self._placeholders = placeholders
        self._attr = f"_evalhub_precompiled_{next(_serial)}"
        self._model: type[Model] | None = None

    def _compiled(self, alias: str):  # noqa: ANN202
        connection = connections[alias]
        compiled = getattr(connection, self._attr, None)
        if compiled is None:
            queryset = self._build(**self._placeholders)
            compiler = queryset.query.get_compiler(connection=connection)
            sql, params = compiler.as_sql()
            names = {value: name for name, value in self._placeholders.items()}
            # Each parameter is either a placeholder (taken from the call) or a
            # constant of the query (kept).
            slots = tuple(
                (names.get(p) if isinstance(p, Hashable) else None, p) for p in params
            )
            missing = set(self._placeholders) - {name for name, _ in slots}
            if missing:
                raise AssertionError(f"placeholders not in the SQL: {sorted(missing)}")
            fields = [s[0] for s in compiler.select[: compiler.col_count]]
            compiled = (sql, slots, compiler, compiler.get_converters(fields))
            setattr(connection, self._attr, compiled)
        return compiled

    def rows(self, *, using: str | None = None, **values: object) -> list[tuple]:  # type: ignore[type-arg]
        if set(values) != set(self._placeholders):
            raise TypeError(
                f"expected {sorted(self._placeholders)}, got {sorted(values)}"
            )
        if self._model is None:
            self._model = self._build(**self._placeholders).model
        alias = using or router.db_for_read(self._model)
        sql, slots, compiler, converters = self._compiled(alias)
        params = [value if name is None else values[name] for name, value in slots]
        with connections[alias].cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if converters:
            rows = [tuple(r) for r in compiler.apply_converters(rows, converters)]
        return rows


def instance(model: type[M], row: Sequence[object], alias: str = "default") -> M:
    """A ``model`` instance from its concrete fields' values, in ``fields(model)``
    order (the ORM's own way of loading a row)."""
    return model.from_db(alias, fields(model), list(row))


def fields(model: type[Model], prefix: str = "") -> list[str]:
    """The attribute names of ``model``'s concrete fields, each after ``prefix``
    (``"phase__"`` to read a related model's through a ``values_list``)."""
    return [prefix + f.attname for f in model._meta.concrete_fields]
