"""The ORCID iDs in the overview-paper package's systems table (issue 44, item 4):
the iDs the listed teams' members linked by signing in with ORCID (allauth's social
account of the ``orcid`` provider, as its sign-in stores it), only for the systems
the package lists for the viewer: a team whose runs are all hidden is in no
package, and neither is its members' iD."""

from __future__ import annotations

import csv
import io
import json

import pytest
from allauth.socialaccount.models import SocialAccount

from evalhub.competitions.services import orcid, teams
from evalhub.rankings.services import package, package_files
from tests.rankings.helpers import scored
from tests.rankings.test_package import world  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db

IDS = ["0000-0002-1825-0097", "0000-0001-5109-3700", "0000-0003-1415-9269"]


def _link(user, uid: str, provider: str = "orcid") -> None:  # noqa: ANN001
    SocialAccount.objects.create(user=user, provider=provider, uid=uid)


def _files(phase, user) -> dict[str, bytes]:  # noqa: ANN001
    return package_files.files(package.build(phase=phase, user=user, render=True))


def test_no_column_while_nobody_linked_an_orcid_id(world, phase, organiser):  # noqa: ANN001, F811
    files = _files(phase, organiser)
    assert "ORCID" not in files["systems.tex"].decode()
    assert "orcid" not in files["systems.csv"].decode().splitlines()[0]


def test_the_listed_teams_members_ids(  # noqa: PLR0913
    world,  # noqa: F811
    phase,
    organiser,
    bucc_demo,
    django_user_model,
    private_test_set,
):  # noqa: ANN001
    first, second = world["subs"][0], world["subs"][1]
    _link(world["users"][0], IDS[0])
    # A second member of the first team, linked too; and one who is not.
    mate = django_user_model.objects.create_user("mate")
    first.team.members.add(mate, django_user_model.objects.create_user("nobody"))
    _link(mate, IDS[1])
    _link(world["users"][1], "not-an-orcid-id")  # never shown
    _link(world["users"][1], "12345", provider="github")
    # A team whose only run is hidden: in no package, nor its member's iD.
    shy = django_user_model.objects.create_user("shy")
    teams.register(task=phase.task, user=shy, new_team_name="Shy")
    hidden = scored(
        phase, shy, bucc_demo.runs[0][2]["test"], "shy-method", figures=False
    )
    hidden.hidden = True
    hidden.save()
    _link(shy, IDS[2])

    private_test_set.revealed = True
    private_test_set.save()
    for viewer in (organiser, None):
        files = _files(phase, viewer)
        rows = list(csv.DictReader(io.StringIO(files["systems.csv"].decode())))
        by_method = {row["method"]: row["orcid"] for row in rows}
        # Members by user name: "mate" before "pk0".
        assert by_method[first.method_name] == f"{IDS[1]}; {IDS[0]}"
        assert by_method[second.method_name] == ""
        tex = files["systems.tex"].decode()
        assert "ORCID iDs" in tex and f"{IDS[1]}; {IDS[0]}" in tex
        for content in files.values():
            assert IDS[2].encode() not in content
            assert b"not-an-orcid-id" not in content
        data = json.loads(files["package.json"])
        shown = next(s for s in data["systems"] if s["run"] == first.pk)
        assert shown["columns"]["orcid"]["value"] == f"{IDS[1]}; {IDS[0]}"


def test_orcid_ids_answers_for_the_accounts_asked(django_user_model):  # noqa: ANN001
    one = django_user_model.objects.create_user("one")
    two = django_user_model.objects.create_user("two")
    _link(one, IDS[0])
    _link(two, "12345", provider="github")
    assert orcid.orcid_ids([one.pk, two.pk]) == {one.pk: IDS[0]}
    assert orcid.orcid_ids([two.pk]) == {}
    assert orcid.url(IDS[0]) == "https://orcid.org/0000-0002-1825-0097"
