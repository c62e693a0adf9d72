"""Who may create tasks: ``EVALHUB_TASK_CREATORS`` (staff, verified, group:<name>),
the grants site staff make on ``/staff/creators/``, and every page that asks the rule
(``/new/task/``, ``/new/bundle/``, the admin's "add task", the header, the home page),
all through web requests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from evalhub.competitions.models import CreatorChange, SharedTask
from evalhub.competitions.services import roles
from evalhub.competitions.services.data import demo
from tests.competitions.test_bundles import MANIFEST, demo_files  # noqa: F401
from tests.console.test_setup_tasks import _term_extraction_post
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
CREATE_PAGES = ("/new/task/", "/new/bundle/")
STAFF_PAGE = "/staff/creators/"


@pytest.fixture
def staffer(django_user_model):  # noqa: ANN001, ANN201
    return django_user_model.objects.create_user(
        "staffer", password="pw-staffer-1", email="staff@example.org", is_staff=True
    )


@pytest.fixture
def carol(django_user_model):  # noqa: ANN001, ANN201
    """A user who is not staff: whether she may create tasks is the question."""
    return django_user_model.objects.create_user(
        "carol", password="pw-carol-1", email="Carol.Lab@Example.org"
    )


def _statuses(client, user) -> list[int]:  # noqa: ANN001
    client.force_login(user)
    return [client.get(url).status_code for url in CREATE_PAGES]


def _offers_creation(client, user) -> bool:  # noqa: ANN001
    """The header offers "Create a task", and so does the home page, with the
    bundle import beside it; both or neither."""
    client.force_login(user)
    html = client.get("/").content.decode()
    nav = html.split('<nav aria-label="Account">', 1)[1].split("</nav>", 1)[0]
    header = '<a href="/new/task/">Create a task</a>' in nav
    home = (
        '<a class="button" href="/new/task/">Create a task</a> or '
        '<a href="/new/bundle/">import a task bundle</a>'
    ) in html
    assert header == home, html
    return header


def test_by_default_only_staff_create_tasks(client, staffer, carol, settings):
    assert settings.TASK_CREATORS == "staff"
    assert _statuses(client, carol) == [403, 403]
    assert not _offers_creation(client, carol)
    assert _statuses(client, staffer) == [200, 200]
    assert _offers_creation(client, staffer)
    client.logout()
    assert [client.get(url).status_code for url in CREATE_PAGES] == [302, 302]
    assert "Create a task" not in client.get("/").content.decode()


def test_group_setting_lets_the_group_create_tasks(
    client, carol, participant, settings, isolated_storage
):
    settings.TASK_CREATORS = "group:reviewers"
    carol.groups.add(Group.objects.create(name="reviewers"))
    assert _statuses(client, participant) == [403, 403]
    assert not _offers_creation(client, participant)
    assert _statuses(client, carol) == [200, 200]
    assert _offers_creation(client, carol)
    response = client.post("/new/task/", _term_extraction_post())
    assert response.status_code == 302, response.content.decode()[:2000]
    task = SharedTask.objects.get(slug="acter-terms")
    assert task.owner == carol and roles.is_organiser(carol, task)
    # Another value: the same group no longer counts.
    settings.TASK_CREATORS = "staff"
    assert _statuses(client, carol) == [403, 403]


def test_verified_setting_refuses_users_without_a_verified_address(
    client, carol, settings
):
    """Without django-allauth's account app no address is verified: an e-mail
    address on the account is not enough."""
    settings.TASK_CREATORS = "verified"
    assert carol.email
    if apps.is_installed("allauth.account"):
        from allauth.account.models import EmailAddress

        EmailAddress.objects.create(
            user=carol, email=carol.email, verified=False, primary=True
        )
    assert _statuses(client, carol) == [403, 403]
    assert not _offers_creation(client, carol)


def test_verified_setting_lets_verified_users_create_tasks(client, carol, settings):
    if not apps.is_installed("allauth.account"):
        pytest.skip(
            "django-allauth's account app is not installed (issue 29's accounts)"
        )
    from allauth.account.models import EmailAddress

    settings.TASK_CREATORS = "verified"
    EmailAddress.objects.create(
        user=carol, email=carol.email, verified=True, primary=True
    )
    assert _statuses(client, carol) == [200, 200]
    settings.TASK_CREATORS = "staff"
    assert _statuses(client, carol) == [403, 403]


@pytest.mark.parametrize(
    "value", ["admins", "group:  ", "verified,staff", "group:" + "g" * 151]
)
def test_a_bad_setting_stops_the_platform_at_start(value: str):
    env = {**os.environ, "EVALHUB_TASK_CREATORS": value}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    assert "ImproperlyConfigured: EVALHUB_TASK_CREATORS must be staff, verified or" in (
        done.stderr
    ), done.stderr[-2000:]


def test_good_settings_are_read_trimmed(monkeypatch):
    """The helper ``settings.py`` reads the setting with (``env.env_task_creators``)."""
    from evalhub.env import env_task_creators

    monkeypatch.setenv("EVALHUB_TASK_CREATORS", " group: task creators ")
    assert env_task_creators("EVALHUB_TASK_CREATORS") == "group:task creators"
    monkeypatch.setenv("EVALHUB_TASK_CREATORS", " ")
    assert env_task_creators("EVALHUB_TASK_CREATORS") == "staff"


def test_the_staff_page_is_refused_to_everyone_but_staff(client, carol, staffer):
    assert client.get(STAFF_PAGE).status_code == 302  # log in first
    assert (
        client.post(STAFF_PAGE, {"user": carol.pk, "action": "grant"}).status_code
        == 302
    )
    client.force_login(carol)
    assert client.get(STAFF_PAGE).status_code == 404
    response = client.post(STAFF_PAGE, {"user": carol.pk, "action": "grant"})
    assert response.status_code == 404
    assert not CreatorChange.objects.exists()
    assert not carol.groups.exists()
    assert _statuses(client, carol) == [403, 403]
    assert 'href="/staff/creators/"' not in client.get("/").content.decode()
    client.force_login(staffer)
    assert (
        'href="/staff/creators/">Task creators</a>' in client.get("/").content.decode()
    )


def test_staff_grant_and_withdraw_the_right_on_their_page(
    client, carol, staffer, participant
):
    # Carol sees the home page first: her header's answer is in the cache.
    assert not _offers_creation(client, carol)
    client.force_login(staffer)
    for query in ("caro", "LAB@example"):  # by user name or by e-mail address
        page = client.get(STAFF_PAGE, {"q": query}).content.decode()
        assert '<th scope="row">carol</th>' in page, query
        assert "alice" not in page
    response = client.post(
        STAFF_PAGE, {"user": carol.pk, "action": "grant", "q": "caro"}
    )
    assert (
        response.status_code == 302 and response["Location"] == f"{STAFF_PAGE}?q=caro"
    )
    change = CreatorChange.objects.get()
    assert (change.user, change.granted, change.by) == (carol, True, staffer)
    page = client.get(STAFF_PAGE).content.decode()
    assert re.search(r"granted to <strong>carol</strong> by staffer", page)
    assert "yes: granted by site staff" in page
    # Granting twice changes nothing.
    client.post(STAFF_PAGE, {"user": carol.pk, "action": "grant"})
    assert CreatorChange.objects.count() == 1
    # Carol's header shows the link at once, and the pages let her in.
    assert _offers_creation(client, carol)
    assert _statuses(client, carol) == [200, 200]

    client.force_login(staffer)
    client.post(STAFF_PAGE, {"user": carol.pk, "action": "withdraw"})
    assert [c.granted for c in CreatorChange.objects.all()] == [False, True]
    page = client.get(STAFF_PAGE).content.decode()
    assert re.search(r"withdrawn from <strong>carol</strong> by staffer", page)
    assert not _offers_creation(client, carol)
    assert _statuses(client, carol) == [403, 403]


def test_a_granted_user_creates_a_task_from_a_bundle(
    client,
    carol,
    staffer,
    demo_files,  # noqa: F811
    isolated_storage,
):
    client.force_login(staffer)
    client.post(STAFF_PAGE, {"user": carol.pk, "action": "grant"})
    client.force_login(carol)
    data = zip_bytes({"task.yaml": MANIFEST.encode(), **demo_files})
    ok = client.post("/new/bundle/", {"bundle": SimpleUploadedFile("b.zip", data)})
    assert ok.status_code == 302 and ok["Location"] == "/tasks/bundled/"
    task = SharedTask.objects.get(slug="bundled")
    assert roles.is_organiser(carol, task) and task.owner == carol
    # Her dashboard is hers without any staff flag.
    assert client.get("/tasks/bundled/dashboard/").status_code == 200


def test_withdrawing_leaves_the_tasks_someone_organises(
    client, carol, staffer, isolated_storage
):
    client.force_login(staffer)
    client.post(STAFF_PAGE, {"user": carol.pk, "action": "grant"})
    client.force_login(carol)
    assert client.post("/new/task/", _term_extraction_post()).status_code == 302
    client.force_login(staffer)
    client.post(STAFF_PAGE, {"user": carol.pk, "action": "withdraw"})
    client.force_login(carol)
    assert client.get("/tasks/acter-terms/dashboard/").status_code == 200
    assert client.get("/new/task/").status_code == 403  # how to get the right


def test_no_page_links_organisers_to_the_admin(client, organiser, carol):
    """The header once offered "Organiser admin" and the home page "with a form"
    (both ``/admin/``)."""
    for user in (organiser, carol):
        client.force_login(user)
        html = client.get("/").content.decode()
        assert "/admin/" not in html and "Organiser admin" not in html


def test_nobody_else_decides_who_may_create_tasks():
    """``is_staff`` decides nothing about creating tasks outside the rule: it is read
    only by the rule itself, the admin (for staff only), the staff page and the demo
    seed (which makes the demo's organiser), and the header's account links give it
    to their template, which reads it for the staff link only."""
    allowed = {
        "evalhub/competitions/account_links.py",
        "evalhub/competitions/services/roles.py",
        "evalhub/competitions/admin.py",
        "evalhub/competitions/views/staff.py",
        "evalhub/competitions/services/data/demo.py",
    }
    found = {
        str(path.relative_to(ROOT))
        for path in (ROOT / "evalhub").rglob("*.py")
        if "is_staff" in path.read_text(encoding="utf-8")
    }
    assert found <= allowed, found - allowed
    for path in (ROOT / "templates").rglob("*.html"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "is_staff" in line:
                assert "competitions:creator-list" in line, (path, line)


def test_the_command_grants_and_withdraws_as_the_page_does(client, carol, capsys):
    call_command("task_creators", "grant", "carol")
    assert "is granted to carol" in capsys.readouterr().out
    assert _statuses(client, carol) == [200, 200]
    change = CreatorChange.objects.get()
    assert (change.user, change.granted, change.by) == (carol, True, None)
    call_command("task_creators", "list")
    assert "carol: granted by site staff" in capsys.readouterr().out
    with pytest.raises(CommandError, match="no such user: nobody"):
        call_command("task_creators", "withdraw", "carol", "nobody")
    assert _statuses(client, carol) == [200, 200]  # nothing changed
    call_command("task_creators", "withdraw", "carol")
    assert _statuses(client, carol) == [403, 403]


def test_the_demo_organiser_creates_tasks_and_grants_the_right(
    client, carol, isolated_storage
):
    demo.seed_demo(slugs=["term_extraction"], with_runs=False)
    assert client.login(username="organiser", password=demo.DEMO_PASSWORD)
    assert [client.get(url).status_code for url in CREATE_PAGES] == [200, 200]
    html = client.get("/").content.decode()
    assert 'href="/staff/creators/">Task creators</a>' in html
    client.post(STAFF_PAGE, {"user": carol.pk, "action": "grant"})
    assert _statuses(client, carol) == [200, 200]
