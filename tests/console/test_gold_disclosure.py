"""Public/private, reveal and gold release as explicit actions: a confirmation page
that says who will see what (counted by the leak rules), then the core's service."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import SharedTask, TestSet
from evalhub.competitions.services.boards import access

pytestmark = pytest.mark.django_db


@pytest.fixture
def scored_runs(submit_run, demo_run, outsider, other_team, private_test_set):  # noqa: ANN001, ANN201
    """Three runs of two teams scored on both test sets; one of them hidden."""
    runs = [
        submit_run(demo_run, method="a"),
        submit_run(demo_run, method="b"),
        submit_run(demo_run, user=outsider, method="c"),
    ]
    for run in runs:
        jobs.score_submission(run.pk)
    runs[1].hidden = True
    runs[1].save(update_fields=["hidden"])
    return runs


def _text(response) -> str:  # noqa: ANN001
    return " ".join(response.content.decode().split())


def test_reveal_says_who_will_see_what_then_reveals(
    client, organiser, task, private_test_set, scored_runs
):
    url = reverse("console:testset-reveal", args=[task.slug, private_test_set.pk])
    client.force_login(organiser)
    page = _text(client.get(url))
    assert (
        "Everyone, signed in or not, will see the scores of 2 runs of 2 teams on "
        "“Private”" in page
    )
    assert "(1 hidden run: their teams and the organisers only)" in page
    assert not access.can_see_scores(AnonymousUser(), private_test_set)
    assert client.post(url).status_code == 302
    private_test_set.refresh_from_db()
    assert private_test_set.revealed
    assert access.can_see_scores(AnonymousUser(), private_test_set)
    assert "is revealed already" in _text(client.get(url))


def test_a_draft_task_says_when_everyone_will_see(
    client, organiser, task, private_test_set, scored_runs
):
    SharedTask.objects.filter(pk=task.pk).update(state=SharedTask.State.DRAFT)
    client.force_login(organiser)
    url = reverse("console:testset-reveal", args=[task.slug, private_test_set.pk])
    page = _text(client.get(url))
    assert "Once the task is published (it is a draft" in page


def test_public_and_private_are_explicit(
    client, organiser, task, test_set, scored_runs
):
    url = reverse("console:testset-visibility", args=[task.slug, test_set.pk])
    client.force_login(organiser)
    page = _text(client.get(url + "?visibility=private"))
    assert "Nobody but the organisers will see the scores on “Public”" in page
    assert "The scores of 2 runs of 2 teams shown today leave the public boards" in page
    assert client.get(url + "?visibility=secret").status_code == 404
    assert client.post(url, {"visibility": "private"}).status_code == 302
    test_set.refresh_from_db()
    assert test_set.visibility == TestSet.Visibility.PRIVATE
    assert not access.can_see_scores(AnonymousUser(), test_set)
    page = _text(client.get(url + "?visibility=public"))
    assert "will see the scores of 2 runs of 2 teams on “Public”" in page
    client.post(url, {"visibility": "public"})
    test_set.refresh_from_db()
    assert test_set.visibility == TestSet.Visibility.PUBLIC


def test_gold_release_is_refused_while_private_scores_are_hidden_unless_confirmed(
    client, organiser, task, private_test_set, scored_runs
):
    url = reverse("console:gold-release", args=[task.slug])
    client.force_login(organiser)
    page = _text(client.get(url))
    assert "will be able to download the gold files of 2 test sets" in page
    assert "per-item outcomes (which gold items each run found) of 2 shown runs" in page
    assert "The scores of “Evaluation / Private” are not revealed" in page
    assert 'name="confirm_unrevealed"' in page
    refused = client.post(url, {})
    assert refused.status_code == 409
    assert "The gold was not released" in _text(refused)
    task.refresh_from_db()
    assert not task.gold_released
    assert client.post(url, {"confirm_unrevealed": "on"}).status_code == 302
    task.refresh_from_db()
    assert task.gold_released
    assert "released already" in _text(client.get(url))


def test_gold_release_after_reveal_needs_no_box(
    client, organiser, task, private_test_set, scored_runs
):
    from evalhub.competitions.services.data import datasets

    datasets.reveal(test_set=private_test_set)
    client.force_login(organiser)
    url = reverse("console:gold-release", args=[task.slug])
    page = _text(client.get(url))
    assert 'name="confirm_unrevealed"' not in page and "not revealed" not in page
    assert client.post(url, {}).status_code == 302
    task.refresh_from_db()
    assert task.gold_released


def test_test_sets_page_lists_files_per_role_and_links_the_gold(
    client, organiser, task, test_set, private_test_set, scored_runs
):
    client.force_login(organiser)
    page = _text(client.get(reverse("console:testsets", args=[task.slug])))
    for ts in (test_set, private_test_set):
        gold = reverse("competitions:testset-file", args=[ts.pk, "gold"])
        assert f'href="{gold}"' in page
        assert client.get(gold).status_code == 200
    assert page.count("<td>hidden gold</td>") == 2
    assert page.count("<td>public input</td>") == 4
    assert "3 scored runs" in page
    assert "scores hidden from everyone but the organisers" in page
    assert "Reveal its scores" in page and "Make private" in page
    assert "Release the gold" in page


def test_add_and_edit_a_test_set(client, organiser, task, phase, test_set):
    client.force_login(organiser)
    create = reverse("console:testset-create", args=[task.slug])
    clash = client.post(
        create, {"phase": phase.pk, "name": "Public", "visibility": "public"}
    )
    assert clash.status_code == 422
    assert "has a test set “public”" in _text(clash)
    edit = reverse("console:testset-edit", args=[task.slug, test_set.pk])
    page = _text(client.get(edit))
    assert 'name="visibility"' not in page and 'name="phase"' not in page
    response = client.post(
        edit, {"name": "Dev", "slug": "dev", "order": 3, "counts_for_ranking": ""}
    )
    assert response.status_code == 302
    test_set.refresh_from_db()
    assert (test_set.name, test_set.slug, test_set.order) == ("Dev", "dev", 3)
    assert not test_set.counts_for_ranking
    assert test_set.visibility == "public"
