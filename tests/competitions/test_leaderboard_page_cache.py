# ruff: noqa: F811  (the sent and renders fixtures are imported, then requested by name)
"""The leaderboard page's boards fragment is cached (services/boards/fragments.fragment):
a new scored run, a reveal or a refreshed analysis shows at once; a score hidden
from a viewer never reaches that viewer's cached fragment, whoever rendered first;
a cached page is not rendered again. Boards rendered ahead of their viewers:
``test_boards_rendered_ahead.py``."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import board_pages, boardcache
from evalhub.competitions.services.boards import refreshes as refreshes_service
from evalhub.competitions.services.data import datasets
from tests.competitions.board_cache import (  # noqa: F401  (fixtures)
    page_url,
    renders,
    score_now,
    sent,
    stored_part,
)
from tests.competitions.runs import stored_run

pytestmark = pytest.mark.django_db

PRIVATE_AP = 0.8642  # a value only the private test set's board shows


def test_a_newly_scored_run_replaces_the_cached_board(
    client,
    phase,
    test_set,
    submit_run,
    bucc_demo,
    outsider,
    task,
    sent,
    renders,
    django_capture_on_commit_callbacks,
):
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    first = submit_run(runs["dictionary"], method="first-method")
    score_now(first.pk, django_capture_on_commit_callbacks)
    page = client.get(page_url(phase))
    assert page.status_code == 200 and b"first-method" in page.content
    assert renders[0] == 1
    assert b"first-method" in client.get(page_url(phase)).content
    assert renders[0] == 1  # served from the cache

    teams.register(task=task, user=outsider, new_team_name="Second team")
    second = submit_run(runs["random"], user=outsider, method="second-method")
    score_now(second.pk, django_capture_on_commit_callbacks)
    page = client.get(page_url(phase))
    assert b"second-method" in page.content and b"Second team" in page.content
    assert renders[0] == 2
    # Each scored run asked for one statistics and one analyses refresh.
    assert sorted(set(sent)) == [
        (refreshes_service.ANALYSES, test_set.pk),
        (refreshes_service.STATISTICS, test_set.pk),
    ]


def _with_private_score(phase, team, participant, test_set, private_test_set):  # noqa: ANN001, ANN202
    sub = stored_run(
        phase, team, participant, {test_set: 0.25, private_test_set: PRIVATE_AP},
        minutes_ago=0, method="secret-sauce",
    )  # fmt: skip
    for ts in (test_set, private_test_set):
        boardcache.invalidate(test_set_id=ts.pk, refresh_statistics=False)
    return sub


def test_a_private_score_never_enters_another_viewers_cached_page(
    client,
    phase,
    test_set,
    private_test_set,
    team,
    participant,
    organiser,
    outsider,
    renders,
):
    _with_private_score(phase, team, participant, test_set, private_test_set)
    expected = f"{PRIVATE_AP:.4f}".encode()
    # The organiser renders (and caches) a page with the private score first.
    client.force_login(organiser)
    assert expected in client.get(page_url(phase)).content
    # The anonymous public, an outsider and the run's own team never see it.
    client.logout()
    for user in (None, outsider, participant, None):
        if user is not None:
            client.force_login(user)
        content = client.get(page_url(phase)).content
        assert expected not in content and b"0.2500" in content, user
        assert b"private until the organisers reveal" in content
        client.logout()
    # One render for the organiser and one shared by everyone else.
    assert renders[0] == 2
    datasets.reveal(test_set=private_test_set)
    assert expected in client.get(page_url(phase)).content


def test_a_refreshed_analysis_shows_without_a_new_run(
    client,
    phase,
    test_set,
    submit_run,
    demo_run,
    sent,
    django_capture_on_commit_callbacks,
):
    from evalhub.competitions.services.boards import analyses

    sub = submit_run(demo_run)
    score_now(sub.pk, django_capture_on_commit_callbacks)
    before = client.get(page_url(phase)).content
    assert b"<h3>Analysis</h3>" not in before  # not refreshed yet
    analyses.refresh(test_set_id=test_set.pk)
    assert b"<h3>Analysis</h3>" in client.get(page_url(phase)).content


def test_a_fragment_being_rendered_elsewhere_serves_the_previous_one(
    phase, test_set, team, participant, private_test_set, renders
):
    from django.core.cache import cache

    _with_private_score(phase, team, participant, test_set, private_test_set)
    anonymous = AnonymousUser()
    test_sets = list(phase.test_sets.all())
    old = str(
        board_pages.leaderboard_page(phase=phase, test_sets=test_sets, user=anonymous)[
            "boards_html"
        ]
    )
    boardcache.invalidate(test_set_id=test_set.pk, refresh_statistics=False)
    # Another process holds the render lock of the new version.
    real_add = cache.add
    cache_add_calls: list[str] = []

    def busy_add(key, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        cache_add_calls.append(key)
        return False if key.endswith(":rendering") else real_add(key, *args, **kwargs)

    cache.add = busy_add
    try:
        stale = str(
            board_pages.leaderboard_page(
                phase=phase, test_sets=test_sets, user=anonymous
            )["boards_html"]
        )
    finally:
        del cache.add
    assert stale == old and renders[0] == 1
    assert any(k.endswith(":rendering") for k in cache_add_calls)
    # Without the lock held, the new version is rendered.
    board_pages.leaderboard_page(phase=phase, test_sets=test_sets, user=anonymous)
    assert renders[0] == 2


def test_anonymous_visitors_share_one_cached_page_until_a_new_score(
    client,
    phase,
    test_set,
    submit_run,
    bucc_demo,
    outsider,
    task,
    sent,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    built = [0]
    real_page = board_pages.leaderboard_page

    def counting(**kwargs):  # noqa: ANN003, ANN202
        built[0] += 1
        return real_page(**kwargs)

    monkeypatch.setattr(board_pages, "leaderboard_page", counting)
    runs = {method: files["test"] for _, method, files in bucc_demo.runs}
    first = submit_run(runs["dictionary"], method="first-method")
    score_now(first.pk, django_capture_on_commit_callbacks)
    page = client.get(page_url(phase))
    assert b"first-method" in page.content and built[0] == 1
    # Nothing of one visitor's on a shared page: no CSRF token.
    assert b"csrfmiddlewaretoken" not in page.content
    assert b"X-CSRFToken" not in page.content
    again = client.get(page_url(phase))
    assert again.content == page.content and built[0] == 1  # the cached page

    teams.register(task=task, user=outsider, new_team_name="Second team")
    second = submit_run(runs["random"], user=outsider, method="second-method")
    score_now(second.pk, django_capture_on_commit_callbacks)
    assert b"second-method" in client.get(page_url(phase)).content and built[0] == 2

    # Signed-in viewers never get the anonymous page.
    client.force_login(outsider)
    signed_in = client.get(page_url(phase))
    assert b"X-CSRFToken" in signed_in.content and built[0] == 3


def test_a_cached_page_costs_one_query_anonymous_and_three_signed_in(
    client,
    phase,
    test_set,
    private_test_set,
    participant,
    team,
    django_assert_num_queries,
):
    url = page_url(phase)
    client.get(url)
    with django_assert_num_queries(1):  # the phase, its task and test sets
        assert client.get(url).status_code == 200
    client.force_login(participant)
    client.get(url)
    # The user, the phase with its task and test sets, the tasks the user organises
    # (the session and the header's answers come from the cache).
    with django_assert_num_queries(3):
        page = client.get(url)
    assert page.status_code == 200 and b"Signed in as" in page.content


def test_a_cached_anonymous_page_reads_only_what_its_key_holds(
    client, phase, test_set, private_test_set, django_assert_num_queries
):
    """Served from the cache, the page reads the phase's, task's and test sets'
    fields its key holds, not the others (the task's description, settings)."""
    url = page_url(phase)
    first = client.get(url)
    with django_assert_num_queries(1) as captured:
        again = client.get(url)
    assert again.content == first.content
    (sql,) = [q["sql"] for q in captured.captured_queries]
    assert "board_version" in sql and "gold_released" in sql
    for unread in ("description", "task_settings", "opens_at", "counts_for_ranking"):
        assert unread not in sql
    # With a query string (a track, every row) the page takes the full way.
    assert client.get(url + "?rows=all").status_code == 200


def test_the_page_follows_changes_to_the_phase_and_task(
    client, phase, test_set, task, organiser
):
    url = page_url(phase)
    assert b"BUCC test task" in client.get(url).content
    task.title = "Renamed task"
    task.save()
    phase.name = "Final round"
    phase.save()
    page = client.get(url).content
    assert b"Renamed task" in page and b"Final round" in page
    test_set.name = "Renamed set"
    test_set.save()
    assert b"Renamed set" in client.get(url).content
    task.state = "draft"
    task.save()
    assert client.get(url).status_code == 404  # drafts: organisers only
    client.force_login(organiser)
    assert b"Renamed set" in client.get(url).content


def test_a_phase_without_test_sets_and_an_unknown_phase(client, phase, task):  # noqa: ANN001
    page = client.get(page_url(phase))
    assert page.status_code == 200 and b"Evaluation leaderboard" in page.content
    assert (
        client.get(f"/tasks/{task.slug}/no-such-phase/leaderboard/").status_code == 404
    )
    assert (
        client.get(f"/tasks/no-such-task/{phase.slug}/leaderboard/").status_code == 404
    )


def test_a_lost_cache_never_brings_back_an_old_board(
    client,
    phase,
    test_set,
    submit_run,
    demo_run,
    sent,
    django_capture_on_commit_callbacks,
):
    """Redis may evict keys or restart: the versions are in the database, beside
    the data they version, so whatever the cache lost, a board cached under an old
    version is never served again."""
    from django.test import override_settings

    client.get(page_url(phase))  # the empty board is cached
    before = stored_part(boardcache.version(test_set.pk))
    sub = submit_run(demo_run, method="after-the-loss")
    score_now(sub.pk, django_capture_on_commit_callbacks)
    after = stored_part(boardcache.version(test_set.pk))
    assert after > before  # in the database
    # Redis restarted: every key lost (an empty cache of its own, as clearing the
    # shared one would also empty the other test processes' caches).
    empty = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(CACHES=empty):
        assert stored_part(boardcache.version(test_set.pk)) == after  # the version not
        assert b"after-the-loss" in client.get(page_url(phase)).content
