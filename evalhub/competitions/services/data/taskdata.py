"""Loading a test set's files and parsing them with its task type.

Parsed inputs and gold are cached per process, keyed by the files' sha256 and the
task settings, so a worker scoring many runs parses the gold once.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from dataclasses import dataclass

from evalhub.competitions.models import TestSet, TestSetFile
from tasks import registry
from tasks.base import FormatError, TaskType


class MissingFiles(Exception):
    """A test set lacks a required input or gold file."""


@dataclass(frozen=True, slots=True)
class Context:
    task_type: TaskType  # type: ignore[type-arg]
    settings: object
    inputs: object


def _files(test_set: TestSet, *, private: bool) -> dict[str, TestSetFile]:
    return {f.role: f for f in test_set.files.all() if f.private == private}


def _check_roles(
    task_type: TaskType, files: dict[str, TestSetFile], *, gold: bool, test_set: TestSet
) -> None:  # type: ignore[type-arg]
    roles = task_type.gold_roles if gold else task_type.input_roles
    missing = [r.label for r in roles if r.required and r.key not in files]
    if missing:
        kind = "gold" if gold else "input"
        raise MissingFiles(
            f"test set {test_set.name!r} has no {kind} file for: {', '.join(missing)}"
        )


@functools.lru_cache(maxsize=32)
def _parsed_inputs(
    slug: str, settings_json: str, key: tuple[tuple[str, str, str], ...], ts_pk: int
) -> object:
    task_type = registry.get(slug)
    settings = task_type.parse_settings(json.loads(settings_json))
    return task_type.parse_inputs(_read_key(key), settings)


@functools.lru_cache(maxsize=16)
def _parsed_gold(
    slug: str,
    settings_json: str,
    key: tuple[tuple[str, str, str], ...],
    inputs_key: tuple[tuple[str, str, str], ...],
    ts_pk: int,
) -> object:
    """The gold parsed against the inputs it is read with: both files' identities
    are in the key (the gold read against replaced inputs is parsed again)."""
    task_type = registry.get(slug)
    settings = task_type.parse_settings(json.loads(settings_json))
    inputs = _parsed_inputs(slug, settings_json, inputs_key, ts_pk)
    return task_type.parse_gold(_read_key(key), inputs, settings)


def _key(files: object) -> tuple[tuple[str, str, str], ...]:
    """The files' identity: role, digest and stored name. Every upload is stored
    under a name of its own, so the parsed files are exactly those of the rows read
    (a file replaced meanwhile is not read under the old key)."""
    return tuple(sorted((f.role, f.sha256, f.file.name) for f in files))  # type: ignore[attr-defined]


def _read_key(key: tuple[tuple[str, str, str], ...]) -> dict[str, bytes]:
    storage = TestSetFile._meta.get_field("file").storage
    out = {}
    for role, _, name in key:
        with storage.open(name, "rb") as handle:
            out[role] = handle.read()
    return out


def _settings_json(test_set: TestSet) -> str:
    return json.dumps(test_set.phase.task.task_settings, sort_keys=True)


def _has(test_set: TestSet, *, gold: bool) -> bool:
    task_type = test_set.phase.task.type
    files = _files(test_set, private=gold)
    roles = task_type.gold_roles if gold else task_type.input_roles
    return all(r.key in files for r in roles if r.required)


def checkable(test_sets: Iterable[TestSet]) -> list[TestSet]:
    """The test sets a run can be checked against: those with every required input
    file (a test set still being set up is left out, so it neither refuses nor
    breaks the runs of a phase that is open). Nothing is read."""
    return [ts for ts in test_sets if _has(ts, gold=False)]


def scorable(test_sets: Iterable[TestSet]) -> list[TestSet]:
    """The test sets a run is scored on: those with every required input and gold
    file. The file that completes a test set, or removes one it needs, is a change
    of its data (``runs/lifecycle.data_changed``): the runs scored before are
    scored again, on it or without it."""
    return [ts for ts in test_sets if _has(ts, gold=False) and _has(ts, gold=True)]


def ready(test_set: TestSet, roles: Iterable[str]) -> bool:
    """Whether the test set would be scorable with files of ``roles``: what a
    change of its files does to it (``runs/lifecycle.data_changed``)."""
    task_type = test_set.phase.task.type
    have = set(roles)
    needed = (*task_type.input_roles, *task_type.gold_roles)
    return all(r.key in have for r in needed if r.required)


def phase_test_sets(phase: object) -> list[TestSet]:
    """The phase's test sets with their files, in one query each."""
    return list(
        phase.test_sets.prefetch_related("files").select_related("phase__task")  # type: ignore[attr-defined]
    )


def load_inputs(test_set: TestSet) -> Context:
    task = test_set.phase.task
    task_type = task.type
    settings = task_type.parse_settings(task.task_settings)
    files = _files(test_set, private=False)
    _check_roles(task_type, files, gold=False, test_set=test_set)
    inputs = _parsed_inputs(
        task.task_type, _settings_json(test_set), _key(files.values()), test_set.pk
    )
    return Context(task_type=task_type, settings=settings, inputs=inputs)


def load_gold(test_set: TestSet) -> object:
    task = test_set.phase.task
    files = _files(test_set, private=True)
    _check_roles(task.type, files, gold=True, test_set=test_set)
    inputs = _files(test_set, private=False)
    return _parsed_gold(
        task.task_type,
        _settings_json(test_set),
        _key(files.values()),
        _key(inputs.values()),
        test_set.pk,
    )


def validate_gold(
    *, test_set: TestSet, gold_files: dict[str, bytes]
) -> tuple[str, ...]:
    """Parse candidate gold files before they replace the stored ones (FormatError);
    returns the task type's notes for the organiser."""
    ctx = load_inputs(test_set)
    gold = ctx.task_type.parse_gold(gold_files, ctx.inputs, ctx.settings)
    return ctx.task_type.gold_warnings(gold, ctx.settings)


def clear_caches() -> None:
    _parsed_inputs.cache_clear()
    _parsed_gold.cache_clear()


__all__ = [
    "Context",
    "FormatError",
    "MissingFiles",
    "clear_caches",
    "load_gold",
    "load_inputs",
    "validate_gold",
]
