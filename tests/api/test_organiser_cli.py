"""``evalhub task push``, ``evalhub test-data push`` and ``evalhub runs pull`` as
subprocesses against pytest-django's live server (as the ``evalhub submit`` tests
do): a task made from a bundle, a run scored by a real Celery worker, new gold
previewed, confirmed and the run scored again, the runs pulled into a folder; the
refusals and their exit statuses (1 declined, 2 rejected, 3 refused)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile

import pytest
from django.utils import timezone

from evalhub.api.models import ApiToken
from evalhub.api.services import tokens as token_service
from evalhub.competitions.models import SharedTask, Submission
from tests.api.fixtures import bundle_of
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(transaction=True)

CLI_TIMEOUT = 180


def _evalhub(*args: str, token: str | None = None, stdin: str = ""):  # noqa: ANN202
    env = {k: v for k, v in os.environ.items() if k != "EVALHUB_TOKEN"}
    if token:
        env["EVALHUB_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "evalhub.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
    )


def _gold_args(url: str, task: str, *files: str) -> tuple[str, ...]:
    return (
        "test-data", "push", "--url", url, "--task", task, "--phase", "evaluation",
        "--test-set", "public", *files,
    )  # fmt: skip


@pytest.mark.e2e
def test_push_a_task_score_a_run_push_new_gold_and_pull_the_runs(
    live_server,
    worker,  # noqa: F811
    tokens,
    task,
    phase,
    test_set,
    secret_test_set,
    participant,
    bucc_demo,
    demo_run,
    tmp_path,
):
    from evalhub.competitions.services import teams

    url = live_server.url
    organiser = tokens["organiser"]
    bundle = tmp_path / "task.zip"
    bundle.write_bytes(bundle_of(task, "bucc-pushed"))
    pushed = _evalhub("task", "push", "--url", url, str(bundle), token=organiser)
    assert pushed.returncode == 0, pushed.stderr
    assert f"Uploading task.zip [{'#' * 30}] 100%" in pushed.stderr
    assert f"created task bucc-pushed (published): {url}/tasks/bucc-pushed/" in (
        pushed.stdout
    )
    new_task = SharedTask.objects.get(slug="bucc-pushed")
    assert new_task.owner.username == "org"
    # A participant's run on the pushed task, scored by the worker.
    teams.register(task=new_task, user=participant, new_team_name="Pushers")
    run_file = tmp_path / "run.tsv"
    run_file.write_bytes(demo_run)
    submitted = _evalhub(
        "submit", "--url", url, "--task", "bucc-pushed", "--phase", "evaluation",
        "--method", "dictionary", str(run_file), "--wait", "--interval", "0.5",
        token=tokens["participant"],
    )  # fmt: skip
    assert submitted.returncode == 0, submitted.stderr
    run = Submission.objects.get(phase__task=new_task)
    public = new_task.phases.get().test_sets.get(slug="public")
    old_ap = run.scores.get(test_set=public, metric="ap").value
    # New gold: the preview, then stored with --yes; the run is scored again.
    lines = bucc_demo.test_sets[0].gold["gold"].splitlines(keepends=True)
    fewer = tmp_path / "fewer.tsv"
    fewer.write_bytes(b"".join(lines[: len(lines) // 2]))
    gold = _evalhub(
        *_gold_args(url, "bucc-pushed", f"gold={fewer}"), "--yes", token=organiser
    )
    assert gold.returncode == 0, gold.stderr
    assert f"count\tgold pairs\t{len(lines)} -> {len(lines) // 2}" in gold.stdout
    assert f"rescored\t{run.pk}\tPushers\tdictionary" in gold.stdout
    assert "stored 1 file; gold version 2; 1 run(s) are scored again" in gold.stdout
    assert public.files.get(role="gold").file.read() == fewer.read_bytes()
    waited = _evalhub(
        "status", "--url", url, str(run.pk), "--wait", "--interval", "0.5",
        token=tokens["participant"],
    )  # fmt: skip
    assert waited.returncode == 0, waited.stderr
    run.refresh_from_db()
    assert run.status == "scored"
    assert run.evaluations.get(test_set=public).gold_version == 2
    new_ap = run.scores.get(test_set=public, metric="ap").value
    assert new_ap != old_ap
    # Pull: the run file and every score, the private test set's too.
    folder = tmp_path / "pulled"
    pulled = _evalhub(
        "runs", "pull", "--url", url, "--task", "bucc-pushed", str(folder),
        token=organiser,
    )  # fmt: skip
    assert pulled.returncode == 0, pulled.stderr
    assert "1 run: 1 downloaded, 0 already there" in pulled.stdout
    listing = json.loads((folder / "runs.json").read_text())
    (entry,) = listing["runs"]
    assert entry["id"] == run.pk and entry["scores"]["public"]["ap"] == new_ap
    secret = new_task.phases.get().test_sets.get(slug="secret")
    assert entry["scores"]["secret"] == {
        s.metric: s.value for s in run.scores.filter(test_set=secret)
    }
    assert (folder / entry["path"]).read_bytes() == demo_run
    again = _evalhub(
        "runs", "pull", "--url", url, "--task", "bucc-pushed", str(folder),
        token=organiser,
    )  # fmt: skip
    assert "1 run: 0 downloaded, 1 already there" in again.stdout
    zipped = _evalhub(
        "runs", "pull", "--url", url, "--task", "bucc-pushed", "--phase",
        "evaluation", "--zip", str(folder), token=organiser,
    )  # fmt: skip
    assert zipped.returncode == 0, zipped.stderr
    archive = zipfile.ZipFile(
        io.BytesIO((folder / "bucc-pushed-evaluation-runs.zip").read_bytes())
    )
    assert "manifest.csv" in archive.namelist()
    assert demo_run in [archive.read(n) for n in archive.namelist()]


def test_declined_rejected_and_refused_gold_pushes(
    live_server, tokens, task, phase, test_set, bucc_demo, tmp_path
):
    url = live_server.url
    gold = bucc_demo.test_sets[0].gold["gold"]
    stored = test_set.files.get(role="gold").sha256
    half = tmp_path / "half.tsv"
    half.write_bytes(b"".join(gold.splitlines(keepends=True)[:10]))
    # Asked, and declined: nothing stored, the draft discarded, exit 1.
    declined = _evalhub(
        *_gold_args(url, "bucc-test", f"gold={half}"),
        token=tokens["organiser"],
        stdin="n\n",
    )
    assert declined.returncode == 1, declined.stderr
    assert "Store these files? [y/N]" in declined.stderr
    assert "Nothing stored" in declined.stderr
    assert "count\tgold pairs" in declined.stdout
    # A broken file: every problem with its file and line, exit 2.
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(gold + b"one column\n")
    rejected = _evalhub(
        *_gold_args(url, "bucc-test", f"gold={bad}"), "--yes", token=tokens["organiser"]
    )
    assert rejected.returncode == 2, rejected.stderr
    line = (gold + b"one column\n").count(b"\n")
    assert f"error: bad.tsv, line {line}:" in rejected.stderr
    # Not an organiser, the organiser's own token made for submitting, a revoked
    # token, no token, a bad argument: exit 3, the missing scope named.
    submitting = token_service.create(user=task.organisers.get(), name="cli").secret
    for who, secret in (
        ("participant", tokens["participant"]),
        ("other_team", tokens["other_team"]),
        ("organiser, submit scope", submitting),
    ):
        refused = _evalhub(
            *_gold_args(url, "bucc-test", f"gold={half}"), "--yes", token=secret
        )
        assert refused.returncode == 3, (who, refused.stderr)
        assert "needs the “organise” scope on task bucc-test" in refused.stderr
    ApiToken.objects.filter(user__username="org").update(revoked_at=timezone.now())
    revoked = _evalhub(
        *_gold_args(url, "bucc-test", f"gold={half}"),
        "--yes",
        token=tokens["organiser"],
    )
    assert revoked.returncode == 3 and "not accepted" in revoked.stderr
    missing = _evalhub(*_gold_args(url, "bucc-test", f"gold={half}"), "--yes")
    assert missing.returncode == 3 and "no API token" in missing.stderr
    typo = _evalhub(
        *_gold_args(url, "bucc-test", str(half)), "--yes", token=tokens["participant"]
    )
    assert typo.returncode == 3 and "write ROLE=FILE" in typo.stderr
    test_set.refresh_from_db()
    assert test_set.files.get(role="gold").sha256 == stored
    assert test_set.gold_version == 1


def test_refused_task_pushes_and_pulls(
    live_server, tokens, task, phase, test_set, participant, tmp_path
):
    url = live_server.url
    bundle = tmp_path / "task.zip"
    bundle.write_bytes(bundle_of(task, "bucc-pushed"))
    refused = _evalhub(
        "task", "push", "--url", url, str(bundle), token=tokens["participant"]
    )
    assert refused.returncode == 3, refused.stderr
    assert "needs the “organise” scope" in refused.stderr
    organising = token_service.create(
        user=participant, name="o", scope="organise"
    ).secret
    refused = _evalhub("task", "push", "--url", url, str(bundle), token=organising)
    assert refused.returncode == 3, refused.stderr
    assert "refused: Your account may not create tasks." in refused.stderr
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    rejected = _evalhub(
        "task", "push", "--url", url, str(broken), token=tokens["organiser"]
    )
    assert rejected.returncode == 2, rejected.stderr
    assert "error: bundle:" in rejected.stderr
    assert not SharedTask.objects.filter(slug="bucc-pushed").exists()
    pull = ("runs", "pull", "--url", url, "--task", "bucc-test", str(tmp_path / "r"))
    denied = _evalhub(*pull, token=tokens["other_team"])
    assert denied.returncode == 3 and "“organise” scope" in denied.stderr
    assert not (tmp_path / "r" / "runs.json").exists()
    unreachable = _evalhub(
        "runs", "pull", "--url", "http://127.0.0.1:9", "--task", "bucc-test",
        str(tmp_path / "r"), token=tokens["organiser"],
    )  # fmt: skip
    assert unreachable.returncode == 3 and "cannot reach" in unreachable.stderr
