"""A run's ``final`` field (the same as ``done``, next to ``final_run``, the team's
choice) is deprecated (issue 41): marked so in the OpenAPI schema and the API's
description, named in ``docs/changelog.md``, and still sent until a later version
removes it."""

from __future__ import annotations

import pytest

from tests.paths import REPO_ROOT

pytestmark = pytest.mark.django_db


def test_the_final_field_is_marked_deprecated(client):  # noqa: ANN001
    schema = client.get("/api/openapi.json").json()
    fields = schema["components"]["schemas"]["RunOut"]["properties"]
    assert fields["final"]["deprecated"] is True
    assert "Deprecated" in fields["final"]["description"]
    assert (
        "deprecated" not in fields["done"] and "deprecated" not in fields["final_run"]
    )
    assert "``final`` field" in schema["info"]["description"]
    changelog = (REPO_ROOT / "docs" / "changelog.md").read_text(encoding="utf-8")
    assert "Deprecated: a run's `final` field" in changelog
