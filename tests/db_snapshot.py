"""A copy of the test database's rows taken in a test process and put back later in
the same process, without going through the models (no signal, no receiver: the
rows come back exactly as they were): for a world that costs much to build and
that several modules of a process read (tests/browser/demo_world.py).

SQLite: the whole database file copied with SQLite's backup API (into memory and
back). PostgreSQL: each model table copied out and in with ``COPY`` (binary
format), after one ``TRUNCATE`` of them all. In both, the ids given to rows
created later keep going up from where the process had them (SQLite's
``sqlite_sequence`` kept, PostgreSQL's sequences left alone): an id used by an
earlier module's row is not given again."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Snapshot:
    vendor: str
    sqlite: sqlite3.Connection | None = None
    tables: tuple[tuple[str, bytes], ...] = ()


def take() -> Snapshot:
    """The rows of every table of the default database, now (no transaction open)."""
    from django.db import connection

    connection.ensure_connection()
    if connection.vendor == "sqlite":
        copy = sqlite3.connect(":memory:", check_same_thread=False)
        connection.connection.backup(copy)
        return Snapshot("sqlite", sqlite=copy)
    if connection.vendor != "postgresql":
        msg = f"no snapshot for {connection.vendor}"
        raise NotImplementedError(msg)
    tables = []
    with connection.cursor() as cursor:
        for table in _tables():
            sql = f"COPY {connection.ops.quote_name(table)} TO STDOUT (FORMAT binary)"
            with cursor.cursor.copy(sql) as out:
                tables.append((table, b"".join(bytes(block) for block in out)))
    return Snapshot("postgresql", tables=tuple(tables))


def restore(snapshot: Snapshot) -> None:
    """Put the snapshot's rows back in place of every row there is now."""
    from django.db import connection, transaction

    connection.ensure_connection()
    if snapshot.vendor == "sqlite":
        assert snapshot.sqlite is not None
        raw = connection.connection
        counters = raw.execute("SELECT name, seq FROM sqlite_sequence").fetchall()
        snapshot.sqlite.backup(raw)
        for name, seq in counters:
            updated = raw.execute(
                "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?",
                (seq, name),
            ).rowcount
            if not updated:
                raw.execute(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, seq)
                )
        raw.commit()
        return
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        # Django's foreign keys are checked at the commit (deferred): the tables'
        # order does not matter.
        cursor.execute("TRUNCATE " + ", ".join(quote(t) for t, _ in snapshot.tables))
        for table, data in snapshot.tables:
            sql = f"COPY {quote(table)} FROM STDIN (FORMAT binary)"
            with cursor.cursor.copy(sql) as into:
                into.write(data)


def _tables() -> list[str]:
    from django.db import connection

    return sorted(
        connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
    )
