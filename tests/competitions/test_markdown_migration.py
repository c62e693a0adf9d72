"""Migration 0011 stores every existing description rendered (pages no longer
render Markdown, so a row left without its HTML would show an empty description)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from evalhub.competitions import markdown

BEFORE = [("competitions", "0010_task_owner")]
AFTER = [("competitions", "0011_rendered_markdown")]


@pytest.mark.django_db(transaction=True)
def test_existing_descriptions_are_rendered_by_the_migration():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        _render_old_rows()
    finally:
        # Every later test of this process needs the whole schema back.
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(latest)


def _render_old_rows() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    texts = {"old-a": "An *old* task <script>x()</script>", "old-b": ""}
    for slug, text in texts.items():
        old.get_model("competitions", "SharedTask").objects.create(
            slug=slug, title=slug, description=text, task_type="term_extraction"
        )
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    stored = dict(
        new.get_model("competitions", "SharedTask").objects.values_list(
            "slug", "description_html"
        )
    )
    assert stored == {slug: markdown.render(text) for slug, text in texts.items()}
    assert stored["old-a"] == "<p>An <em>old</em> task </p>\n"
