"""Task-type registry: slug -> "module:Class". Slugs are stored in the database and
never renamed. Adding a task type is one line here."""

from __future__ import annotations

import functools
import importlib

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


def slugs() -> list[str]:
    return list(REGISTRY)
