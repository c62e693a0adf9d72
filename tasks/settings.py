"""Task-type settings: a JSON mapping checked against a frozen dataclass's type
hints, every error naming the setting."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping

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
