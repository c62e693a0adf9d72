"""The registry: built-in task types, and types kept outside ``tasks/`` named in
``EVALHUB_EXTRA_TASK_TYPES`` (no database)."""

from __future__ import annotations

import json

import pytest

from tasks import cli, registry
from tests.toy_task import task as toy


@pytest.fixture
def toy_registered(monkeypatch):  # noqa: ANN001, ANN201
    monkeypatch.setenv(registry.EXTRA_ENV, f" {toy.SLUG} = {toy.PATH} ,")
    registry.get.cache_clear()
    yield
    registry.get.cache_clear()


def test_an_extra_type_is_listed_after_the_built_in_ones(toy_registered):
    slugs = registry.slugs()
    assert slugs[:4] == list(registry.REGISTRY) and slugs[4:] == [toy.SLUG]
    assert isinstance(registry.get(toy.SLUG), toy.ToyLabels)


def test_without_the_variable_the_extra_type_is_unknown(monkeypatch):
    monkeypatch.delenv(registry.EXTRA_ENV, raising=False)
    assert registry.slugs() == list(registry.REGISTRY)
    with pytest.raises(registry.UnknownTaskType):
        registry.get(toy.SLUG)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("toy_labels", "expected slug=module:Class"),
        ("toy_labels=tests.toy_task.task.ToyLabels", "expected slug=module:Class"),
        ("term_extraction=tests.toy_task.task:ToyLabels", "is a built-in task type"),
    ],
)
def test_a_malformed_variable_fails_loudly(monkeypatch, value, message):  # noqa: ANN001
    monkeypatch.setenv(registry.EXTRA_ENV, value)
    with pytest.raises(ValueError, match=message):
        registry.slugs()


def test_the_offline_scorer_scores_an_extra_type(toy_registered, tmp_path, capsys):  # noqa: ANN001
    (tmp_path / "items.txt").write_bytes(b"a\nb\nc\nd\n")
    (tmp_path / "gold.tsv").write_bytes(b"a\tx\nb\ty\nc\tx\nd\ty\n")
    (tmp_path / "run.tsv").write_bytes(b"a\tx\nb\tx\n")
    status = cli.main(
        ["score", toy.SLUG, "--json"]
        + ["--items", str(tmp_path / "items.txt"), "--gold", str(tmp_path / "gold.tsv")]
        + ["--run", str(tmp_path / "run.tsv")]
    )
    assert status == 0
    assert json.loads(capsys.readouterr().out) == {
        "items": 4, "correct": 1, "labelled": 2
    }  # fmt: skip


def test_an_extra_type_that_cannot_be_imported_is_a_clear_error(monkeypatch, capsys):  # noqa: ANN001
    """``evalhub score`` names the variable, the type and the module, and says what
    to check, instead of a traceback (exit status 2, as for a bad file)."""
    monkeypatch.setenv(registry.EXTRA_ENV, "ghost=nowhere_at_all.task:Ghost")
    registry.get.cache_clear()
    try:
        status = cli.main(["score", "ghost", "--help"])
    finally:
        registry.get.cache_clear()
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("error: EVALHUB_EXTRA_TASK_TYPES: task type 'ghost'")
    assert "'nowhere_at_all" in err and "PYTHONPATH" in err and "Traceback" not in err
