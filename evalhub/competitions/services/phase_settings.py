"""Settings of a phase that a feature app owns (the rankings app's ranking settings,
section ``ranking``): the organiser API reads and changes them here, without
importing that app (feature apps never import one another). Each section has one
owner, registered from its ``AppConfig.ready()``; what a value may be is the owner's
rule (the console's page and the bundles call the same one)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from evalhub.competitions.models import Phase


class UnknownSection(KeyError):
    """No app owns a section of this name."""


class SettingsRefused(ValueError):
    """The values break the owner's rule: ``problems`` says each, in plain words;
    nothing was stored."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass(frozen=True, slots=True)
class Section:
    """``read(phase)``: the current values; ``write(phase, values)``: store the
    given ones (the others kept), return the values now in force, or raise
    ``SettingsRefused``."""

    read: Callable[[Phase], dict[str, object]]
    write: Callable[[Phase, Mapping[str, object]], dict[str, object]]


_sections: dict[str, Section] = {}


def register(key: str, section: Section | None) -> None:
    """Install (or, with ``None``, remove) the owner of section ``key``."""
    if section is None:
        _sections.pop(key, None)
    else:
        _sections[key] = section


def _section(key: str) -> Section:
    try:
        return _sections[key]
    except KeyError:
        raise UnknownSection(key) from None


def read(*, phase: Phase, key: str) -> dict[str, object]:
    return _section(key).read(phase)


def write(*, phase: Phase, key: str, values: Mapping[str, object]) -> dict[str, object]:
    return _section(key).write(phase, values)
