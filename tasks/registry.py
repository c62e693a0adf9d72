"""Task-type registry: slug -> "module:Class". Slugs are stored in the database and
never renamed. Adding a task type is one line here.

Task types kept outside this package (a type under development, a test's toy type)
are named in the environment variable ``EVALHUB_EXTRA_TASK_TYPES`` as
``slug=module:Class`` items separated by commas. It is read at each call, so every
process started with it (web, worker, ``evalhub score``) sees the same types.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import os
from collections.abc import Callable

from tasks.base import TaskType

REGISTRY: dict[str, str] = {
    "bilingual_term_alignment": "tasks.bilingual_term_alignment.task:BilingualTermAlignment",
    "term_extraction": "tasks.term_extraction.task:TermExtraction",
    "sentence_alignment": "tasks.sentence_alignment.task:SentenceAlignment",
    "mt_lexicon_probe": "tasks.mt_lexicon_probe.task:MtLexiconProbe",
}


EXTRA_ENV = "EVALHUB_EXTRA_TASK_TYPES"


class UnknownTaskType(KeyError):
    pass


class UnimportableTaskType(ValueError):
    """A type named in ``EVALHUB_EXTRA_TASK_TYPES`` whose module cannot be imported."""


def _import(slug: str, module_name: str):  # noqa: ANN202
    """The module, or for an extra type a clear error naming the variable, the type
    and the module (a built-in's ImportError is a bug and stays a traceback)."""
    try:
        return importlib.import_module(module_name)
    except ImportError as exc:
        if slug in REGISTRY:
            raise
        raise UnimportableTaskType(
            f"{EXTRA_ENV}: task type {slug!r}: cannot import {module_name!r} ({exc}); "
            "is the folder that holds it on PYTHONPATH?"
        ) from None


def _entries() -> dict[str, str]:
    entries = dict(REGISTRY)
    for item in os.environ.get(EXTRA_ENV, "").split(","):
        if not item.strip():
            continue
        slug, sep, path = (part.strip() for part in item.partition("="))
        if not sep or not slug or ":" not in path:
            raise ValueError(f"{EXTRA_ENV}: expected slug=module:Class, got {item!r}")
        if slug in REGISTRY and REGISTRY[slug] != path:
            raise ValueError(f"{EXTRA_ENV}: {slug!r} is a built-in task type")
        entries[slug] = path
    return entries


@functools.cache
def get(slug: str) -> TaskType:  # type: ignore[type-arg]
    """The task type instance for ``slug`` (imported on first use)."""
    try:
        path = _entries()[slug]
    except KeyError:
        raise UnknownTaskType(slug) from None
    module_name, _, class_name = path.partition(":")
    cls = getattr(_import(slug, module_name), class_name)
    if cls.slug != slug:
        raise RuntimeError(f"{path} declares slug {cls.slug!r}, registered as {slug!r}")
    instance: TaskType = cls()  # type: ignore[type-arg]
    return instance


def cli_arguments(slug: str) -> Callable[[argparse.ArgumentParser], None] | None:
    """``add_arguments`` of the task type's optional ``cli_args`` module (beside its
    task module), which defines the ``evalhub score`` arguments without importing the
    scorer, so ``--help`` starts at once; None when there is none."""
    package = _entries()[slug].partition(":")[0].rpartition(".")[0]
    try:
        spec = importlib.util.find_spec(f"{package}.cli_args")
    except ImportError:  # the package itself is missing: get() names it
        _import(slug, package)
        raise
    if spec is None:
        return None
    return _import(slug, f"{package}.cli_args").add_arguments


def slugs() -> list[str]:
    return list(_entries())
