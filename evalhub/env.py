"""Reading settings from the environment, failing loudly on bad values."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(
            f"{name} must be a whole number, got {raw!r}"
        ) from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


#: The values of ``EVALHUB_TASK_CREATORS`` besides ``group:<name>``.
TASK_CREATOR_RULES = ("staff", "verified")


def parse_task_creators(raw: str, *, name: str = "EVALHUB_TASK_CREATORS") -> str:
    """``staff``, ``verified`` or ``group:<name>`` (the group's name trimmed, at most
    150 characters as Django's ``Group.name``); ``ImproperlyConfigured`` otherwise."""
    value = raw.strip()
    if value in TASK_CREATOR_RULES:
        return value
    kind, colon, group = value.partition(":")
    group = group.strip()
    if kind.strip() == "group" and colon and group and len(group) <= 150:
        return f"group:{group}"
    raise ImproperlyConfigured(
        f"{name} must be staff, verified or group:<name of a group>, got {raw!r}"
    )


def env_task_creators(name: str, default: str = "staff") -> str:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return parse_task_creators(raw, name=name)
