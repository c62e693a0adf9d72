"""Intervals, p-values, charts and the Ladder follow the leak rules, role by role:
private test sets are hidden from everyone but organisers (the run's own team
included) until revealed; the Ladder's steps (scores of unreleased runs) are
organiser-only; no response quotes the gold."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evalhub.competitions.models import SharedTask, Submission
from tests import demo_world, shared_world
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
from tests.rankings import ladder_stats

pytestmark = pytest.mark.django_db


TEST_SETS = ("test_set", "private_test_set")


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):  # noqa: ANN001, ANN201
    """The conftest's world and ``ladder_stats``' runs: built once for the
    module (``shared_world``). The tests read it; those that change it (revealing
    the private test set, a draft task, released gold) are rolled back after."""

    def build() -> dict[str, object]:
        from django.contrib.auth import get_user_model

        from evalhub.competitions.models import Phase, SharedTask, TestSet
        from tasks import registry

        found = demo_world.build()
        users = get_user_model().objects
        participant = users.get(pk=found["participant"])
        outsider = users.get(pk=found["outsider"])
        task = SharedTask.objects.get(pk=found["task"])
        phase = Phase.objects.get(pk=found["phase"])
        subs = ladder_stats.build(
            task=task,
            phase=phase,
            test_sets=[TestSet.objects.get(pk=found[n]) for n in TEST_SETS],
            demo=registry.get("bilingual_term_alignment").demo(seed=0),
            participant=participant,
            outsider=outsider,
        )
        return {**found, "stats": [s.pk for s in subs]}

    folder = tmp_path_factory.mktemp("leaks") / "storage"
    yield from shared_world.kept(django_db_blocker, folder, build)


@pytest.fixture
def stats(world, isolated_storage):  # noqa: ANN001, ANN201
    return [Submission.objects.get(pk=pk) for pk in world.value["stats"]]


def _urls(test_set) -> list[str]:  # noqa: ANN001
    return [
        reverse("rankings:significance-detail", args=[test_set.pk]),
        reverse("rankings:significance-export", args=[test_set.pk, "csv"]),
        reverse("rankings:significance-export", args=[test_set.pk, "json"]),
        reverse("rankings:significance-export", args=[test_set.pk, "tex"]),
        reverse("rankings:chart-detail", args=[test_set.pk, "svg"]),
        reverse("rankings:chart-detail", args=[test_set.pk, "png"]),
        reverse("rankings:chart-detail", args=[test_set.pk, "pdf"]),
        reverse("rankings:chart-detail", args=[test_set.pk, "csv"]),
    ]


def _gold_forms(bucc_demo) -> list[bytes]:  # noqa: ANN001
    gold = bucc_demo.test_sets[0].gold["gold"].decode().splitlines()
    forms = []
    for line in gold:
        if line:
            s, t = line.split("\t")
            forms += [f"{s}\t{t}".encode(), f'"{s}", "{t}"'.encode()]
    return forms


def _client(client, user):  # noqa: ANN001, ANN202
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("role", ["anonymous", "outsider", "participant", "organiser"])
def test_public_test_set_statistics_visible_without_gold(
    role, request, client, stats, test_set, bucc_demo
):
    user = None if role == "anonymous" else request.getfixturevalue(role)
    c = _client(client, user)
    forms = _gold_forms(bucc_demo)
    for url in _urls(test_set):
        response = c.get(url)
        assert response.status_code == 200, url
        body = b"".join(response) if response.streaming else response.content
        assert not any(f in body for f in forms), url
    page = c.get(_urls(test_set)[0]).content.decode()
    assert ("Ladder (organisers only)" in page) is (role == "organiser")


@pytest.mark.parametrize("role", ["anonymous", "outsider", "participant"])
def test_private_test_set_statistics_hidden_until_revealed(
    role, request, client, stats, private_test_set
):
    user = None if role == "anonymous" else request.getfixturevalue(role)
    c = _client(client, user)
    for url in _urls(private_test_set):
        assert c.get(url).status_code == 404, url
    private_test_set.revealed = True
    private_test_set.save()
    for url in _urls(private_test_set):
        assert c.get(url).status_code == 200, url


def test_organiser_sees_private_statistics(client, stats, organiser, private_test_set):
    c = _client(client, organiser)
    for url in _urls(private_test_set):
        assert c.get(url).status_code == 200, url


@pytest.mark.parametrize("role", ["anonymous", "participant"])
def test_draft_task_statistics_hidden(role, request, client, stats, task, test_set):
    task.state = SharedTask.State.DRAFT
    task.save()
    user = None if role == "anonymous" else request.getfixturevalue(role)
    c = _client(client, user)
    for url in _urls(test_set):
        assert c.get(url).status_code == 404, url


def test_ladder_hides_unreleased_scores_on_public_pages(
    client, stats, task, phase, test_set, participant
):
    """The Ladder released the first run and the clearly better second one; the
    public board shows the second. The leaderboard page shows intervals, bands and
    the Ladder note; the significance page does not list the first run's steps."""
    first, second, _ = stats
    c = _client(client, participant)
    page = c.get(
        reverse("competitions:leaderboard-detail", args=[task.slug, phase.slug])
    ).content.decode()
    assert "Ladder mode" in page
    assert " ± 0.0" in page
    assert "pairwise significance" in page
    significance = c.get(_urls(test_set)[0]).content.decode()
    assert f"/runs/{first.pk}/" not in significance
    assert f"/runs/{second.pk}/" in significance


def _compare_url(test_set, a, b) -> str:  # noqa: ANN001
    return reverse("rankings:comparison-detail", args=[test_set.pk, a.pk, b.pk])


def test_any_two_runs_compared_on_request(client, stats, test_set, organiser):
    first, second, other = stats
    data = _client(client, organiser).get(_compare_url(test_set, second, first)).json()
    assert data["delta"] == pytest.approx(data["value_a"] - data["value_b"])
    assert data["delta"] > 0.3
    assert data["p_randomisation"] < 0.01 and data["p_bootstrap"] < 0.01
    assert "seed:0" in data["signature"]


@pytest.mark.parametrize("role", ["anonymous", "outsider", "participant"])
def test_ladder_comparisons_only_between_shown_runs(
    role, request, client, stats, test_set, private_test_set
):
    first, second, other = stats
    user = None if role == "anonymous" else request.getfixturevalue(role)
    c = _client(client, user)
    # The public board shows "second" and "other"; "first" was superseded.
    assert c.get(_compare_url(test_set, second, other)).status_code == 200
    assert c.get(_compare_url(test_set, first, other)).status_code == 404
    assert c.get(_compare_url(private_test_set, second, other)).status_code == 404


def test_organiser_compares_unreleased_runs(client, stats, test_set, organiser):
    first, _, other = stats
    c = _client(client, organiser)
    assert c.get(_compare_url(test_set, first, other)).status_code == 200


@pytest.mark.parametrize("role", ["anonymous", "outsider", "participant"])
def test_ladder_hides_superseded_and_unreleased_run_scores(
    role, request, stats, test_set, private_test_set, organiser
):
    from django.contrib.auth.models import AnonymousUser

    from evalhub.competitions.services.boards import access, visibility

    first, second, other = stats
    user = AnonymousUser() if role == "anonymous" else request.getfixturevalue(role)

    def sees(sub, ts, u=user) -> bool:  # noqa: ANN001
        return access.can_see_run_scores(u, sub, ts)

    assert [sees(s, test_set) for s in stats] == [False, True, True]
    # The Ladder gates public test sets only; private ones follow their reveal.
    released = visibility.released(private_test_set)
    assert released is None
    assert [sees(s, private_test_set) for s in stats] == [False] * 3
    assert [sees(s, test_set, organiser) for s in stats] == [True] * 3


def test_run_page_and_plots_hide_what_the_ladder_did_not_release(
    client, stats, test_set, outsider, organiser
):
    """The first run was superseded on the public board: its own page shows no score
    on the public test set to non-organisers, and its plots are not served."""
    first, second, _ = stats
    c = _client(client, outsider)
    page = c.get(reverse("competitions:run-detail", args=[first.pk])).content.decode()
    assert "private until the organisers reveal" in page
    ev = first.evaluations.get(test_set=test_set)
    plot = ev.artefacts.first()
    if plot is not None:
        url = reverse("competitions:run-plot", args=[first.pk, plot.pk, "svg"])
        assert c.get(url).status_code == 404
    shown = c.get(reverse("competitions:run-detail", args=[second.pk])).content.decode()
    assert "AP" in shown
    org = _client(client, organiser)
    org_page = org.get(
        reverse("competitions:run-detail", args=[first.pk])
    ).content.decode()
    assert "AP (interp.)" in org_page


def test_released_gold_opens_no_withheld_or_private_per_item_outcome(
    client, stats, task, test_set, private_test_set, outsider
):
    """With the gold released, a run's per-item outcomes on a test set are shown
    to whoever sees its scores there, no one else: a run the Ladder withholds, or
    any run on a private test set not yet revealed, keeps them (its score follows
    from them and the released gold)."""
    from django.contrib.auth.models import AnonymousUser

    from evalhub.competitions.services.boards import visibility

    task.gold_released = True
    task.save()
    shown = visibility.visible(viewer=AnonymousUser(), test_set=test_set, runs=stats)
    withheld = [s for s in stats if s.pk not in shown]
    assert withheld and len(shown) >= 1  # the Ladder withholds a run
    for user in (None, outsider):
        c = _client(client, user)
        for sub in stats:
            url = reverse("competitions:run-item-detail", args=[sub.pk, test_set.pk])
            expected = 200 if sub.pk in shown else 404
            assert c.get(url).status_code == expected, (sub.method_name, url)
            assert c.get(url + "?format=json").status_code == expected
            private = reverse(
                "competitions:run-item-detail", args=[sub.pk, private_test_set.pk]
            )
            assert c.get(private).status_code == 404
            assert c.get(private + "?format=json").status_code == 404


def _embed_urls(task, phase, test_set) -> list[str]:  # noqa: ANN001
    args = [task.slug, phase.slug]
    return [
        reverse("embeds:board-embed", args=[*args, test_set.pk]),
        reverse("embeds:board-badge", args=[*args, test_set.pk]),
        reverse("embeds:overall-embed", args=args),
        reverse("embeds:overall-badge", args=args),
    ]


def _score_forms(sub, test_set, others) -> set[bytes]:  # noqa: ANN001
    """How ``sub``'s scores on ``test_set`` would look on a board, less those
    any of ``others`` has too."""
    task_type = sub.phase.task.type

    def forms(run) -> set[str]:  # noqa: ANN001
        out = set()
        for s in run.scores.filter(test_set=test_set):
            if s.value is None or task_type.metric(s.metric).count:
                continue
            out |= {repr(s.value), task_type.metric(s.metric).format(s.value)}
        return out

    shared = set().union(*(forms(o) for o in others))
    return {f.encode() for f in forms(sub) - shared if len(f) >= 5}


@pytest.mark.parametrize("role", ["anonymous", "outsider", "participant", "organiser"])
def test_embeds_and_badges_show_no_withheld_or_private_score(
    role, request, client, stats, task, phase, test_set, private_test_set
):
    """The embed and badge are the public's, whoever asks (organisers too): the
    run the Ladder withholds and the scores of the private test set never show
    on them; the released runs do."""
    first, second, other = stats
    withheld = _score_forms(first, test_set, [second, other])
    assert withheld
    user = None if role == "anonymous" else request.getfixturevalue(role)
    c = _client(client, user)
    for url in _embed_urls(task, phase, test_set):
        response = c.get(url)
        assert response.status_code == 200, url
        leaked = [f for f in withheld if f in response.content]
        assert not leaked, f"{role} sees {leaked[:2]} at {url}"
    embed = c.get(_embed_urls(task, phase, test_set)[0]).content.decode()
    assert ">second<" in embed and ">other<" in embed and ">first<" not in embed
    # The private test set (its scores the public one's here): no run at all.
    for url in _embed_urls(task, phase, private_test_set)[:2]:
        shown = c.get(url).content.decode()
        assert "private" in shown or "no public score" in shown
        assert "second" not in shown and "other" not in shown
    # The forms are detectable: the organisers see the withheld run's scores.
    org = _client(client, request.getfixturevalue("organiser"))
    page = org.get(reverse("competitions:run-detail", args=[first.pk]))
    assert any(f in page.content for f in withheld)
