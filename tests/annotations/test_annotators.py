"""The annotator role: organisers assign it from the web; annotators tag, undo and
see progress and kappa on their task's test sets, and nothing of the gold, hidden
scores, dashboard, admin or other tasks."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from evalhub.annotations.models import Annotator, Judgement
from evalhub.annotations.services import access, rescoring
from evalhub.competitions.models import Score
from tasks.mt_lexicon_probe.tags import normalise_translation

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("without_plots")]

SHARED = ("adj-low-002", normalise_translation("Dies ist Dieb-isch."))


def _gold_forms(mt_demo, runs) -> list[bytes]:  # noqa: ANN001
    """The gold as a response could carry it: its lines, and every reference that
    is not part of a translation the annotator is shown anyway."""
    text = mt_demo.test_sets[0].gold["references"].decode()
    shown = " ".join(
        sub.file.open("rb").read().decode() for sub in runs.values()
    ).casefold()
    forms = [line.encode() for line in text.splitlines() if "\t" in line]
    for line in text.splitlines():
        for ref in line.partition("\t")[2].split("|"):
            if ref and ref.casefold() not in shown:
                forms.append(ref.encode())
    return forms


def _annotation_urls(test_set) -> dict[str, str]:  # noqa: ANN001
    return {
        "list": reverse("annotations:annotation-list"),
        "detail": reverse("annotations:annotation-detail", args=[test_set.pk]),
        "scores": reverse("annotations:annotation-scores", args=[test_set.pk]),
        "tag": reverse("annotations:judgement-create", args=[test_set.pk]),
        "undo": reverse("annotations:judgement-undo", args=[test_set.pk]),
    }


def test_organiser_assigns_and_removes_annotators_from_the_web(
    client, mt_task, organiser, django_user_model
):
    anna = django_user_model.objects.create_user("anna")
    url = reverse("annotations:annotator-list", args=[mt_task.slug])
    client.force_login(organiser)
    assert "No annotator yet" in client.get(url).content.decode()
    assert client.post(url, {"username": "anna"}).status_code == 302
    assert access.can_annotate(anna, mt_task) and not access.can_manage(anna, mt_task)
    for username, error in (
        ("anna", "anna is an annotator already"),
        ("nobody", "there is no user called &#x27;nobody&#x27;"),
        ("org", "org organises this task"),
    ):
        response = client.post(url, {"username": username})
        assert response.status_code == 422 and error in response.content.decode()
    row = Annotator.objects.get(user=anna)
    assert row.added_by == organiser and "anna" in client.get(url).content.decode()
    remove = reverse("annotations:annotator-remove", args=[mt_task.slug, row.pk])
    assert client.post(remove).status_code == 302
    assert not access.can_annotate(anna, mt_task)
    dashboard = reverse("competitions:task-dashboard", args=[mt_task.slug])
    assert url in client.get(dashboard).content.decode()


def test_only_an_mt_lexicon_probe_dashboard_links_the_annotation_pages(
    client, mt_task, task, organiser
):
    """The core's dashboard asks ``signals.dashboard_links``; annotations answers for
    its task type only."""
    client.force_login(organiser)
    pages = {}
    for t in (mt_task, task):
        url = reverse("competitions:task-dashboard", args=[t.slug])
        pages[t.task_type] = client.get(url).content.decode()
    assert "MT lexicon probing:" in pages["mt_lexicon_probe"]
    assert 'href="/annotate/"' in pages["mt_lexicon_probe"]
    assert "MT lexicon probing" not in pages["bilingual_term_alignment"]


def test_participants_cannot_annotate_their_task(
    client, mt_task, mt_test_set, organiser, annotator, participant
):
    from evalhub.competitions.services import teams

    teams.register(task=mt_task, user=participant, new_team_name="Alpha")
    url = reverse("annotations:annotator-list", args=[mt_task.slug])
    client.force_login(organiser)
    response = client.post(url, {"username": "alice"})
    assert response.status_code == 422
    assert "alice is in a team registered for this task" in response.content.decode()
    # An annotator who registers a team later loses the role's access.
    assert access.can_annotate(annotator, mt_task)
    assert list(access.annotatable_test_sets(annotator)) == [mt_test_set]
    teams.register(task=mt_task, user=annotator, new_team_name="Annie's")
    assert not access.can_annotate(annotator, mt_task)
    assert not access.annotatable_test_sets(annotator).exists()


def test_header_link_follows_the_annotator_rule(
    mt_task, mt_test_set, task, organiser, annotator, participant, django_user_model
):
    """``may_annotate`` (the header's "Annotate" link) agrees with the full rule:
    its one-query shortcut never answers for users the rule lets in."""
    from evalhub.competitions.models import SharedTask
    from evalhub.competitions.services import teams

    boss = django_user_model.objects.create_user("boss", is_superuser=True)
    lone = django_user_model.objects.create_user("lone")
    other = SharedTask.objects.create(
        slug="probe-2", title="Probe 2", task_type="mt_lexicon_probe",
        task_settings=dict(mt_task.task_settings),
    )  # fmt: skip
    other.organisers.add(lone)  # a probe task without test sets: managed only
    expected = {organiser: True, annotator: True, boss: True, lone: True,
                participant: False}  # fmt: skip
    for user, may in expected.items():
        assert access.may_annotate(user) is may, user.username
    assert not access.may_annotate(AnonymousUser())
    # An annotator who registers for the task passes the shortcut, not the rule.
    teams.register(task=mt_task, user=annotator, new_team_name="Annie's")
    assert not access.may_annotate(annotator)
    # Organising a task of another type does not count.
    task.organisers.add(participant)
    assert not access.may_annotate(participant)


def test_the_cached_header_link_follows_every_role_change_at_once(
    mt_task, mt_test_set, organiser, django_user_model
):
    from evalhub.annotations.services import annotators
    from evalhub.competitions.services import teams

    bob = django_user_model.objects.create_user("bob")
    header = access.header_may_annotate
    assert not header(bob)  # now kept in the cache
    row = annotators.add(task=mt_task, username="bob", by=organiser)
    assert header(bob)
    annotators.remove(task=mt_task, annotator_id=row.pk)
    assert not header(bob)
    mt_task.organisers.add(bob)
    assert header(bob)
    bob.organised_tasks.clear()
    assert not header(bob)
    annotators.add(task=mt_task, username="bob", by=organiser)
    assert header(bob)
    teams.register(task=mt_task, user=bob, new_team_name="Bob's")  # participant now
    assert not header(bob)
    # Joining a registered team (rather than registering one) counts too.
    carol = django_user_model.objects.create_user("carol")
    annotators.add(task=mt_task, username="carol", by=organiser)
    assert header(carol)
    bob.teams.get().members.add(carol)
    assert not header(carol)


def test_annotator_tags_undoes_and_sees_progress_and_kappa_without_gold(
    mt_runs, mt_test_set, mt_demo, annotator, organiser, client
):
    urls = _annotation_urls(mt_test_set)
    client.force_login(annotator)
    home = client.get(reverse("competitions:task-list")).content.decode()
    assert urls["list"] in home  # the header's Annotate link
    listing = client.get(urls["list"])
    assert urls["detail"] in listing.content.decode()
    assert "Organiser tools" not in listing.content.decode()
    page = client.get(urls["detail"], {"probe": "adj-low-001"}).content.decode()
    assert "This is weaponless." in page and "Dies ist waffenlos." in page
    assert "proposed c" in page and "contains a reference translation" in page
    assert "contains the reference" not in page
    tagged = client.post(
        urls["tag"], {"probe": SHARED[0], "key": SHARED[1], "tag": "w"}
    )
    assert tagged.status_code == 302
    assert Judgement.objects.get().annotator == annotator
    rescoring.rescore_test_set(test_set_id=mt_test_set.pk)
    assert (
        "tagged w" in client.get(urls["detail"], {"probe": SHARED[0]}).content.decode()
    )
    assert client.post(urls["undo"], {"probe": SHARED[0]}).status_code == 302
    assert Judgement.objects.get().retracted_at is not None
    client.post(urls["tag"], {"probe": SHARED[0], "key": SHARED[1], "tag": "s"})
    client.force_login(organiser)
    client.post(urls["tag"], {"probe": SHARED[0], "key": SHARED[1], "tag": "w"})
    organiser_page = client.get(urls["detail"], {"probe": "adj-low-001"})
    assert "contains the reference “waffenlos”" in organiser_page.content.decode()
    client.force_login(annotator)
    bodies = {
        name: client.get(url).content
        for name, url in urls.items()
        if name in ("list", "detail", "scores")
    }
    assert (
        "annie · org" in bodies["detail"].decode()
        and "Cohen" in bodies["detail"].decode()
    )
    assert "of 81 judged" in bodies["detail"].decode()
    leaks = _gold_forms(mt_demo, mt_runs)
    assert leaks, "the leak check must have something to look for"
    for name, body in bodies.items():
        assert not [f for f in leaks if f in body], name
    # The detection works: the organiser's gold file quotes them.
    gold = reverse("competitions:testset-file", args=[mt_test_set.pk, "references"])
    assert client.get(gold).status_code == 404
    client.force_login(organiser)
    assert any(f in b"".join(client.get(gold).streaming_content) for f in leaks)


def test_annotator_sees_no_private_scores_dashboard_admin_or_other_task(
    mt_runs, mt_test_set, annotator, organiser, client, django_user_model
):
    from evalhub.competitions.models import SharedTask, TestSet

    mt_test_set.visibility = TestSet.Visibility.PRIVATE
    mt_test_set.save()
    task = mt_test_set.phase.task
    urls = _annotation_urls(mt_test_set)
    hidden = [
        f"{v:.4f}"
        for v in Score.objects.filter(
            test_set=mt_test_set, metric=task.type.primary_metric
        ).values_list("value", flat=True)
        if v is not None
    ]
    assert hidden
    client.force_login(organiser)
    assert any(h in client.get(urls["scores"]).content.decode() for h in hidden)
    client.force_login(annotator)
    for name in ("detail", "scores"):
        body = client.get(urls[name]).content.decode()
        assert "hidden until revealed" in body, name
        assert not any(h in body for h in hidden), name
    run = mt_runs["wide"]
    denied = [
        reverse("competitions:task-dashboard", args=[task.slug]),
        reverse("competitions:testset-file", args=[mt_test_set.pk, "references"]),
        reverse("competitions:run-item-detail", args=[run.pk, mt_test_set.pk]),
        reverse("annotations:probe-set-build", args=[task.slug]),
        reverse("annotations:annotator-list", args=[task.slug]),
    ]
    for url in denied:
        assert client.get(url).status_code == 404, url
    assert client.get(reverse("admin:index")).status_code == 302  # to the login
    # Another probe task: its test sets are not theirs.
    other = SharedTask.objects.create(
        slug="other-probe", title="Other", task_type="mt_lexicon_probe"
    )
    other_set = TestSet.objects.create(
        phase=mt_test_set.phase.__class__.objects.create(
            task=other,
            slug="p",
            name="P",
            opens_at=mt_test_set.phase.opens_at,
            closes_at=mt_test_set.phase.closes_at,
        ),
        slug="t",
        name="T",
    )
    assert not access.can_annotate(annotator, other)
    other_urls = _annotation_urls(other_set)
    for name in ("detail", "scores"):
        assert client.get(other_urls[name]).status_code == 404, name
    for name in ("tag", "undo"):
        post = {"probe": SHARED[0], "key": SHARED[1], "tag": "c"}
        assert client.post(other_urls[name], post).status_code == 404, name
