"""Benchmark: all four ARCADE levels + strict/lax on a 400,000-word-per-side bitext.

Run: ``.venv/bin/python bench/sentence_alignment.py``

ARCADE's BAF corpus is about 400,000 words per language. The bitext here is the
Text+Berg de–fr documents (dev, test0..6) repeated, indices shifted, until the source
side passes 400,000 words; the run is Bertalign's output on test0..6 and Gale–Church's
on dev, repeated the same way. "ours" is ``score_document`` including the per-sentence
word and character counting. The baseline, timed in the same process, is the
straightforward implementation: explicit Python sets of sentence pairs, words and
characters counted again for every pair, and vecalign-style Python loops for
strict/lax. Both must give identical counts. Best of ``REPEATS`` runs each.
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tasks.sentence_alignment.formats import (  # noqa: E402
    Alignment,
    Bisegment,
    Document,
    parse_alignments,
    parse_sentences,
)
from tasks.sentence_alignment.metrics import (  # noqa: E402
    WORD,
    Units,
    char_count,
    score_document,
    word_count,
)
from tests.paths import shared_data  # noqa: E402

TARGET_WORDS = 400_000
REPEATS = 3
Key = tuple[tuple[int, ...], tuple[int, ...]]


def _pieces() -> list[tuple[Document, Alignment, Alignment]]:
    base = shared_data("sentence_alignment", "vecalign_bleualign_data")
    runs = {
        f"test{i}": shared_data(
            "sentence_alignment", "bertalign_textberg_auto", f"00{i + 1}.align"
        )
        for i in range(7)
    }
    runs["dev"] = shared_data(
        "sentence_alignment",
        "derived_bleualign_refer_as_indices",
        "eval1957-galechurch.dev.defr",
    )
    out = []
    for name, run_path in runs.items():
        doc = Document(
            name,
            parse_sentences((base / f"{name}.de").read_bytes(), f"{name}.de"),
            parse_sentences((base / f"{name}.fr").read_bytes(), f"{name}.fr"),
        )
        gold = parse_alignments(
            (base / f"{name}.defr").read_bytes(), name, [doc]
        ).alignments[0]
        run = parse_alignments(run_path.read_bytes(), run_path.name, [doc]).alignments[
            0
        ]
        out.append((doc, gold, run))
    return out


def build() -> tuple[Document, Alignment, Alignment]:
    pieces = _pieces()
    source: list[str] = []
    target: list[str] = []
    gold: list[Bisegment] = []
    run: list[Bisegment] = []
    words = 0
    while words < TARGET_WORDS:
        for doc, g, r in pieces:
            ds, dt = len(source), len(target)
            for segs, out in ((g, gold), (r, run)):
                out.extend(
                    Bisegment(
                        tuple(i + ds for i in b.source), tuple(j + dt for j in b.target)
                    )
                    for b in segs.bisegments
                )
            source.extend(doc.source)
            target.extend(doc.target)
            words += sum(word_count(s) for s in doc.source)
    doc = Document("big", tuple(source), tuple(target))
    return doc, Alignment.of("big", gold), Alignment.of("big", run)


def baseline(doc: Document, gold: Alignment, run: Alignment) -> list[tuple[int, ...]]:
    """The definitions written out directly with sets and loops."""
    g: set[Key] = {b.key for b in gold.bisegments}
    r: set[Key] = {b.key for b in run.bisegments}
    gp = {(s, t) for a, b in g for s in a for t in b}
    rp = {(s, t) for a, b in r for s in a for t in b}
    both = gp & rp

    def weigh(pairs: set[tuple[int, int]], unit: str) -> int:
        total = 0
        for s, t in pairs:
            if unit == "word":
                total += len(WORD.findall(doc.source[s])) * len(
                    WORD.findall(doc.target[t])
                )
            else:
                total += len([c for c in doc.source[s] if not c.isspace()]) * len(
                    [c for c in doc.target[t] if not c.isspace()]
                )
        return total

    def hits(test: set[Key], ref: set[Key]) -> tuple[int, int]:
        src_to_tgt: dict[int, set[int]] = defaultdict(set)
        for a, b in ref:
            for s in a:
                src_to_tgt[s].update(b)
        strict = lax = 0
        for a, b in test:
            if (a, b) in ref:
                strict += 1
                lax += 1
            elif set(b) & {t for s in a for t in src_to_tgt[s]}:
                lax += 1
        return strict, lax

    ps, pl = hits(r, g)
    g_full = {k for k in g if k[0] and k[1]}
    rs, rl = hits(g_full, {k for k in r if k[0] and k[1]})
    out = [
        (len(g & r), len(r), len(g & r), len(g)),
        (len(both), len(rp), len(both), len(gp)),
    ]
    for unit in ("word", "char"):
        common = weigh(both, unit)
        out.append((common, weigh(rp, unit), common, weigh(gp, unit)))
    out += [(ps, len(r), rs, len(g_full)), (pl, len(r), rl, len(g_full))]
    return out


def ours(doc: Document, gold: Alignment, run: Alignment) -> list[tuple[int, ...]]:
    counts = score_document(doc, gold, run, Units.of(doc)).counts
    return [
        (c.correct, c.proposed, c.correct_reference, c.reference) for c in counts.levels
    ]


def best(fn, *args):  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(REPEATS):
        start = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    doc, gold, run = build()
    n_words = (
        sum(word_count(s) for s in doc.source),
        sum(word_count(t) for t in doc.target),
    )
    n_chars = sum(char_count(s) for s in doc.source)
    print(
        f"bitext: {len(doc.source):,} x {len(doc.target):,} sentences, "
        f"{n_words[0]:,} / {n_words[1]:,} words, {n_chars:,} source characters; "
        f"{len(gold.bisegments):,} gold and {len(run.bisegments):,} run bisegments"
    )
    t_ours, r_ours = best(ours, doc, gold, run)
    t_base, r_base = best(baseline, doc, gold, run)
    if r_ours != r_base:
        raise SystemExit(f"MISMATCH\nours:     {r_ours}\nbaseline: {r_base}")
    print(f"ours (4 ARCADE levels + strict/lax, incl. unit counting): {t_ours:.3f} s")
    print(f"baseline (sets of pairs, Python loops):                  {t_base:.3f} s")
    print(f"ratio baseline / ours: {t_base / t_ours:.1f}x; counts identical")
    if t_ours >= 1.0:
        print("WARNING: over the 1 s budget")


if __name__ == "__main__":
    main()
