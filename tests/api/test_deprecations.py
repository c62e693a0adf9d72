"""A run's former ``final`` field (the same as ``done``, next to ``final_run``, the
team's choice) is removed (issue 41): not in the OpenAPI schema, not in a run's
answer, and the removal is named in ``docs/changelog.md``; the organiser API's
test-data drafts are served under ``.../test-data`` and no longer under ``.../gold``."""

from __future__ import annotations

import pytest

from evalhub.competitions import jobs
from tests.api.test_api import RUNS, _auth, _post_run
from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db


def test_the_final_field_is_gone_from_the_schema_and_the_changelog_says_so(client):  # noqa: ANN001
    schema = client.get("/api/openapi.json").json()
    fields = schema["components"]["schemas"]["RunOut"]["properties"]
    assert "final" not in fields
    assert "done" in fields and "final_run" in fields
    changelog = (REPO_ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    assert "Removed: a run's `final` field" in changelog


def test_a_scored_run_answers_done_without_final(
    client, tokens, team, phase, test_set, demo_run
):  # noqa: ANN001
    sub_id = _post_run(client, tokens["participant"], demo_run).json()["id"]
    jobs.score_submission(sub_id)
    run = client.get(f"/api/runs/{sub_id}", **_auth(tokens["participant"])).json()
    assert run["done"] is True and "final" not in run
    mine = client.get(RUNS, **_auth(tokens["participant"]))
    assert mine.status_code == 200 and mine.json()["runs"]
    assert all("final" not in r and "done" in r for r in mine.json()["runs"])


def test_test_data_drafts_live_under_test_data_not_gold(client):  # noqa: ANN001
    paths = client.get("/api/openapi.json").json()["paths"]
    base = "/api/tasks/{slug}/phases/{phase}/testsets/{test_set}"
    assert base + "/test-data" in paths and base + "/test-data/{token}" in paths
    assert base + "/gold" not in paths and base + "/gold/{token}" not in paths


def test_the_cli_names_test_data_push_and_keeps_gold_push_as_an_alias():
    import subprocess
    import sys

    for words in (("test-data", "push"), ("gold", "push")):
        shown = subprocess.run(
            [sys.executable, "-m", "evalhub.cli", *words, "--help"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert shown.returncode == 0, shown.stderr
        assert "ROLE=FILE" in shown.stdout
