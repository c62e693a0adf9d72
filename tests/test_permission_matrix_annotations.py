"""Permission matrix on an MT probing task: every annotation URL and the gold /
private-score URLs, requested as anonymous, participant, other team, annotator and
organiser; no response to a non-organiser may contain a gold line or a score of the
private probe test set. The project-wide matrix is in
tests/test_permission_matrix.py.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import get_resolver, reverse

from tests.annotations.fixtures import (  # noqa: F401  (fixtures)
    annotator,
    mt_demo,
    mt_runs,
    mt_task,
    mt_test_set,
    submit_scored,
    without_plots,
)
from tests.api.fixtures import body, private_score_forms
from tests.permission_world import _walk

pytestmark = pytest.mark.django_db


ANNOTATION_ROLES = ("anonymous", "participant", "other_team", "annotator", "organiser")
ANNOTATE = (404, 404, 404, 200, 200)
ANNOTATE_POST = (404, 404, 404, 302, 302)
MANAGE = (404, 404, 404, 404, 200)
MANAGE_POST = (404, 404, 404, 404, 302)
#: (url name, method, expected per ANNOTATION_ROLES); every ``annotations:`` URL name
#: must be here. ``{public}``/``{secret}`` are the two probe test sets.
ANNOTATION_TABLE: tuple[tuple[str, str, str, tuple[int, ...]], ...] = (
    ("annotations:annotation-list", "GET", "", ANNOTATE),
    ("annotations:annotation-detail", "GET", "public", ANNOTATE),
    ("annotations:annotation-detail", "GET", "secret", ANNOTATE),
    ("annotations:annotation-scores", "GET", "public", ANNOTATE),
    ("annotations:annotation-scores", "GET", "secret", ANNOTATE),
    ("annotations:judgement-create", "POST", "public", ANNOTATE_POST),
    ("annotations:judgement-create", "POST", "secret", ANNOTATE_POST),
    ("annotations:judgement-undo", "POST", "public", ANNOTATE_POST),
    ("annotations:probe-set-build", "GET", "task", MANAGE),
    ("annotations:probe-set-save", "POST", "task", MANAGE_POST),
    ("annotations:annotator-list", "GET", "task", MANAGE),
    ("competitions:testset-file", "GET", "public,references", MANAGE),
    ("competitions:testset-file", "GET", "secret,references", MANAGE),
    ("competitions:testset-file", "GET", "public,probes", (200,) * 5),
    ("competitions:run-item-detail", "GET", "run,public", MANAGE),
    ("competitions:run-item-detail", "GET", "run,secret", MANAGE),
    ("competitions:task-dashboard", "GET", "task", (302, 404, 404, 404, 200)),
    ("competitions:leaderboard-detail", "GET", "phase", (200,) * 5),
    ("competitions:leaderboard-json", "GET", "phase", (200,) * 5),
    ("competitions:run-detail", "GET", "run", (200,) * 5),
    ("admin:index", "GET", "", (302, 302, 302, 302, 200)),
    # Last: the organiser takes the annotator role away.
    ("annotations:annotator-remove", "POST", "annotator", MANAGE_POST),
)


@pytest.fixture
def secret_probe_set(mt_test_set, mt_demo):  # noqa: ANN001, ANN201, F811
    """A private probe test set: the same probes, no references for the low
    frequency class (so its provisional primary scores differ from the public
    one's and a leak is detectable)."""
    from evalhub.competitions.models import TestSet
    from evalhub.competitions.services.data import datasets

    data = mt_demo.test_sets[0]
    secret = TestSet.objects.create(
        phase=mt_test_set.phase, slug="secret", name="Secret", visibility="private"
    )
    refs = data.gold["references"].decode().splitlines(keepends=True)
    kept = "".join(r for r in refs if "-low-" not in r.partition("\t")[0])
    files = {**data.inputs, "references": kept.encode()}
    for role, content in files.items():
        datasets.store_file(
            test_set=secret, role=role, filename=f"{role}.tsv", data=content
        )
    return secret


@pytest.fixture
def probe_world(secret_probe_set, mt_runs, annotator):  # noqa: ANN001, ANN201, F811
    return mt_runs


def _probe_url(name: str, target: str, world: dict) -> str:
    if name in ("annotations:annotation-list", "admin:index"):
        return reverse(name)
    if name in ("annotations:probe-set-build", "annotations:probe-set-save"):
        return reverse(name, args=[world["task"].slug])
    if name in ("annotations:annotator-list", "competitions:task-dashboard"):
        return reverse(name, args=[world["task"].slug])
    if name == "annotations:annotator-remove":
        return reverse(name, args=[world["task"].slug, world["annotator_row"].pk])
    if name.startswith("competitions:leaderboard"):
        return reverse(name, args=[world["task"].slug, world["phase"].slug])
    if name == "competitions:run-detail":
        return reverse(name, args=[world["run"].pk])
    if name == "competitions:testset-file":
        ts, role = target.split(",")
        return reverse(name, args=[world[ts].pk, role])
    if name == "competitions:run-item-detail":
        return reverse(name, args=[world["run"].pk, world[target.split(",")[1]].pk])
    return reverse(name, args=[world[target].pk])


def test_annotation_gold_and_private_urls_for_every_role_with_annotators(
    without_plots,  # noqa: F811
    probe_world,
    mt_test_set,  # noqa: F811
    secret_probe_set,
    mt_demo,  # noqa: F811
    participant,
    annotator,  # noqa: F811
    organiser,
    django_user_model,
):
    from evalhub.annotations.models import Annotator
    from evalhub.competitions.services import teams
    from tests.annotations.test_annotators import SHARED, _gold_forms

    task = mt_test_set.phase.task
    other = django_user_model.objects.create_user("olga")
    teams.register(task=task, user=other, new_team_name="Olga's team")
    users = {
        "participant": participant,  # team of the "wide" run
        "other_team": other,
        "annotator": annotator,
        "organiser": organiser,
    }
    world = {
        "task": task,
        "phase": mt_test_set.phase,
        "public": mt_test_set,
        "secret": secret_probe_set,
        "run": probe_world["wide"],
        "annotator_row": Annotator.objects.get(user=annotator),
    }
    leaks = _gold_forms(mt_demo, probe_world)
    secret_scores: set[bytes] = set()
    for run in probe_world.values():
        secret_scores |= set(private_score_forms(run, mt_test_set, secret_probe_set))
    assert secret_scores, "the private test set's scores must differ to be detectable"
    names = {n for n, _, _ in _walk(get_resolver().url_patterns)}
    annotation_names = {n for n in names if n.startswith("annotations:")}
    assert annotation_names <= {row[0] for row in ANNOTATION_TABLE}
    post = {"probe": SHARED[0], "key": SHARED[1], "tag": "w", "token": "x"}
    failures: list[str] = []
    for name, method, target, want in ANNOTATION_TABLE:
        url = _probe_url(name, target, world)
        for index, role in enumerate(ANNOTATION_ROLES):
            c = Client()
            if role != "anonymous":
                c.force_login(users[role])
            response = c.post(url, post) if method == "POST" else c.get(url)
            where = f"{role} {method} {url} ({name})"
            if response.status_code != want[index]:
                failures.append(
                    f"{where}: {response.status_code}, expected {want[index]}"
                )
            if role == "organiser":
                continue
            content = body(response)
            found = [f for f in leaks if f in content]
            found += [f for f in secret_scores if f in content]
            if found:
                failures.append(f"{where}: leaks {found[:2]}")
    # The forms are detectable: the organiser sees gold and the private scores.
    c = Client()
    c.force_login(organiser)
    gold = body(
        c.get(_probe_url("competitions:testset-file", "secret,references", world))
    )
    assert any(f in gold for f in leaks)
    scores = body(c.get(_probe_url("annotations:annotation-scores", "secret", world)))
    assert any(f in scores for f in secret_scores)
    assert not Annotator.objects.filter(user=annotator).exists()  # removed last
    assert not failures, "\n".join(failures)
