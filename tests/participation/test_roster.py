"""The roster (issue 44, item 2): the console's Participants page, its CSV, the
organiser API; ``roster.select`` is the one rule of the filters. Fact sheet and
paper come from the factsheets app through the core's extension points."""

from __future__ import annotations

import csv
import io

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse

from evalhub.competitions.services.runs import finals
from evalhub.factsheets.models import PaperLink, Question
from evalhub.participation.services import roster
from tests.participation.helpers import accept, client_of, set_terms

pytestmark = pytest.mark.django_db

FORMULA = '=HYPERLINK("http://evil.example","x")'


@pytest.fixture
def world(organiser, participant, outsider, team, other_team, task, scored):  # noqa: ANN001, ANN201
    EmailAddress.objects.create(
        user=participant, email="alice@uni.example", verified=True, primary=True
    )
    EmailAddress.objects.create(user=participant, email="claim@x.example")
    client_of(participant).post(
        reverse("participation:profile"),
        {"affiliation": FORMULA, "country": "Switzerland"},
    )
    finals.set_final(submission=scored, user=participant, final=True)
    PaperLink.objects.create(
        phase=scored.phase,
        team=team,
        method_name=scored.method_name,
        title="Alpha at BUCC",
        url="https://papers.example/alpha",
    )
    Question.objects.create(
        task=task, key="data", label="Data used?", kind="yes_no", required=True
    )
    set_terms(organiser, task, "Research only.")
    accept(participant, task, 1)
    return {"alpha": team, "mallory": other_team, "run": scored}


def _names(rows) -> list[str]:  # noqa: ANN001
    return [r.name for r in rows]


def test_the_filters_and_the_search_pick_the_teams(world, task, organiser):
    def pick(key: str = "", search: str = "") -> list[str]:
        return _names(
            roster.select(task=task, viewer=organiser, filter=key, search=search)
        )

    assert pick() == ["Alpha", "Mallory's"]
    assert pick("no-final-run") == ["Mallory's"]
    assert pick("no-paper-link") == ["Mallory's"]
    assert pick("terms-not-accepted") == ["Mallory's"]
    assert pick("no-fact-sheet") == ["Alpha", "Mallory's"]  # Alpha answered none
    assert pick("pending") == []
    assert pick(search="ALICE@uni") == ["Alpha"]
    assert pick(search="switzerland") == ["Alpha"]
    assert pick(search="claim@x") == []  # an unverified address is nobody's
    alpha = roster.select(task=task, viewer=organiser)[0]
    (member,) = alpha.members
    assert member.emails == ("alice@uni.example",)
    assert (member.accepted, member.accepted_current) == (1, True)
    assert alpha.finals == ((world["run"].pk, world["run"].method_name),)
    assert alpha.paper == "Alpha at BUCC"
    assert alpha.paper_url == "https://papers.example/alpha"
    assert alpha.factsheet == "1 required answer missing"
    with pytest.raises(roster.UnknownFilter):
        roster.select(task=task, viewer=organiser, filter="nope")
    # New terms: nobody has accepted them.
    set_terms(organiser, task, "Research only. Cite us.")
    assert pick("terms-not-accepted") == ["Alpha", "Mallory's"]


def test_the_console_page_and_its_csv(world, task, organiser):
    c = client_of(organiser)
    url = reverse("console:participants", args=[task.slug])
    page = c.get(url, {"filter": "no-final-run"}).content.decode()
    assert "Mallory&#x27;s" in page and "alice@uni.example" not in page
    page = c.get(url).content.decode()
    assert "alice@uni.example" in page and "claim@x.example" not in page
    assert "https://papers.example/alpha" in page
    nav = c.get(reverse("competitions:task-dashboard", args=[task.slug]))
    assert url in nav.content.decode()
    export = c.get(reverse("console:participants-export", args=[task.slug]))
    assert export["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(export.content.decode())))
    alice = next(r for r in rows if r["member"] == "alice")
    assert alice["affiliation"] == "'" + FORMULA  # a formula is text, not run
    assert alice["verified_emails"] == "alice@uni.example"
    assert alice["accepted_current_terms"] == "yes"
    narrowed = c.get(
        reverse("console:participants-export", args=[task.slug]),
        {"filter": "terms-not-accepted"},
    )
    assert "alice" not in narrowed.content.decode()


def test_the_organiser_api(world, task, tokens):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {tokens['organiser']}"}
    url = reverse("api:api-v1:roster", args=[task.slug])
    body = Client().get(url, **headers).json()
    assert [t["team"] for t in body["teams"]] == ["Alpha", "Mallory's"]
    assert body["teams"][0]["members"][0]["emails"] == ["alice@uni.example"]
    assert ("no-final-run", "No final run yet") in [
        (f["key"], f["label"]) for f in body["filters"]
    ]
    narrowed = Client().get(url, {"filter": "no-paper-link"}, **headers).json()
    assert [t["team"] for t in narrowed["teams"]] == ["Mallory's"]
    assert Client().get(url, {"filter": "nope"}, **headers).status_code == 422
    exported = Client().get(
        reverse("api:api-v1:roster-csv", args=[task.slug]), **headers
    )
    assert exported.status_code == 200
    assert "'" + FORMULA.replace('"', '""') in exported.content.decode()


def test_a_linked_orcid_id_reaches_the_roster(
    world, task, organiser, tokens, participant
):
    """The iD a member linked by signing in with ORCID is on the page, the CSV and
    the API (issue 44, item 4); a malformed uid is never shown."""
    from allauth.socialaccount.models import SocialAccount

    SocialAccount.objects.create(
        user=participant, provider="orcid", uid="0000-0002-1825-0097"
    )
    c = client_of(organiser)
    page = c.get(reverse("console:participants", args=[task.slug])).content.decode()
    assert "https://orcid.org/0000-0002-1825-0097" in page
    export = c.get(reverse("console:participants-export", args=[task.slug]))
    rows = list(csv.DictReader(io.StringIO(export.content.decode())))
    assert (
        next(r for r in rows if r["member"] == "alice")["orcid"]
        == "0000-0002-1825-0097"
    )
    headers = {"HTTP_AUTHORIZATION": f"Bearer {tokens['organiser']}"}
    body = (
        Client().get(reverse("api:api-v1:roster", args=[task.slug]), **headers).json()
    )
    assert body["teams"][0]["members"][0]["orcid"] == "0000-0002-1825-0097"
