"""Task-type settings: a JSON mapping checked against a frozen dataclass's type
hints, every error naming the setting; and the declarations (:class:`SettingField`)
from which the organisers' settings form is built (:func:`describe_settings`)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass

from tasks.errors import SettingsError


def parse_settings(cls: type, raw: Mapping[str, object] | None) -> object:
    """Build ``cls`` from a JSON mapping; unknown keys and wrong types raise
    :class:`SettingsError` naming the key."""
    raw = dict(raw or {})
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise SettingsError(f"unknown setting(s): {', '.join(unknown)}")
    values: dict[str, object] = {}
    for name, value in raw.items():
        values[name] = _coerce(name, value, hints[name])
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise SettingsError(str(exc)) from exc


def _coerce(name: str, value: object, hint: object) -> object:
    """Check a JSON value against a settings field's type hint."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(name, value, arg)
            except SettingsError as exc:
                errors.append(str(exc))
        raise SettingsError(errors[0] if errors else f"{name}: bad value {value!r}")
    if origin is typing.Literal:
        if value in args:
            return value
        allowed = ", ".join(repr(a) for a in args)
        raise SettingsError(f"{name}: {value!r} is not one of {allowed}")
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise SettingsError(f"{name}: expected true or false, got {value!r}")
    if hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise SettingsError(f"{name}: expected a whole number, got {value!r}")
    if hint is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise SettingsError(f"{name}: expected a number, got {value!r}")
    if hint is str:
        if isinstance(value, str):
            return value
        raise SettingsError(f"{name}: expected text, got {value!r}")
    if origin is tuple:
        if not isinstance(value, (list, tuple)):
            raise SettingsError(f"{name}: expected a list, got {value!r}")
        inner = args[0] if args else str
        return tuple(_coerce(name, v, inner) for v in value)
    raise SettingsError(f"{name}: unsupported setting type {hint!r}")


# --- how a settings form asks for each setting --------------------------------------


@dataclass(frozen=True, slots=True)
class SettingField:
    """A task type's declaration of one setting for the organisers' settings form:
    its label and explanation, and for a list of texts the values it may hold. The
    kind of input, the default and whether it may be left empty come from the
    settings dataclass's type hints (:func:`describe_settings`); validation stays
    with :func:`parse_settings`."""

    key: str
    label: str
    help: str = ""
    #: For a ``tuple[str, ...]`` setting: the values offered (one tick box each).
    #: Empty: free text, one value per line.
    choices: tuple[str, ...] = ()


#: The kinds of input a setting is asked with.
KINDS = ("bool", "int", "float", "choice", "text", "list")


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """One setting resolved for a form: ``kind`` is one of :data:`KINDS`;
    ``optional``: an empty answer means ``None``; ``default`` as JSON."""

    key: str
    label: str
    help: str
    kind: str
    optional: bool
    default: object
    choices: tuple[str, ...] = ()


def describe_settings(
    cls: type, fields: tuple[SettingField, ...]
) -> tuple[SettingSpec, ...]:
    """The settings of ``cls`` in declaration order, each with its form field
    description. A setting without a :class:`SettingField` is labelled by its key;
    a declaration naming no setting, or a type no form can ask for, raises
    ``ValueError``."""
    hints = typing.get_type_hints(cls)
    declared = {f.key: f for f in fields}
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(declared) - set(names))
    if unknown:
        raise ValueError(f"{cls.__name__}: no setting(s) {', '.join(unknown)}")
    out = []
    for field in dataclasses.fields(cls):
        decl = declared.get(field.name) or SettingField(
            field.name, field.name.replace("_", " ")
        )
        kind, optional, choices = _kind(cls, field.name, hints[field.name])
        default = field.default
        if isinstance(default, tuple):
            default = list(default)
        out.append(
            SettingSpec(
                key=field.name,
                label=decl.label,
                help=decl.help,
                kind=kind,
                optional=optional,
                default=default,
                choices=decl.choices if kind == "list" else choices,
            )
        )
    return tuple(out)


def _kind(cls: type, name: str, hint: object) -> tuple[str, bool, tuple[str, ...]]:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    optional = False
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1 or len(rest) == len(args):
            raise ValueError(f"{cls.__name__}.{name}: no form for {hint!r}")
        optional, hint = True, rest[0]
        origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal and all(isinstance(a, str) for a in args):
        return "choice", optional, tuple(args)
    simple = {bool: "bool", int: "int", float: "float", str: "text"}
    if hint in simple:
        return simple[hint], optional, ()  # type: ignore[index]
    if origin is tuple and args and args[0] is str:
        return "list", optional, ()
    raise ValueError(f"{cls.__name__}.{name}: no form for {hint!r}")
