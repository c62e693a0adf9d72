"""The settings declarations the console's settings form is built from: every setting
of every task type (the toy one included) is declared, with a kind a form can ask
for and a default that ``parse_settings`` accepts back."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal

import pytest

from tasks import registry
from tasks.settings import SettingField, describe_settings
from tests.toy_task.task import ToyLabels

TYPES = [registry.get(slug) for slug in registry.REGISTRY] + [ToyLabels()]


@pytest.mark.parametrize("task_type", TYPES, ids=lambda t: t.slug)
def test_every_setting_is_declared_with_a_label_and_help(task_type):  # noqa: ANN001
    declared = [f.key for f in task_type.setting_fields]
    names = [f.name for f in dataclasses.fields(task_type.settings_class)]
    assert declared == names
    for spec in task_type.settings_form():
        assert spec.label and spec.help and spec.label != spec.key


@pytest.mark.parametrize("task_type", TYPES, ids=lambda t: t.slug)
def test_the_defaults_parse_back(task_type):  # noqa: ANN001
    raw = {spec.key: spec.default for spec in task_type.settings_form()}
    assert task_type.parse_settings(raw) == task_type.parse_settings({})


def test_kinds_from_type_hints():
    @dataclass(frozen=True)
    class S:
        a: bool = False
        b: int | None = None
        c: Literal["x", "y"] = "x"
        d: tuple[str, ...] = ("p",)
        e: float = 0.5
        f: str = ""

    specs = describe_settings(S, (SettingField("d", "D", "h", choices=("p", "q")),))
    got = {s.key: (s.kind, s.optional, s.choices, s.default) for s in specs}
    assert got == {
        "a": ("bool", False, (), False),
        "b": ("int", True, (), None),
        "c": ("choice", False, ("x", "y"), "x"),
        "d": ("list", False, ("p", "q"), ["p"]),
        "e": ("float", False, (), 0.5),
        "f": ("text", False, (), ""),
    }
    assert specs[0].label == "a"  # undeclared: labelled by its key


def test_bad_declarations_are_refused():
    @dataclass(frozen=True)
    class S:
        a: dict = dataclasses.field(default_factory=dict)  # type: ignore[type-arg]

    with pytest.raises(ValueError, match="S.a: no form"):
        describe_settings(S, ())

    @dataclass(frozen=True)
    class T:
        a: int = 0

    with pytest.raises(ValueError, match="no setting"):
        describe_settings(T, (SettingField("b", "B"),))


def test_bucc_cap_policy_and_termometer_tau_are_choices_and_numbers():
    bucc = {s.key: s for s in registry.get("bilingual_term_alignment").settings_form()}
    assert bucc["cap_policy"].kind == "choice"
    assert bucc["cap_policy"].choices == ("reject", "truncate")
    te = {s.key: s for s in registry.get("term_extraction").settings_form()}
    assert te["tau"].kind == "float" and te["tau"].default == 0.4
    assert te["exclude_labels"].choices[-1] == "Named_Entity"
