"""The annotation pages: organisers of the task only, role by role; no reference
translation (hidden gold) reaches anyone else; plain forms work without JS."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.annotations.models import Judgement
from evalhub.annotations.services import rescoring
from tasks.mt_lexicon_probe.tags import normalise_translation
from tests.quotes import quoted

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("without_plots")]

SHARED = ("adj-low-002", normalise_translation("Dies ist Dieb-isch."))


def _references(mt_demo) -> list[str]:  # noqa: ANN001
    text = mt_demo.test_sets[0].gold["references"].decode()
    return [ref for line in text.splitlines() for ref in line.split("\t")[1].split("|")]


def _urls(test_set) -> dict[str, str]:  # noqa: ANN001
    return {
        "list": reverse("annotations:annotation-list"),
        "detail": reverse("annotations:annotation-detail", args=[test_set.pk]),
        "scores": reverse("annotations:annotation-scores", args=[test_set.pk]),
        "tag": reverse("annotations:judgement-create", args=[test_set.pk]),
        "undo": reverse("annotations:judgement-undo", args=[test_set.pk]),
    }


@pytest.fixture
def judged(mt_runs, mt_test_set, organiser, client):  # noqa: ANN001, ANN201
    client.force_login(organiser)
    response = client.post(
        _urls(mt_test_set)["tag"],
        {"probe": SHARED[0], "key": SHARED[1], "tag": "w"},
    )
    assert response.status_code == 302
    rescoring.rescore_test_set(test_set_id=mt_test_set.pk)
    client.logout()
    return Judgement.objects.get()


@pytest.mark.parametrize("role", ["anonymous", "participant", "other_team", "staff"])
def test_everyone_but_the_organisers_gets_404_and_no_references(
    role, judged, mt_test_set, mt_demo, client, participant, django_user_model
):
    from evalhub.competitions.services import teams

    if role == "participant":
        client.force_login(participant)  # team of the "wide" system
    elif role == "other_team":
        user = django_user_model.objects.create_user("bob")
        teams.register(task=mt_test_set.phase.task, user=user, new_team_name="Bob")
        client.force_login(user)
    elif role == "staff":  # staff, but organiser of another task only
        user = django_user_model.objects.create_user("staffer", is_staff=True)
        client.force_login(user)
    refs = _references(mt_demo)
    for name, url in _urls(mt_test_set).items():
        if name in ("tag", "undo"):
            response = client.post(
                url, {"probe": SHARED[0], "key": SHARED[1], "tag": "c"}
            )
        else:
            response = client.get(url)
        assert response.status_code in (403, 404), (name, response.status_code)
        assert not quoted(response.content, refs), name
    assert Judgement.objects.filter(retracted_at__isnull=True).count() == 1
    # The pages the platform shows them after re-scoring quote no reference either
    # (proposed-c matches stay in the organiser-only per-item detail).
    sub = judged.test_set.evaluations.first().submission
    phase = mt_test_set.phase
    for url in (
        reverse("competitions:run-detail", args=[sub.pk]),
        reverse("competitions:leaderboard-detail", args=[phase.task.slug, phase.slug]),
        reverse("competitions:leaderboard-json", args=[phase.task.slug, phase.slug]),
    ):
        body = client.get(url).content
        assert not quoted(body, refs), url
        assert b"matched_reference" not in body, url


def test_organiser_page_shows_probe_translations_legend_and_progress(
    judged, mt_test_set, organiser, client
):
    client.force_login(organiser)
    body = client.get(
        _urls(mt_test_set)["detail"], {"probe": "adj-low-002"}
    ).content.decode()
    assert "This is thievish." in body
    assert "Dies ist Dieb-isch." in body and "Dies ist thievish." in body
    assert "2 systems" in body  # identical translations grouped
    for tag in ("u", "w", "m", "wf", "s", "f", "wd", "c"):
        assert f"<strong>{tag}</strong>" in body
    assert "of 81 judged" in body
    assert "org" in body and "tagged w" in body  # who tagged what
    assert "nouns only" in body  # f and wd are disabled for an adjective
    scores = client.get(_urls(mt_test_set)["scores"]).content.decode()
    assert "2 items awaiting annotation" in scores  # wide after the judgement
    phase = mt_test_set.phase
    board = client.get(
        reverse("competitions:leaderboard-json", args=[phase.task.slug, phase.slug])
    ).json()
    pending = {r["method"]: r["n_pending"] for r in board["test_sets"][0]["rows"]}
    assert pending == {"wide": 2, "small": 0, "segmenting": 10}


def test_plain_form_tags_and_moves_on_then_undo(
    mt_runs, mt_test_set, organiser, client
):
    client.force_login(organiser)
    urls = _urls(mt_test_set)
    response = client.post(
        urls["tag"],
        {"probe": SHARED[0], "key": SHARED[1], "tag": "s", "pos": "adj"},
    )
    assert response.status_code == 302
    # adj-low-002 is done; the next adjective needing a judgement is adj-low-003,
    # and the address names it (as the htmx answer's pushed URL does).
    assert "pos=adj" in response["Location"]
    assert "probe=adj-low-003" in response["Location"]
    page = client.get(response["Location"]).content.decode()
    assert "This is tearless." in page
    response = client.post(urls["undo"], {"probe": "adj-low-003", "pos": "adj"})
    assert response.status_code == 302 and "probe=adj-low-002" in response["Location"]
    assert Judgement.objects.get().retracted_at is not None


def test_htmx_tag_returns_the_panel_and_triggers_a_score_refresh(
    mt_runs, mt_test_set, organiser, client
):
    client.force_login(organiser)
    response = client.post(
        _urls(mt_test_set)["tag"],
        {"probe": SHARED[0], "key": SHARED[1], "tag": "w"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="annotation-panel",
    )
    assert response.status_code == 200
    assert response["HX-Trigger"] == "judged"
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="annotation-panel"')
    bad = client.post(
        _urls(mt_test_set)["tag"],
        {"probe": SHARED[0], "key": SHARED[1], "tag": "wd"},
        HTTP_HX_REQUEST="true",
    )
    assert bad.status_code == 400 and Judgement.objects.count() == 1


def test_kappa_is_shown_to_organisers(
    mt_runs, mt_test_set, organiser, client, django_user_model
):
    anna = django_user_model.objects.create_user("anna")
    mt_test_set.phase.task.organisers.add(anna)
    for user, tag in ((organiser, "w"), (anna, "w")):
        client.force_login(user)
        client.post(
            _urls(mt_test_set)["tag"],
            {"probe": SHARED[0], "key": SHARED[1], "tag": tag},
        )
    body = client.get(_urls(mt_test_set)["detail"]).content.decode()
    assert "anna · org" in body and "Cohen" in body


def test_the_demo_task_can_be_annotated(without_plots, isolated_storage, client):
    from evalhub.annotations.services import systems
    from evalhub.competitions.models import Submission, TestSet
    from evalhub.competitions.services.data import demo
    from evalhub.competitions.services.runs import scoring

    demo.seed_demo(slugs=["mt_lexicon_probe"])
    for pk in Submission.objects.values_list("pk", flat=True):
        assert scoring.score_submission(submission_id=pk) == "scored"
    systems.clear_caches()
    test_set = TestSet.objects.get(phase__task__slug="demo-mt-lexicon-probe")
    assert client.login(username="organiser", password=demo.DEMO_PASSWORD)
    listing = client.get(reverse("annotations:annotation-list")).content.decode()
    detail = reverse("annotations:annotation-detail", args=[test_set.pk])
    assert detail in listing
    body = client.get(detail).content.decode()
    assert "of 81 judged" in body and "3 systems" in body
    response = client.post(
        reverse("annotations:judgement-create", args=[test_set.pk]),
        {"probe": SHARED[0], "key": SHARED[1], "tag": "w"},
    )
    assert response.status_code == 302
    assert rescoring.rescore_test_set(test_set_id=test_set.pk) != []
