"""The documentation site builds from ``docs/`` with warnings as errors (no broken
reference, no page outside a table of contents), and its references, generated from
the code at build time, cover every ``evalhub`` command, every API operation and every
setting the settings module reads."""

from __future__ import annotations

import re
import sys

import pytest

from tests.paths import REPO_ROOT

DOCS = REPO_ROOT / "docs"

# MyST calls an API Sphinx 11 will remove (a Python warning, not a Sphinx one).
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::PendingDeprecationWarning"),
]


@pytest.fixture(scope="module")
def reference():  # noqa: ANN201
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import evalhub_reference

        yield evalhub_reference
    finally:
        sys.path.remove(str(DOCS / "_ext"))


def _build(source, out) -> tuple[int, str]:  # noqa: ANN001
    """sphinx-build -W in this process (Django is set up already); the ``dummy``
    builder reads, checks and resolves every page as ``html`` does, without writing
    the pages out."""
    import io
    import locale
    from contextlib import redirect_stderr, redirect_stdout

    from sphinx.cmd.build import build_main

    errors = io.StringIO()
    before = locale.setlocale(locale.LC_ALL)  # sphinx-build sets the user's locale
    with redirect_stdout(io.StringIO()), redirect_stderr(errors):
        try:
            code = build_main(
                [
                    "-W",
                    "-q",
                    "-E",
                    "-b",
                    "dummy",
                    "-d",
                    str(out / "doctrees"),
                    str(source),
                    str(out / "site"),
                ]
            )
        finally:
            locale.setlocale(locale.LC_ALL, before)
    return code, errors.getvalue()


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    code, errors = _build(DOCS, tmp_path)
    assert code == 0, errors


def test_a_page_outside_the_table_of_contents_fails_the_build(tmp_path):
    """The same configuration on two pages, one of them in no toctree."""
    import shutil

    source = tmp_path / "docs"
    source.mkdir()
    shutil.copy(DOCS / "conf.py", source / "conf.py")
    shutil.copytree(DOCS / "_ext", source / "_ext")
    (source / "index.md").write_text("# Home\n\n```{toctree}\n```\n", encoding="utf-8")
    (source / "orphan.md").write_text("# A page nobody lists\n", encoding="utf-8")
    code, errors = _build(source, tmp_path)
    assert code != 0
    assert "orphan" in errors and "toctree" in errors


def test_a_link_to_a_repository_file_outside_docs_is_text_and_a_broken_one_fails(
    tmp_path,
):
    import shutil

    source = tmp_path / "repo" / "docs"
    source.mkdir(parents=True)
    (tmp_path / "repo" / "README.md").write_text("# The README\n", encoding="utf-8")
    shutil.copy(DOCS / "conf.py", source / "conf.py")
    shutil.copytree(DOCS / "_ext", source / "_ext")
    (source / "index.md").write_text("# Home\n\n[the README](../README.md)\n")
    code, errors = _build(source, tmp_path / "a")
    assert code == 0, errors
    (source / "index.md").write_text("# Home\n\n[gone](../GONE.md)\n")
    code, errors = _build(source, tmp_path / "b")
    assert code != 0 and "GONE" in errors


def test_the_cli_reference_has_every_command(reference):
    helps = dict(reference.cli_help())
    from tasks import registry

    for command in (
        "submit",
        "status",
        "task push",
        "test-data push",
        "runs pull",
        "probe build",
    ):
        assert f"evalhub {command}" in helps, command
    for slug in registry.slugs():
        assert f"evalhub score {slug}" in helps and f"evalhub compare {slug}" in helps
    assert "--gold" in helps["evalhub score bilingual_term_alignment"]
    assert all(text.startswith("usage: evalhub") for text in helps.values())


def test_the_api_reference_has_every_operation(reference):
    from evalhub.api.api import api

    operations = reference.openapi_operations()
    assert (
        "POST",
        "/api/tasks/{slug}/phases/{phase}/runs",
        "",
        "Run Create",
    ) in operations
    documented = {path for _, path, _, _ in operations}
    routes = {
        "/api/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", str(pattern.pattern))
        for pattern in api.urls[0]
    }
    routes -= {
        "/api/",
        "/api/openapi.json",
        "/api/docs",
    }  # the root, the schema, its page
    assert routes and routes <= documented, sorted(routes - documented)


def test_the_settings_reference_has_every_setting_the_settings_read(reference):
    documented = {
        name
        for _, rows in reference.settings_table()
        for names, _, _ in rows
        for name in names.split(", ")
    }
    read = set()
    for module in [
        *REPO_ROOT.joinpath("evalhub").glob("settings*.py"),
        REPO_ROOT / "gunicorn.conf.py",
    ]:
        read |= set(re.findall(r'env_\w+\(\s*"([A-Z0-9_]+)"', module.read_text()))
        read |= set(
            re.findall(r'environ(?:\.get)?\(\s*"([A-Z0-9_]+)"', module.read_text())
        )
    assert read and read <= documented, sorted(read - documented)
    rows = {
        names: default
        for _, rows in reference.settings_table()
        for names, default, _ in rows
    }
    assert rows["EVALHUB_SCORING_MAX_ATTEMPTS"] == "3"
    assert rows["DJANGO_SECRET_KEY"] == "generated in var/"
