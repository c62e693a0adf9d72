"""Hidden gold stays hidden: every page, download, plot and export, role by role."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.services.boards import analyses
from tests import demo_world, run_figures, shared_world
from tests.demo_world import (  # noqa: F401 - fixtures: the world's rows
    isolated_storage_row,
    organiser_row,
    outsider_row,
    participant_row,
    phase_row,
    private_test_set_row,
    task_row,
    team_row,
    test_set_row,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The conftest's world with the demo's best run submitted by the participant,
    scored and both test sets' analyses refreshed: built once for the module
    (``shared_world``). The tests read it; those that change it (a reveal, released
    gold, a draft task, another team) are rolled back after."""

    def build() -> dict[str, object]:
        from django.contrib.auth import get_user_model

        from evalhub.competitions.models import Phase
        from evalhub.competitions.services.runs import submit
        from tasks import registry

        found = demo_world.build()
        demo = registry.get("bilingual_term_alignment").demo(seed=0)
        sub = submit.submit_run(
            phase=Phase.objects.get(pk=found["phase"]),
            user=get_user_model().objects.get(pk=found["participant"]),
            filename="run.tsv",
            data=next(iter(demo.runs[0][2].values())),  # as ``demo_run``
            method_name="m",
        )
        jobs.score_submission(sub.pk)
        run_figures.draw_pending(sub)  # the job the scoring job sends after commit
        analyses.refresh(test_set_id=found["test_set"])
        analyses.refresh(test_set_id=found["private_test_set"])
        sub.refresh_from_db()
        assert sub.status == "scored"
        return {**found, "scored": sub.pk}

    folder = tmp_path_factory.mktemp("leaks") / "storage"
    yield from shared_world.kept(django_db_blocker, folder, build)


@pytest.fixture
def scored(world, isolated_storage):  # noqa: ANN001, ANN201
    from evalhub.competitions.models import Submission

    return Submission.objects.get(pk=world.value["scored"])


def _gold_pairs(bucc_demo) -> list[bytes]:  # noqa: ANN001
    gold = bucc_demo.test_sets[0].gold["gold"].decode().splitlines()
    pairs = [line.split("\t") for line in gold if line]
    # Forms a response could carry a pair in: TSV, JSON list, "a -> b".
    forms = []
    for s, t in pairs:
        forms += [
            f"{s}\t{t}".encode(),
            f'["{s}", "{t}"]'.encode(),
            f'"{s}", "{t}"'.encode(),
        ]
    return forms


def _urls(sub, test_set, private_test_set) -> list[str]:  # noqa: ANN001
    task = sub.phase.task
    ev = sub.evaluations.get(test_set=test_set)
    art = ev.artefacts.first()
    urls = [
        "/",
        reverse("competitions:task-detail", args=[task.slug]),
        reverse("competitions:leaderboard-detail", args=[task.slug, sub.phase.slug]),
        reverse("competitions:leaderboard-json", args=[task.slug, sub.phase.slug]),
        reverse("competitions:run-detail", args=[sub.pk]),
        reverse("competitions:run-status", args=[sub.pk]),
        reverse("competitions:run-plot", args=[sub.pk, art.pk, "svg"]),
        # The boards' embeds and badges (evalhub/embeds/).
        reverse("embeds:overall-embed", args=[task.slug, sub.phase.slug]),
        reverse("embeds:overall-badge", args=[task.slug, sub.phase.slug]),
    ]
    for ts in (test_set, private_test_set):
        for name in ("embeds:board-embed", "embeds:board-badge"):
            urls.append(reverse(name, args=[task.slug, sub.phase.slug, ts.pk]))
        urls.append(reverse("competitions:testset-file", args=[ts.pk, "source_terms"]))
        for a in ts.task_artefacts.all():
            if a.svg:
                urls.append(
                    reverse("competitions:testset-plot", args=[ts.pk, a.key, "svg"])
                )
    return urls


def _body(response) -> bytes:  # noqa: ANN001
    if hasattr(response, "streaming_content"):
        return b"".join(response.streaming_content)
    return response.content


@pytest.mark.parametrize("role", ["anonymous", "participant", "other_team"])
def test_no_gold_and_no_per_item_outcome_for_non_organisers(
    role,
    client,
    scored,
    test_set,
    private_test_set,
    participant,
    outsider,
    other_team,
    bucc_demo,
):
    if role == "participant":
        client.force_login(participant)
    elif role == "other_team":
        client.force_login(outsider)
    forms = _gold_pairs(bucc_demo)
    for url in _urls(scored, test_set, private_test_set):
        body = _body(client.get(url))
        leaked = [f for f in forms if f in body]
        assert not leaked, f"{role} sees gold pairs at {url}: {leaked[:2]}"
    for ts in (test_set, private_test_set):
        assert (
            client.get(
                reverse("competitions:testset-file", args=[ts.pk, "gold"])
            ).status_code
            == 404
        )
        detail = reverse("competitions:run-item-detail", args=[scored.pk, ts.pk])
        assert client.get(detail).status_code == 404
    # Private test set: no score, no plot, not even for the run's own team.
    board = _body(
        client.get(
            reverse("competitions:leaderboard-json", args=["bucc-test", "evaluation"])
        )
    )
    assert b'"private"' not in board
    ev = scored.evaluations.get(test_set=private_test_set)
    for art in ev.artefacts.all():
        assert (
            client.get(
                reverse("competitions:run-plot", args=[scored.pk, art.pk, "svg"])
            ).status_code
            == 404
        )
    run_page = _body(client.get(reverse("competitions:run-detail", args=[scored.pk])))
    assert b"private until the organisers reveal" in run_page


def test_run_file_only_for_its_team_and_organisers(
    client, scored, participant, outsider, organiser
):
    url = reverse("competitions:run-file", args=[scored.pk])
    assert client.get(url).status_code == 404
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    client.force_login(participant)
    assert client.get(url).status_code == 200
    client.force_login(organiser)
    assert client.get(url).status_code == 200


def test_organiser_sees_gold_detail_and_private_scores(
    client, scored, organiser, test_set, private_test_set
):
    client.force_login(organiser)
    assert (
        client.get(
            reverse("competitions:testset-file", args=[test_set.pk, "gold"])
        ).status_code
        == 200
    )
    detail = client.get(
        reverse("competitions:run-item-detail", args=[scored.pk, private_test_set.pk])
    )
    assert detail.status_code == 200
    board = _body(
        client.get(
            reverse("competitions:leaderboard-json", args=["bucc-test", "evaluation"])
        )
    )
    assert b'"private"' in board


def test_reveal_and_gold_release_open_things_up(
    client, scored, participant, private_test_set
):
    from evalhub.competitions.services.data import datasets

    client.force_login(participant)
    datasets.reveal(test_set=private_test_set)
    board = _body(
        client.get(
            reverse("competitions:leaderboard-json", args=["bucc-test", "evaluation"])
        )
    )
    assert b'"private"' in board
    detail = reverse(
        "competitions:run-item-detail", args=[scored.pk, private_test_set.pk]
    )
    assert client.get(detail).status_code == 404
    task = scored.phase.task
    task.gold_released = True
    task.save()
    assert client.get(detail).status_code == 200


def test_draft_task_is_invisible_to_the_public(client, scored):
    task = scored.phase.task
    task.state = "draft"
    task.save()
    assert (
        client.get(reverse("competitions:task-detail", args=[task.slug])).status_code
        == 404
    )
    assert (
        client.get(reverse("competitions:run-detail", args=[scored.pk])).status_code
        == 404
    )


def test_organiser_item_page_spells_out_gold_pairs(
    client, scored, organiser, test_set, bucc_demo
):
    client.force_login(organiser)
    page = client.get(
        reverse("competitions:run-item-detail", args=[scored.pk, test_set.pk])
    )
    assert page.status_code == 200
    first_source, first_target = (
        bucc_demo.test_sets[0].gold["gold"].decode().splitlines()[0].split("\t")
    )
    html = page.content.decode()
    assert "gold pairs" in html and (first_source in html or "First 200" in html)
    raw = client.get(
        reverse("competitions:run-item-detail", args=[scored.pk, test_set.pk])
        + "?format=json"
    )
    assert raw["Content-Type"] == "application/json" and b"gold_ranks" in raw.content
