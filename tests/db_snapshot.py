"""A copy of the test database's rows taken in a test process and put back later in
the same process, without going through the models (no signal, no receiver: the
rows come back exactly as they were): for a world that costs much to build and
that several modules read (tests/browser/demo_world.py). A snapshot written to a
folder (``write``) is read back by another test process of the same run (``read``):
their databases are migrated alike (on PostgreSQL, copies of one template).

SQLite: the whole database file copied with SQLite's backup API (into memory and
back). PostgreSQL: each model table copied out and in with ``COPY`` (binary
format), after one ``TRUNCATE`` of them all. In both, the ids given to rows
created later keep going up from where the process had them, and past the
snapshot's own (SQLite's ``sqlite_sequence`` and PostgreSQL's sequences each at
the larger of the two): an id used by an earlier module's row, or by a row of
the snapshot, is not given again."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path


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
        # Each sequence past the snapshot's ids too (taken in another process,
        # they may be ahead of this database's).
        cursor.execute(
            "SELECT c.relname, a.attname, pg_get_serial_sequence("
            "quote_ident(c.relname), a.attname) AS seq FROM pg_class c JOIN"
            " pg_attribute a ON a.attrelid = c.oid WHERE c.relname = ANY(%s) AND"
            " pg_table_is_visible(c.oid) AND a.attnum > 0 AND NOT a.attisdropped",
            [[table for table, _ in snapshot.tables]],
        )
        for table, column, sequence in cursor.fetchall():
            if sequence is None:
                continue
            cursor.execute(
                f"SELECT setval(%s, GREATEST((SELECT last_value FROM {sequence}),"
                f" (SELECT COALESCE(MAX({quote(column)}), 1) FROM {quote(table)})))",
                [sequence],
            )


def write(snapshot: Snapshot, folder: Path) -> None:
    """The snapshot as files in ``folder`` (created), for ``read`` in another
    process."""
    folder.mkdir(parents=True, exist_ok=True)
    if snapshot.vendor == "sqlite":
        assert snapshot.sqlite is not None
        into = sqlite3.connect(folder / "database.sqlite3")
        try:
            snapshot.sqlite.backup(into)
        finally:
            into.close()
    names = []
    for i, (table, data) in enumerate(snapshot.tables):
        (folder / f"{i}.copy").write_bytes(data)
        names.append(table)
    (folder / "snapshot.json").write_text(
        json.dumps({"vendor": snapshot.vendor, "tables": names})
    )


def read(folder: Path) -> Snapshot:
    """The snapshot ``write`` left in ``folder``."""
    index = json.loads((folder / "snapshot.json").read_text())
    if index["vendor"] == "sqlite":
        copy = sqlite3.connect(":memory:", check_same_thread=False)
        source = sqlite3.connect(folder / "database.sqlite3")
        try:
            source.backup(copy)
        finally:
            source.close()
        return Snapshot("sqlite", sqlite=copy)
    tables = tuple(
        (table, (folder / f"{i}.copy").read_bytes())
        for i, table in enumerate(index["tables"])
    )
    return Snapshot(index["vendor"], tables=tables)


def _tables() -> list[str]:
    from django.db import connection

    return sorted(
        connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
    )
