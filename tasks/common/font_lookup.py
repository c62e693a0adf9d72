"""matplotlib's font lookup, kept per process with a cheaper key.

Every text matplotlib measures or draws asks ``FontManager.findfont`` for each
family of ``font.family`` (DejaVu Sans and the fallbacks, ``fonts.py``).
matplotlib keeps its answers, but builds its cache key on every call from eleven
``font.*`` settings read through ``rcParams``' validating accessor and an
environment variable: a tenth of a figure's drawing here. The same answers are
kept here under the same inputs (the properties, the arguments, those eleven
settings read straight from the dictionary, the variable), so a changed setting
still finds anew."""

from __future__ import annotations

import os
from collections.abc import Callable
from itertools import repeat
from typing import Any

import matplotlib
from matplotlib import font_manager

#: The settings matplotlib's ``findfont`` reads for its own cache key.
SETTINGS = tuple(
    f"font.{key}"
    for key in (
        "family",
        "style",
        "variant",
        "weight",
        "stretch",
        "size",
        "serif",
        "sans-serif",
        "cursive",
        "fantasy",
        "monospace",
    )
)


def _settings() -> tuple[Any, ...]:
    # ``dict.__getitem__``: the stored values, without the validating accessor.
    values = map(dict.__getitem__, repeat(matplotlib.rcParams), SETTINGS)
    return tuple([tuple(v) if v.__class__ is list else v for v in values])


def kept(find: Callable[..., Any]) -> Callable[..., Any]:
    """``find`` (a ``FontManager``'s bound ``findfont``) with its answers kept."""
    answers: dict[tuple[Any, ...], Any] = {}

    def findfont(
        prop: Any,  # noqa: ANN401
        fontext: str = "ttf",
        directory: str | None = None,
        fallback_to_default: bool = True,  # noqa: FBT001, FBT002
        rebuild_if_missing: bool = True,  # noqa: FBT001, FBT002
    ) -> Any:  # noqa: ANN401
        if isinstance(prop, str):
            prop = font_manager.FontProperties(prop)
        key = (
            prop,
            fontext,
            directory,
            fallback_to_default,
            rebuild_if_missing,
            os.environ.get("MPL_IGNORE_SYSTEM_FONTS"),
            _settings(),
        )
        try:
            return answers[key]
        except KeyError:
            pass
        found = find(prop, fontext, directory, fallback_to_default, rebuild_if_missing)
        # The properties are mutable: the key holds a copy of them as asked.
        answers[(prop.copy(), *key[1:])] = found
        return found

    findfont.kept = True  # type: ignore[attr-defined]
    return findfont


def install() -> None:
    """Keep the answers of matplotlib's font manager (once per process)."""
    manager = font_manager.fontManager
    if not getattr(manager.findfont, "kept", False):
        manager.findfont = kept(manager.findfont)  # type: ignore[method-assign]
