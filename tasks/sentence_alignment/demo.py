"""Project-generated demo bitexts: an invented language pair, reference alignments and
three runs of different quality. Deterministic for a given seed; no external data."""

from __future__ import annotations

import io
import random
import zipfile
from dataclasses import dataclass

from tasks.base import Demo, DemoTestSet

_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z")
_VOWELS = ("a", "e", "i", "o", "u")


@dataclass(frozen=True, slots=True)
class _Bead:
    source: tuple[int, ...]
    target: tuple[int, ...]


def _lexicon(rng: random.Random, size: int) -> list[tuple[str, str]]:
    """(source word, target word) pairs; target words are a fixed rewrite of the source."""
    words: list[tuple[str, str]] = []
    seen: set[str] = set()
    while len(words) < size:
        syllables = [
            rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(rng.randint(1, 3))
        ]
        word = "".join(syllables)
        if word in seen:
            continue
        seen.add(word)
        words.append((word, "".join(s[::-1] for s in reversed(syllables)) + "n"))
    return words


def _document(
    rng: random.Random, lexicon: list[tuple[str, str]], n_beads: int
) -> tuple[list[str], list[str], list[_Bead]]:
    source: list[str] = []
    target: list[str] = []
    beads: list[_Bead] = []
    shapes = ("1-1",) * 12 + ("1-2", "2-1", "1-0", "0-1", "2-2")
    for _ in range(n_beads):
        shape = rng.choice(shapes)
        n_src, n_tgt = (int(x) for x in shape.split("-"))
        content = [
            rng.choice(lexicon)
            for _ in range(rng.randint(4, 16) * max(n_src, n_tgt, 1))
        ]
        src_words = [w for w, _ in content]
        tgt_words = [t for _, t in content]
        s_ids = tuple(range(len(source), len(source) + n_src))
        t_ids = tuple(range(len(target), len(target) + n_tgt))
        source.extend(_split(src_words, n_src))
        target.extend(_split(tgt_words, n_tgt))
        beads.append(_Bead(s_ids, t_ids))
    return source, target, beads


def _split(words: list[str], parts: int) -> list[str]:
    if parts == 0:
        return []
    size = -(-len(words) // parts)
    chunks = [words[i : i + size] for i in range(0, len(words), size)]
    return [
        " ".join(chunk).capitalize() + ("," if i % 3 == 2 else "") + " ."
        for i, chunk in enumerate(chunks)
    ]


def _good(beads: list[_Bead]) -> list[_Bead]:
    """Merges two neighbouring 1-1 beads once, drops omissions/insertions."""
    out = [b for b in beads if b.source and b.target]
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        if len(a.source) == len(a.target) == len(b.source) == len(b.target) == 1:
            out[i : i + 2] = [_Bead(a.source + b.source, a.target + b.target)]
            break
    return out


def _medium(beads: list[_Bead]) -> list[_Bead]:
    """Aligns everything 1-1 along the way, then attaches leftovers to neighbours."""
    out: list[_Bead] = []
    for bead in beads:
        if len(bead.source) == len(bead.target):
            out.extend(
                _Bead((s,), (t,)) for s, t in zip(bead.source, bead.target, strict=True)
            )
        elif bead.source and bead.target:
            out.append(_Bead(bead.source[:1], bead.target[:1]))
            rest = _Bead(bead.source[1:], bead.target[1:])
            if rest.source or rest.target:
                out.append(rest)
        elif out:
            last = out[-1]
            out[-1] = _Bead(last.source + bead.source, last.target + bead.target)
    return out


def _poor(n_src: int, n_tgt: int) -> list[_Bead]:
    """The diagonal: sentence i with sentence i, leftovers unaligned."""
    out = [_Bead((i,), (i,)) for i in range(min(n_src, n_tgt))]
    out += [_Bead((i,), ()) for i in range(n_tgt, n_src)]
    out += [_Bead((), (j,)) for j in range(n_src, n_tgt)]
    return out


def _lines(beads: list[_Bead]) -> str:
    return "".join(f"{list(b.source)}:{list(b.target)}\n" for b in beads)


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            archive.writestr(info, files[name].encode("utf-8"), zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


#: The demo's test sets as readers see them.
_TITLES = {"reports": "Reports: minutes and letters", "novel": "Novel: one chapter"}


def build_demo(seed: int = 0) -> Demo:
    rng = random.Random(seed)
    lexicon = _lexicon(rng, 400)
    layout = {"reports": ("minutes", "letters"), "novel": ("chapter1",)}
    test_sets: list[DemoTestSet] = []
    # One run file covers the documents of both test sets (as participants submit it).
    good: list[str] = []
    medium: dict[str, str] = {}
    poor: list[str] = []
    for set_name, doc_names in layout.items():
        inputs: dict[str, str] = {}
        gold: dict[str, str] = {}
        for doc in doc_names:
            source, target, beads = _document(rng, lexicon, rng.randint(25, 40))
            inputs[f"{doc}.src"] = "".join(s + "\n" for s in source)
            inputs[f"{doc}.tgt"] = "".join(t + "\n" for t in target)
            gold[f"{doc}.align"] = _lines(beads)
            good.append(f"# {doc}\n" + _lines(_good(beads)))
            medium[f"{doc}.align"] = _lines(_medium(beads))
            poor.append(f"# {doc}\n" + _lines(_poor(len(source), len(target))))
        test_sets.append(
            DemoTestSet(
                name=set_name,
                title=_TITLES[set_name],
                inputs={"documents": _zip(inputs)},
                gold={"gold": _zip(gold)},
                visibility="public" if set_name == "reports" else "private",
            )
        )
    names = [ts.name for ts in test_sets]
    good_run = "".join(good).encode("utf-8")
    medium_run = _zip(medium)
    poor_run = "".join(poor).encode("utf-8")
    runs = {
        "good": dict.fromkeys(names, good_run),
        "medium": dict.fromkeys(names, medium_run),
        "poor": dict.fromkeys(names, poor_run),
    }
    return Demo(
        title="Demo: sentence alignment (ARCADE)",
        description=(
            "Align the sentences of invented bitexts. Two test sets: 'reports' (two "
            "documents, public) and 'novel' (one document, private). Scored with ARCADE's "
            "alignment/sentence/word/char recall and precision and vecalign's strict/lax F1."
        ),
        settings={"primary_granularity": "sentence"},
        test_sets=tuple(test_sets),
        runs=(
            ("Team Anchor", "lexical DP", runs["good"]),
            ("Team Bead", "length-based 1-1", runs["medium"]),
            ("Team Diagonal", "diagonal baseline", runs["poor"]),
        ),
    )
