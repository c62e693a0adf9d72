"""Runs and gold built straight from pairs, for the metric tests."""

from __future__ import annotations

from collections.abc import Sequence

from tasks.bilingual_term_alignment import metrics
from tasks.bilingual_term_alignment.formats import Gold, Pair, Run
from tasks.bilingual_term_alignment.vocabulary import Vocabulary


def coded(
    run: Sequence[Pair], gold: Sequence[Pair] | frozenset[Pair]
) -> tuple[Run, Gold]:
    """A de-duplicated run and a gold over the terms they use."""
    pairs = [*run, *gold]
    vocabulary = Vocabulary.of({s for s, _ in pairs}, {t for _, t in pairs})
    rows = [vocabulary.rows[s] for s, _ in run]
    parsed = Run(vocabulary.codes(run), rows, vocabulary, len(run), 0, 0, 0, ())
    return parsed, Gold.of(gold, vocabulary)


def compute(
    run: Sequence[Pair], gold: frozenset[Pair]
) -> tuple[metrics.Scores, list[bool]]:
    """metrics.compute on pairs: the scores and the rel vector."""
    scores, hit_ranks = metrics.compute(*coded(run, gold))
    return scores, metrics.relevance_of(hit_ranks, len(run))
