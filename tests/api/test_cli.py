"""``evalhub submit`` / ``evalhub status`` as a subprocess against pytest-django's
live server: a real HTTP upload, ``--wait`` while a real Celery worker scores the run,
and the exit statuses (0 scored, 1 failed, 2 rejected, 3 refused)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from importlib import metadata

import pytest
from django.utils import timezone

from evalhub.competitions.models import Submission
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(transaction=True)

CLI_TIMEOUT = 180


def _evalhub(*args: str, token: str | None = None, env_token: str | None = None):  # noqa: ANN202
    env = {k: v for k, v in os.environ.items() if k != "EVALHUB_TOKEN"}
    if env_token:
        env["EVALHUB_TOKEN"] = env_token
    command = [sys.executable, "-m", "evalhub.cli", *args]
    if token:
        command += ["--token", token]
    return subprocess.run(
        command,
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
    )


def _submit_args(url: str, path, *extra: str) -> tuple[str, ...]:  # noqa: ANN001
    return (
        "submit",
        "--url",
        url,
        "--task",
        "bucc-test",
        "--phase",
        "evaluation",
        "--method",
        "dictionary",
        str(path),
        *extra,
    )


def test_console_script_is_the_evalhub_cli():
    scripts = metadata.entry_points(group="console_scripts")
    assert scripts["evalhub"].value == "evalhub.cli:run"


@pytest.mark.e2e
def test_submit_and_wait_until_a_worker_scored_it(
    live_server,
    worker,  # noqa: F811
    tokens,
    team,
    phase,
    test_set,
    secret_test_set,
    demo_run,
    tmp_path,
):
    run_file = tmp_path / "run.tsv"
    run_file.write_bytes(demo_run)
    result = _evalhub(
        *_submit_args(
            live_server.url, run_file, "--wait", "--interval", "0.5", "--json"
        ),
        env_token=tokens["participant"],
    )
    assert result.returncode == 0, result.stderr
    assert f"Uploading run.tsv [{'#' * 30}] 100%" in result.stderr
    run = json.loads(result.stdout)
    sub = Submission.objects.get()
    assert run["id"] == sub.pk and run["status"] == "scored" and sub.status == "scored"
    stored = {s.metric: s.value for s in sub.scores.filter(test_set=test_set)}
    assert run["scores"] == {"public": stored}  # the private test set stays hidden
    assert sub.submitter.username == "alice" and sub.original_name == "run.tsv"
    assert sub.file.read() == demo_run


def test_rejected_file_exits_2_with_file_and_line(
    live_server, tokens, team, phase, test_set, demo_run, tmp_path
):
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(demo_run + b"one-column-only\n")
    line = (demo_run + b"one-column-only\n").count(b"\n")
    result = _evalhub(
        *_submit_args(live_server.url, bad, "--wait"), token=tokens["participant"]
    )
    assert result.returncode == 2, result.stderr
    assert f"error: bad.tsv, line {line}:" in result.stderr
    assert Submission.objects.get().status == "rejected"


def test_failed_run_exits_1_and_prints_its_errors(
    live_server, tokens, team, phase, test_set
):
    sub = Submission.objects.create(
        phase=phase,
        team=team,
        original_name="run.tsv",
        sha256="0" * 64,
        method_name="m",
        status=Submission.Status.FAILED,
        failure_category=Submission.Failure.TIMEOUT,
        failure_message="Scoring took longer than the limit.",
    )
    result = _evalhub(
        "status",
        "--url",
        live_server.url,
        str(sub.pk),
        "--wait",
        env_token=tokens["participant"],
    )
    assert result.returncode == 1, result.stderr
    assert "status\tfailed" in result.stdout
    assert "error: Scoring took longer than the limit." in result.stderr


def test_refused_unauthorised_and_missing_token_exit_3(
    live_server, tokens, team, phase, test_set, demo_run, tmp_path
):
    from evalhub.api.models import ApiToken
    from evalhub.api.services import tokens as token_service

    run_file = tmp_path / "run.tsv"
    run_file.write_bytes(demo_run)
    args = _submit_args(live_server.url, run_file)
    missing = _evalhub(*args)
    assert missing.returncode == 3 and "no API token" in missing.stderr
    # A read-only token: refused, the scope it lacks named.
    reading = token_service.create(user=team.members.get(), name="r", scope="read")
    narrow = _evalhub(*args, token=reading.secret)
    assert narrow.returncode == 3, narrow.stderr
    assert "submitting runs needs the “submit” scope" in narrow.stderr
    phase.closes_at = timezone.now() - timedelta(minutes=1)
    phase.save()
    refused = _evalhub(*args, token=tokens["participant"])
    assert refused.returncode == 3 and "refused:" in refused.stderr
    assert "closed" in refused.stderr
    ApiToken.objects.filter(user__username="alice").update(revoked_at=timezone.now())
    revoked = _evalhub(*args, token=tokens["participant"])
    assert revoked.returncode == 3 and "not accepted" in revoked.stderr
    assert not Submission.objects.exists()


def test_score_still_runs_the_offline_scorer(bucc_demo, tmp_path):
    demo = bucc_demo.test_sets[0]
    paths = {}
    for role, data in {**demo.inputs, **demo.gold}.items():
        paths[role] = tmp_path / f"{role}.tsv"
        paths[role].write_bytes(data)
    run = tmp_path / "run.tsv"
    run.write_bytes(next(iter(bucc_demo.runs[0][2].values())))
    result = _evalhub(
        "score",
        "bilingual_term_alignment",
        "--gold",
        str(paths["gold"]),
        "--run",
        str(run),
        "--source-terms",
        str(paths["source_terms"]),
        "--target-terms",
        str(paths["target_terms"]),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    assert "ap" in json.loads(result.stdout)
