"""None of the console's test set and gold pages or actions is reachable by the
public, participants or organisers of other tasks (GET and POST; nothing changes),
a draft is its organiser's only, and no answer to them quotes the gold."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.models import SharedTask, TestSet, TestSetFile
from evalhub.competitions.services import test_data
from evalhub.competitions.services.data import drafts

pytestmark = pytest.mark.django_db


@pytest.fixture
def other_organiser(django_user_model):  # noqa: ANN001, ANN201
    """A staff user who organises another task (and may see its pages)."""
    user = django_user_model.objects.create_user("org2", is_staff=True)
    other = SharedTask.objects.create(
        slug="other-task", title="Other", task_type="term_extraction", state="published"
    )
    other.organisers.add(user)
    return user


def _state(task, test_set, private_test_set) -> tuple:  # noqa: ANN001
    task.refresh_from_db()
    rows = TestSet.objects.filter(phase__task=task).order_by("pk")
    return (
        task.gold_released,
        [(t.name, t.slug, t.visibility, t.revealed, t.order, t.gold_version) for t in rows],
        sorted(TestSetFile.objects.values_list("test_set_id", "role", "sha256")),
    )  # fmt: skip


def test_nobody_but_the_tasks_organisers_gets_in(
    client, organiser, participant, other_organiser, task, phase, test_set,
    private_test_set, submit_run, demo_run, bucc_demo, other_team,
):  # fmt: skip
    jobs.score_submission(submit_run(demo_run).pk)
    gold_data = bucc_demo.test_sets[0].gold["gold"]
    draft = test_data.stage(
        test_set=private_test_set,
        user=organiser,
        uploads=[
            test_data.Upload("gold", "new.tsv", gold_data.splitlines(True)[0] * 1)
        ],
    )
    slug, pk, token = task.slug, private_test_set.pk, draft.token
    gets = [
        reverse("console:testsets", args=[slug]),
        reverse("console:testset-create", args=[slug]),
        reverse("console:testset-edit", args=[slug, pk]),
        reverse("console:testset-files", args=[slug, pk]),
        reverse("console:gold-draft", args=[slug, pk, token]),
        reverse("console:testset-visibility", args=[slug, pk]),
        reverse("console:testset-reveal", args=[slug, pk]),
        reverse("console:gold-release", args=[slug]),
    ]
    posts = [
        (reverse("console:testset-create", args=[slug]),
         {"phase": phase.pk, "name": "Intruder", "visibility": "public"}),
        (reverse("console:testset-edit", args=[slug, pk]), {"name": "Renamed", "order": 9}),
        (reverse("console:testset-files", args=[slug, pk]),
         {"file_gold": SimpleUploadedFile("g.tsv", gold_data)}),
        (reverse("console:gold-draft", args=[slug, pk, token]), {}),
        (reverse("console:gold-draft-discard", args=[slug, pk, token]), {}),
        (reverse("console:testset-visibility", args=[slug, pk]), {"visibility": "public"}),
        (reverse("console:testset-reveal", args=[slug, pk]), {}),
        (reverse("console:gold-release", args=[slug]), {"confirm_unrevealed": "on"}),
    ]  # fmt: skip
    before = _state(task, test_set, private_test_set)
    forms = [line for line in gold_data.decode().splitlines() if line.strip()][:20]
    for who in (None, participant, other_organiser):
        client.logout()
        if who is not None:
            client.force_login(who)
        want = 302 if who is None else 404
        for url in gets:
            response = client.get(url)
            assert response.status_code == want, (who, url)
            assert not any(f in response.content.decode() for f in forms)
        for url, data in posts:
            for value in data.values():
                if hasattr(value, "seek"):
                    value.seek(0)
            assert client.post(url, data).status_code == want, (who, url)
    assert _state(task, test_set, private_test_set) == before
    # The draft is still there for its organiser, untouched.
    assert drafts.load(test_set_id=pk, user_id=organiser.pk, token=token).files
    # Another organiser's task slug does not reach this task's test sets either.
    client.force_login(other_organiser)
    assert (
        client.get(
            reverse("console:testset-files", args=["other-task", pk])
        ).status_code
        == 404
    )


def test_a_draft_is_its_organisers_only(
    client, organiser, django_user_model, task, test_set, bucc_demo
):
    co = django_user_model.objects.create_user("co", is_staff=True)
    task.organisers.add(co)
    draft = test_data.stage(
        test_set=test_set,
        user=organiser,
        uploads=[
            test_data.Upload("gold", "g.tsv", bucc_demo.test_sets[0].gold["gold"])
        ],
    )
    url = reverse("console:gold-draft", args=[task.slug, test_set.pk, draft.token])
    client.force_login(co)
    assert client.get(reverse("console:testsets", args=[task.slug])).status_code == 200
    assert client.get(url).status_code == 404
    assert client.post(url).status_code == 404
    client.force_login(organiser)
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("inline_bytes", [0, 2 * 1024 * 1024])
def test_a_file_that_cannot_be_read_is_logged_without_its_text(
    settings, organiser, task, test_set, caplog, monkeypatch, inline_bytes
):
    """A parser crash (not a format error) in the sandbox: the organiser gets a
    plain problem, the log gets the exception's type only, never gold text; the
    same in the request."""
    settings.INLINE_VALIDATION_BYTES = inline_bytes
    secret = "SECRET-GOLD-LINE"

    def crash(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError(secret)

    monkeypatch.setattr(type(task.type), "parse_gold", crash)
    with pytest.raises(test_data.UploadRejected) as rejected:
        test_data.stage(
            test_set=test_set,
            user=organiser,
            uploads=[test_data.Upload("gold", "g.tsv", f"{secret}\tx\n".encode())],
        )
    assert [str(p) for p in rejected.value.problems] == [
        "g.tsv: this file could not be read"
    ]
    assert "RuntimeError" in caplog.text and secret not in caplog.text
