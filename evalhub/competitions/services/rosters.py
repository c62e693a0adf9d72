"""A task's roster as the feature app that keeps it lists it (the participation
app: teams, members, their addresses, terms accepted, runs, papers): the organiser
API reads it here without importing that app (feature apps never import one
another). One owner, registered from its ``AppConfig.ready()``; the filters and the
rows are the owner's rule (its console page and CSV call the same one). Organisers
only: the callers check ``roles.is_organiser`` before they ask."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evalhub.competitions.models import SharedTask


class NoRoster(LookupError):
    """No app keeps rosters."""


class UnknownFilter(ValueError):
    """The filter is not one the owner offers (``str``: the ones it does)."""


@dataclass(frozen=True, slots=True)
class Owner:
    """``filters()``: ``(key, label)`` pairs; ``rows(task, filter, search,
    viewer)``: one JSON-safe dict per team; ``csv(task, filter, search, viewer)``:
    the same as a CSV document. Both raise ``UnknownFilter``; ``viewer`` is an
    organiser of the task."""

    filters: Callable[[], list[tuple[str, str]]]
    rows: Callable[[SharedTask, str, str, object], list[dict[str, object]]]
    csv: Callable[[SharedTask, str, str, object], str]


_owner: list[Owner] = []


def register(owner: Owner | None) -> None:
    """Install (or, with ``None``, remove) the roster's owner."""
    _owner.clear()
    if owner is not None:
        _owner.append(owner)


def _get() -> Owner:
    if not _owner:
        raise NoRoster("No app keeps the participants of tasks.")
    return _owner[0]


def filters() -> list[tuple[str, str]]:
    return _get().filters()


def rows(
    *,
    task: SharedTask,
    viewer: object,
    filter: str = "",  # noqa: A002
    search: str = "",
) -> list[dict[str, object]]:
    return _get().rows(task, filter, search, viewer)


def csv(
    *,
    task: SharedTask,
    viewer: object,
    filter: str = "",  # noqa: A002
    search: str = "",
) -> str:
    return _get().csv(task, filter, search, viewer)
