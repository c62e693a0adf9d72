"""``evalhub data pull`` and ``evalhub participants`` as subprocesses against
pytest-django's live server: before the data terms are accepted the CLI prints the
refusal with the terms' link and writes no file (exit 3); after, it downloads the
task's files. The roster for an organiser's token, as text and CSV; refused for a
participant's."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from allauth.account.models import EmailAddress

from tests.participation.helpers import accept, set_terms
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db(transaction=True)


def _evalhub(*args: str, token: str):  # noqa: ANN202
    env = {k: v for k, v in os.environ.items() if k != "EVALHUB_TOKEN"}
    env["EVALHUB_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "evalhub.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_data_pull_waits_for_the_terms_and_the_roster_is_the_organisers(
    live_server,
    tokens,
    organiser,
    participant,
    team,
    task,
    phase,
    test_set,
    demo_run,
    tmp_path,
):
    EmailAddress.objects.create(
        user=participant, email="alice@uni.example", verified=True, primary=True
    )
    set_terms(organiser, task, "Research only.")
    folder = tmp_path / "data"
    pull = ("data", "pull", "--url", live_server.url, "--task", task.slug)
    refused = _evalhub(*pull, str(folder), token=tokens["participant"])
    assert refused.returncode == 3, refused.stderr
    assert "Accept the current data terms" in refused.stderr
    assert f"/tasks/{task.slug}/terms/" in refused.stderr
    assert not folder.exists() or not [p for p in folder.rglob("*") if p.is_file()]
    run_file = tmp_path / "run.tsv"
    run_file.write_bytes(demo_run)
    submit = _evalhub(
        "submit", "--url", live_server.url, "--task", task.slug, "--phase",
        phase.slug, "--method", "m", str(run_file), token=tokens["participant"],
    )  # fmt: skip
    assert submit.returncode == 3, submit.stderr
    assert f"/tasks/{task.slug}/terms/" in submit.stderr
    assert not phase.submissions.exists()
    accept(participant, task, 1)
    done = _evalhub(*pull, str(folder), token=tokens["participant"])
    assert done.returncode == 0, done.stderr
    files = sorted(p.name for p in folder.rglob("*") if p.is_file())
    assert files == ["source_terms.tsv", "target_terms.tsv"]  # no gold
    got = (folder / "evaluation" / "public" / "source_terms.tsv").read_bytes()
    assert got == test_set.files.get(role="source_terms").file.open("rb").read()

    roster = ("participants", "--url", live_server.url, "--task", task.slug)
    shown = _evalhub(*roster, token=tokens["organiser"])
    assert shown.returncode == 0, shown.stderr
    assert "Alpha" in shown.stdout and "alice@uni.example" in shown.stdout
    assert "terms yes" in shown.stdout
    saved = tmp_path / "roster.csv"
    exported = _evalhub(*roster, "--csv", str(saved), token=tokens["organiser"])
    assert exported.returncode == 0, exported.stderr
    assert "alice@uni.example" in saved.read_text()
    narrowed = _evalhub(*roster, "--filter", "no-final-run", token=tokens["organiser"])
    assert "Alpha" in narrowed.stdout  # no final run yet
    other = _evalhub(*roster, token=tokens["participant"])
    assert other.returncode == 3
    assert "alice@uni.example" not in other.stdout + other.stderr
