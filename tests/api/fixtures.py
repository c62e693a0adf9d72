"""Fixtures shared by the API, export, CLI and permission-matrix tests: a scored run
on a public and on a private test set whose gold differs (so private scores differ from
public ones and a leak of them is detectable), an API token per role, and the callers
the organiser API refuses."""

from __future__ import annotations

import pytest


@pytest.fixture
def secret_test_set(phase, bucc_demo, test_set):  # noqa: ANN001, ANN201
    """A private test set: the public inputs, half of the gold."""
    from evalhub.competitions.models import TestSet
    from evalhub.competitions.services.data import datasets

    ts_data = bucc_demo.test_sets[0]
    gold_lines = ts_data.gold["gold"].decode().splitlines(keepends=True)
    test_set_obj = TestSet.objects.create(
        phase=phase, slug="secret", name="Secret", visibility="private", order=1
    )
    for role, data in ts_data.inputs.items():
        datasets.store_file(
            test_set=test_set_obj, role=role, filename=f"{role}.tsv", data=data
        )
    datasets.store_file(
        test_set=test_set_obj,
        role="gold",
        filename="gold.tsv",
        data="".join(gold_lines[: len(gold_lines) // 2]).encode(),
    )
    return test_set_obj


@pytest.fixture
def scored(submit_run, demo_run, test_set, secret_test_set):  # noqa: ANN001, ANN201
    """A run scored by the scoring job, its own figures still pending (as they are
    until a worker takes their job: ``analysed`` draws them)."""
    from evalhub.competitions import jobs

    sub = submit_run(demo_run, method="dictionary")
    jobs.score_submission(sub.pk)
    sub.refresh_from_db()
    assert sub.status == "scored", sub.failure_message
    return sub


@pytest.fixture
def analysed(scored, test_set, secret_test_set):  # noqa: ANN001, ANN201
    """``scored`` with its own figures drawn (the job the scoring job sends after
    commit), and the task-level figures and analyses of both test sets."""
    from evalhub.competitions.services.boards import analyses
    from tests import run_figures

    run_figures.draw_pending(scored)
    for ts in (test_set, secret_test_set):
        analyses.refresh(test_set_id=ts.pk)
    return scored


@pytest.fixture
def tokens(participant, outsider, organiser, task):  # noqa: ANN001, ANN201
    """role -> API token secret: the teams' tokens submit runs, the organiser's
    organises ``task``."""
    from evalhub.api.services import tokens as token_service

    made = {
        role: token_service.create(user=user, name=role).secret
        for role, user in (("participant", participant), ("other_team", outsider))
    }
    made["organiser"] = token_service.create(
        user=organiser, name="organiser", scope="organise", tasks=[task]
    ).secret
    return made


def gold_forms(bucc_demo) -> list[bytes]:  # noqa: ANN001
    """Every gold pair in the forms a response could carry it in."""
    gold = bucc_demo.test_sets[0].gold["gold"].decode().splitlines()
    forms: list[bytes] = []
    for line in gold:
        if not line:
            continue
        s, t = line.split("\t")
        forms += [
            f"{s}\t{t}".encode(),
            f'["{s}", "{t}"]'.encode(),
            f'"{s}", "{t}"'.encode(),
            f"{s},{t}".encode(),
        ]
    return forms


def private_score_forms(scored, test_set, secret_test_set) -> list[bytes]:  # noqa: ANN001
    """How the private test set's scores would look in a response (those that differ
    from the public test set's, with enough digits to be unmistakable)."""
    task_type = scored.phase.task.type

    def forms(ts) -> set[str]:  # noqa: ANN001
        out = set()
        for s in scored.scores.filter(test_set=ts):
            if s.value is None or task_type.metric(s.metric).count:
                continue
            out |= {repr(s.value), task_type.metric(s.metric).format(s.value)}
            out.add(f"{s.value:.4f}")
        return out

    public = forms(test_set)
    secret = {f for f in forms(secret_test_set) - public if len(f) >= 6}
    assert secret, "the private test set must score differently from the public one"
    return [f.encode() for f in sorted(secret)]


def body(response) -> bytes:  # noqa: ANN001
    if hasattr(response, "streaming_content"):
        return b"".join(response.streaming_content)
    return response.content


def bundle_of(task, slug: str) -> bytes:  # noqa: ANN001
    """The task's own bundle (``bundles.export_bundle``), under another slug."""
    import io
    import zipfile

    from evalhub.competitions.services.data import bundles
    from tests.zips import zip_bytes

    task.refresh_from_db()
    exported = zipfile.ZipFile(io.BytesIO(bundles.export_bundle(task=task)))
    files = {n: exported.read(n) for n in exported.namelist()}
    manifest = files["task.yaml"].decode()
    assert f"slug: {task.slug}\n" in manifest
    files["task.yaml"] = manifest.replace(f"slug: {task.slug}", f"slug: {slug}", 1)
    files["task.yaml"] = files["task.yaml"].encode()
    return zip_bytes(files)


# --- the organiser API's callers ------------------------------------------------------
TASK = "/api/tasks/bucc-test"


def auth(secret: str | None) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"} if secret else {}


@pytest.fixture
def stranger(django_user_model, isolated_storage):  # noqa: ANN001, ANN201
    """A staff user who organises another task, with a token."""
    from evalhub.api.services import tokens as token_service
    from evalhub.competitions.models import SharedTask

    user = django_user_model.objects.create_user("org-other", is_staff=True)
    theirs = SharedTask.objects.create(
        slug="theirs", title="Theirs", task_type="term_extraction"
    )
    theirs.organisers.add(user)
    return token_service.create(
        user=user, name="theirs", scope="organise", tasks=[theirs]
    ).secret


@pytest.fixture
def revoked(organiser):  # noqa: ANN001, ANN201
    from django.utils import timezone

    from evalhub.api.models import ApiToken
    from evalhub.api.services import tokens as token_service

    new = token_service.create(user=organiser, name="old laptop", scope="organise")
    ApiToken.objects.filter(pk=new.token.pk).update(revoked_at=timezone.now())
    return new.secret


def refusals(client, method: str, url: str, tokens, stranger, revoked, **data):  # noqa: ANN001, ANN003, ANN202
    """Status per caller who is not an organiser of the task."""
    call = getattr(client, method)
    return {
        who: call(url, **data, **auth(secret)).status_code
        for who, secret in (
            ("anonymous", None),
            ("revoked", revoked),
            ("participant", tokens["participant"]),
            ("other_team", tokens["other_team"]),
            ("stranger", stranger),
        )
    }


REFUSED = {
    "anonymous": 401,
    "revoked": 401,
    "participant": 403,
    "other_team": 403,
    "stranger": 403,
}
