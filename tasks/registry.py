"""Task-type registry: slug -> "module:Class". Slugs are stored in the database and
never renamed. Adding a task type is one line here."""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
from collections.abc import Callable

from tasks.base import TaskType

REGISTRY: dict[str, str] = {
    "bilingual_term_alignment": "tasks.bilingual_term_alignment.task:BilingualTermAlignment",
    "term_extraction": "tasks.term_extraction.task:TermExtraction",
    "sentence_alignment": "tasks.sentence_alignment.task:SentenceAlignment",
    "mt_lexicon_probe": "tasks.mt_lexicon_probe.task:MtLexiconProbe",
}


class UnknownTaskType(KeyError):
    pass


@functools.cache
def get(slug: str) -> TaskType:  # type: ignore[type-arg]
    """The task type instance for ``slug`` (imported on first use)."""
    try:
        path = REGISTRY[slug]
    except KeyError:
        raise UnknownTaskType(slug) from None
    module_name, _, class_name = path.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if cls.slug != slug:
        raise RuntimeError(f"{path} declares slug {cls.slug!r}, registered as {slug!r}")
    instance: TaskType = cls()  # type: ignore[type-arg]
    return instance


def cli_arguments(slug: str) -> Callable[[argparse.ArgumentParser], None] | None:
    """``add_arguments`` of the task type's optional ``cli_args`` module (beside its
    task module), which defines the ``evalhub score`` arguments without importing the
    scorer, so ``--help`` starts at once; None when there is none."""
    package = REGISTRY[slug].partition(":")[0].rpartition(".")[0]
    if importlib.util.find_spec(f"{package}.cli_args") is None:
        return None
    return importlib.import_module(f"{package}.cli_args").add_arguments


def slugs() -> list[str]:
    return list(REGISTRY)
