"""The test database's snapshot (tests/db_snapshot.py), written by one test process
and read back by another: the rows come back as they were, and the ids given
afterwards go past the snapshot's even where this database's counters are behind
(as in another process's database)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management.color import no_style
from django.db import connection

from tests import db_snapshot


@pytest.mark.django_db(transaction=True)
def test_a_snapshot_read_in_another_process_gives_no_id_twice(tmp_path):  # noqa: ANN001
    users = get_user_model().objects
    for name in ("a", "b", "c"):
        users.create_user(name)
    kept = {u.pk: u.username for u in users.all()}
    db_snapshot.write(db_snapshot.take(), tmp_path / "rows")

    # Another process's database: none of these rows, its counters at the start.
    users.all().delete()
    table = get_user_model()._meta.db_table
    reset = connection.ops.sequence_reset_by_name_sql(
        no_style(), [{"table": table, "column": "id"}]
    )
    with connection.cursor() as cursor:
        for sql in reset:
            cursor.execute(sql)
    assert users.create_user("elsewhere").pk < max(kept)
    users.all().delete()

    db_snapshot.restore(db_snapshot.read(tmp_path / "rows"))
    assert {u.pk: u.username for u in users.all()} == kept
    assert users.create_user("d").pk > max(kept)
