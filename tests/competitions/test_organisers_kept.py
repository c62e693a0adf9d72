"""``access.is_organiser`` reads the tasks a user organises once per user object
(one query for every leak rule a page asks) and never answers from a stale read
after organisers change in this process."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from evalhub.competitions.models import SharedTask, organised_task_ids
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access

pytestmark = pytest.mark.django_db


def test_one_query_for_every_check_of_one_user_object(
    task, organiser, participant, django_assert_num_queries
):
    other = SharedTask.objects.create(
        slug="other", title="Other", task_type=task.task_type,
        task_settings=dict(task.task_settings),
    )  # fmt: skip
    with django_assert_num_queries(1):
        for _ in range(5):
            assert roles.is_organiser(organiser, task)
            assert not roles.is_organiser(organiser, other)
    with django_assert_num_queries(1):
        assert not roles.is_organiser(participant, task)
        assert not access.can_see_hidden_runs(participant, task)
    with django_assert_num_queries(0):
        assert not roles.is_organiser(AnonymousUser(), task)


def test_changes_to_organisers_are_seen_at_once(task, participant):
    assert not roles.is_organiser(participant, task)
    task.organisers.add(participant)
    assert roles.is_organiser(participant, task)
    participant.organised_tasks.remove(task)  # the reverse side too
    assert not roles.is_organiser(participant, task)
    participant.organised_tasks.add(task)
    assert roles.is_organiser(participant, task)
    task.organisers.clear()
    assert not roles.is_organiser(participant, task)
    task.organisers.add(participant)
    assert roles.is_organiser(participant, task)
    pk = task.pk
    task.delete()
    assert pk not in organised_task_ids(participant)


def test_a_fresh_user_object_reads_again(task, participant, django_user_model):
    assert not roles.is_organiser(participant, task)
    # A change this process did not see (another process, rows written directly):
    # the next request's user object reads it.
    SharedTask.organisers.through.objects.bulk_create(
        [SharedTask.organisers.through(sharedtask=task, user=participant)]
    )
    assert roles.is_organiser(django_user_model.objects.get(pk=participant.pk), task)
