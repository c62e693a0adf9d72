"""Embeds and badges of the public boards: framed only by the origins the
organiser lists (entered on the console's page, validated), the public board
alone, cached under the board's version (a hidden run leaves them at once),
user text escaped in the SVG, the snippets on the leaderboard page."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from evalhub.competitions import jobs
from evalhub.competitions.services.runs import hiding

pytestmark = pytest.mark.django_db

ARGS = ["bucc-test", "evaluation"]
METHOD = "zz-embedded-method"


@pytest.fixture
def scored(submit_run, demo_run, test_set, private_test_set):  # noqa: ANN001, ANN201
    sub = submit_run(demo_run)
    type(sub).objects.filter(pk=sub.pk).update(method_name=METHOD)
    jobs.score_submission(sub.pk)
    sub.refresh_from_db()
    assert sub.status == "scored"
    return sub


def _embed(test_set) -> str:  # noqa: ANN001
    return reverse("embeds:board-embed", args=[*ARGS, test_set.pk])


def _badge(test_set) -> str:  # noqa: ANN001
    return reverse("embeds:board-badge", args=[*ARGS, test_set.pk])


def _ancestors(response) -> str:  # noqa: ANN001
    policy = response["Content-Security-Policy"]
    part = next(p.strip() for p in policy.split(";") if "frame-ancestors" in p)
    return part.removeprefix("frame-ancestors").strip()


def _save_origins(client, organiser, text: str):  # noqa: ANN001, ANN202
    client.force_login(organiser)
    url = reverse("console:embeds", args=["bucc-test"])
    response = client.post(url, {"origins": text})
    client.logout()
    return response


def test_embed_framed_by_the_organisers_origins_only(
    client, scored, test_set, organiser
):
    url = _embed(test_set)
    first = client.get(url)
    assert first.status_code == 200
    assert _ancestors(first) == "'none'"
    assert first["X-Frame-Options"] == "DENY"
    assert "<script" not in first.content.decode()
    response = _save_origins(
        client,
        organiser,
        "https://Workshop.Example.org/\n\nhttp://127.0.0.1:8000\nhttps://*.example.net\n"
        "https://workshop.example.org\nhttp://[::1]:8080\nhttps://bücher.example",
    )
    assert response.status_code == 302
    framed = client.get(url)
    assert _ancestors(framed) == (
        "https://workshop.example.org http://127.0.0.1:8000 https://*.example.net "
        "http://[::1]:8080 https://xn--bcher-kva.example"
    )
    assert "X-Frame-Options" not in framed
    # The same board, the same body: only the headers follow the origins.
    assert framed.content == first.content
    overall = client.get(reverse("embeds:overall-embed", args=ARGS))
    assert _ancestors(overall) == _ancestors(framed)
    # Other pages stay unframable.
    board = client.get(reverse("competitions:leaderboard-detail", args=ARGS))
    assert board["X-Frame-Options"] == "DENY"
    # Cleared: no page may frame it again.
    _save_origins(client, organiser, "")
    again = client.get(url)
    assert _ancestors(again) == "'none'" and again["X-Frame-Options"] == "DENY"


@pytest.mark.parametrize(
    "text",
    [
        "*",
        "https:",
        "https://*",
        "https://*.org",
        "'self'",
        "javascript://example.org",
        "https://example.org/path",
        "https://user@example.org",
        "https://example.org:*",
        "https://example.org:99999",
        "https://exa mple.org",
        "https://example.org; script-src *",
        "https://good.example.org\nftp://example.org",
    ],
)
def test_console_refuses_what_is_no_safe_origin(client, task, organiser, text):
    response = _save_origins(client, organiser, text)
    assert response.status_code == 422
    client.force_login(organiser)
    page = client.get(reverse("console:embeds", args=["bucc-test"])).content.decode()
    assert "good.example.org" not in page  # nothing was saved


def test_console_page_for_the_tasks_organisers_only(client, task, participant):
    url = reverse("console:embeds", args=["bucc-test"])
    assert client.get(url).status_code == 302  # log in first
    client.force_login(participant)
    assert client.get(url).status_code == 404
    assert client.post(url, {"origins": "https://evil.example"}).status_code == 404
    from evalhub.embeds.models import EmbedSettings

    assert not EmbedSettings.objects.exists()


def test_embed_and_badge_show_the_public_board_and_follow_it(
    client, scored, test_set, private_test_set, participant
):
    embed = client.get(_embed(test_set)).content.decode()
    assert scored.team.name in embed and scored.method_name in embed
    badge = client.get(_badge(test_set))
    assert badge["Content-Type"] == "image/svg+xml"
    assert scored.team.name in badge.content.decode()
    # The private test set: no score until revealed, the same for its own team.
    client.force_login(participant)
    private = client.get(_embed(private_test_set)).content.decode()
    assert "private until the organisers reveal" in private
    assert scored.method_name not in private
    assert "no public score" in client.get(_badge(private_test_set)).content.decode()
    # The team hides its run: the embed and badge leave it at once.
    etag = client.get(_embed(test_set))["ETag"]
    hiding.set_hidden(submission=scored, user=participant, hidden=True)
    client.logout()
    after = client.get(_embed(test_set))
    assert after["ETag"] != etag
    assert scored.method_name not in after.content.decode()
    assert scored.team.name not in client.get(_badge(test_set)).content.decode()
    # A browser asking again with the old version's tag gets the new one.
    fresh = client.get(_embed(test_set), HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200
    same = client.get(_embed(test_set), HTTP_IF_NONE_MATCH=after["ETag"])
    assert same.status_code == 304


def test_draft_task_has_no_embed(client, scored, test_set, organiser):
    task = scored.phase.task
    task.state = "draft"
    task.save()
    client.force_login(organiser)  # organisers too: the embed is the public's
    for url in (
        _embed(test_set),
        _badge(test_set),
        reverse("embeds:overall-embed", args=ARGS),
        reverse("embeds:overall-badge", args=ARGS),
    ):
        assert client.get(url).status_code == 404, url


def test_badge_escapes_user_text_and_is_sized_by_it(client, scored, test_set):
    from evalhub.competitions.models import Submission, Team

    first = client.get(_badge(test_set)).content
    width = float(ET.fromstring(first).get("width"))
    Team.objects.filter(pk=scored.team_id).update(
        name='<script>alert("x")</script> & Co\x01 with a much longer name'
    )
    Submission.objects.filter(pk=scored.pk).update(method_name="a]b'c")
    from evalhub.competitions.services.boards import boardcache

    boardcache.invalidate(test_set_id=test_set.pk)
    body = client.get(_badge(test_set)).content
    root = ET.fromstring(body)  # well-formed XML: the control character is gone
    assert b"<script>" not in body and b"&lt;script&gt;" in body
    assert float(root.get("width")) > width + 100
    texts = [
        "".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")
    ]
    assert any('<script>alert("x")</script> & Co with' in t for t in texts)


def test_leaderboard_page_offers_the_snippets(client, scored, test_set, organiser):
    page = client.get(reverse("competitions:leaderboard-detail", args=ARGS))
    html = page.content.decode()
    assert "Embed these boards on another site" in html
    assert _embed(test_set) in html and _badge(test_set) in html
    assert reverse("embeds:overall-embed", args=ARGS) in html
    assert reverse("console:embeds", args=["bucc-test"]) not in html
    client.force_login(organiser)
    html = client.get(reverse("competitions:leaderboard-detail", args=ARGS)).content
    assert reverse("console:embeds", args=["bucc-test"]).encode() in html


def test_a_tracks_board_has_its_embed(client, scored, phase, test_set):
    from evalhub.competitions.services.data import tracks

    tracks.save_track(phase=phase, slug="closed", name="Closed <b>")
    url = _embed(test_set)
    embed = client.get(url + "?track=closed").content.decode()
    assert "Closed &lt;b&gt; track" in embed
    assert client.get(url + "?track=none").status_code == 404
    badge = client.get(_badge(test_set) + "?track=closed").content
    assert b"Closed &lt;b&gt;" in badge


def test_the_origins_go_into_the_tasks_archive(
    client, task, organiser, isolated_storage, tmp_path
):
    import io

    from django.core.management import call_command

    from evalhub.competitions.models import SharedTask
    from evalhub.embeds.services import origins

    _save_origins(client, organiser, "https://workshop.example.org")
    path = tmp_path / "archive.zip"
    call_command("archive", "export", task.slug, str(path), stdout=io.StringIO())
    task_id = task.pk
    task.delete()
    assert origins.allowed(task=task_id) == []  # forgotten with the row
    call_command("archive", "import", str(path), stdout=io.StringIO())
    imported = SharedTask.objects.get(slug="bucc-test")
    assert origins.allowed(task=imported) == ["https://workshop.example.org"]
