"""One answer to "does this user organise this task?" (issue 41): main had two
functions named ``is_organiser`` with slightly different rules (``access`` without
the organisers' audience, ``visibility`` with it) besides the model's method. Now
``roles.is_organiser`` is the only one, and every caller asks it (the organisers'
audience of the boards is ``visibility.visible``'s own)."""

from __future__ import annotations

import ast

import pytest
from django.contrib.auth.models import AnonymousUser

from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import visibility
from tests.paths import REPO_ROOT as REPO

pytestmark = pytest.mark.django_db
HOME = "evalhub/competitions/services/roles.py"


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (str(path.relative_to(REPO)), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted((REPO / "evalhub").rglob("*.py"))
    ]


def test_one_function_answers_and_every_caller_asks_it():
    defined, foreign = [], []
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "is_organiser":
                defined.append(name)
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "is_organiser":
                if not (isinstance(func.value, ast.Name) and func.value.id == "roles"):
                    foreign.append(f"{name}:{node.lineno}")
            elif isinstance(func, ast.Name) and func.id == "is_organiser":
                if name != HOME:
                    foreign.append(f"{name}:{node.lineno}")
    assert defined == [HOME]
    assert foreign == []


def test_its_rule(
    task, test_set, organiser, participant, django_user_model, submit_run, demo_run
):
    root = django_user_model.objects.create_superuser("root", password="pw-root-1")
    assert roles.is_organiser(organiser, task)
    assert roles.is_organiser(root, task)
    assert not roles.is_organiser(visibility.ORGANISERS, task)  # not a user
    run = submit_run(demo_run)
    seen = visibility.visible(
        viewer=visibility.ORGANISERS, test_set=test_set, runs=[run]
    )
    assert seen == {run.pk}
    assert not roles.is_organiser(participant, task)
    assert not roles.is_organiser(AnonymousUser(), task)
