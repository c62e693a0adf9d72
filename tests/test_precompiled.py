"""Precompiled queries (evalhub.precompiled): the same rows as the ORM's, compiled
once per connection, and the signed-in user loaded through one of them."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from evalhub.accounts.backends import ModelBackend
from evalhub.competitions.models import SharedTask
from evalhub.competitions.services import roles
from evalhub.precompiled import Precompiled, fields, instance

pytestmark = pytest.mark.django_db


def _published(slug: str):  # noqa: ANN202
    # A constant of the query ("published") besides the placeholder, and a JSON field.
    return SharedTask.objects.filter(slug=slug, state="published").values_list(
        *fields(SharedTask)
    )


def test_rows_equal_the_orms_for_every_value(task, organiser):  # noqa: ANN001
    draft = SharedTask.objects.create(
        slug="draft-one", title="Draft", task_type="term_extraction", state="draft"
    )
    query = Precompiled(_published, slug="\x00slug")
    for slug in (task.slug, draft.slug, "no-such-task"):
        assert query.rows(slug=slug) == list(_published(slug)), slug
    (row,) = query.rows(slug=task.slug)
    loaded = instance(SharedTask, row)
    assert loaded.task_settings == task.task_settings  # JSON decoded, as the ORM does
    assert isinstance(loaded.task_settings, dict)
    assert loaded.created_at == task.created_at and loaded.created_at.tzinfo
    assert loaded.pk == task.pk and not loaded._state.adding
    assert roles.is_organiser(organiser, loaded)


def test_compiled_once_per_connection(task):  # noqa: ANN001
    builds = [0]

    def build(slug):  # noqa: ANN001, ANN202
        builds[0] += 1
        return _published(slug)

    query = Precompiled(build, slug="\x00slug")
    query.rows(slug=task.slug)
    first = builds[0]
    for _ in range(5):
        assert len(query.rows(slug=task.slug)) == 1
    assert builds[0] == first  # no more compiling in this thread

    seen: list[object] = []

    def other_thread() -> None:
        try:
            seen.append(len(query.rows(slug="no-such-task")))
        except Exception as exc:  # noqa: BLE001
            seen.append(exc)
        finally:
            connections.close_all()

    t = threading.Thread(target=other_thread)
    t.start()
    t.join()
    assert seen == [0]
    assert builds[0] == first + 1  # that thread's connection compiled its own


def test_placeholders_must_reach_the_sql():
    query = Precompiled(lambda slug: SharedTask.objects.values_list("pk"), slug="\x00s")
    with pytest.raises(AssertionError, match="slug"):
        query.rows(slug="x")
    with pytest.raises(TypeError):
        Precompiled(_published, slug="\x00slug").rows(title="x")
    with pytest.raises(ValueError, match="distinct"):
        Precompiled(lambda a, b: None, a=1, b=1)


def test_a_new_query_never_runs_a_collected_ones_sql(task):  # noqa: ANN001
    # CPython gives a new object the address of one just freed: a query named after
    # its address found the collected query's SQL on the connection.
    for column in ("pk", "title", "pk", "title", "slug", "pk", "slug", "title"):
        query = Precompiled(
            lambda slug, column=column: SharedTask.objects.filter(
                slug=slug
            ).values_list(column),
            slug="\x00s",
        )
        expected = getattr(task, column)
        assert query.rows(slug=task.slug) == [(expected,)], column
        del query


def test_the_backend_loads_the_user_the_orm_would(participant, django_user_model):  # noqa: ANN001
    backend = ModelBackend()
    loaded = backend.get_user(participant.pk)
    fresh = django_user_model.objects.get(pk=participant.pk)
    for name in fields(django_user_model):
        assert getattr(loaded, name) == getattr(fresh, name), name
    assert loaded.get_session_auth_hash() == fresh.get_session_auth_hash()
    assert backend.get_user("not a number") is None
    assert backend.get_user(participant.pk + 1000) is None
    participant.is_active = False
    participant.save()
    assert backend.get_user(participant.pk) is None  # Django's rule for inactive users


def test_a_signed_in_session_follows_the_account(client, participant):  # noqa: ANN001
    client.force_login(participant)
    assert b"Signed in as <strong>alice" in client.get("/").content
    participant.is_active = False
    participant.save()
    assert b"Signed in as" not in client.get("/").content
