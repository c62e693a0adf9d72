"""Reading the organiser's inputs of ``evalhub probe build``: word pairs (TSV or
JSON), a POS lexicon, genders, and the template sentences per part of speech (see
:mod:`tasks.mt_lexicon_probe.builder`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tasks.base import FormatError, ProblemCollector
from tasks.common.textio import decode_text, read_lines
from tasks.mt_lexicon_probe.probes import Pos


@dataclass(frozen=True, slots=True)
class Templates:
    """Sentence templates of one source language; ``{adj}``, ``{noun}``, ``{verb}``
    mark the probe word. German nouns use ``noun_feminine`` / ``noun_plural`` when
    their gender is known (paper: "eine" for feminine nouns, plural determiner and
    copula for plural-only nouns)."""

    adj: str
    noun: str
    verb: str
    noun_feminine: str | None = None
    noun_plural: str | None = None

    def sentence(self, word: str, pos: Pos, gender: str | None = None) -> str:
        template = {Pos.ADJ: self.adj, Pos.NOUN: self.noun, Pos.VERB: self.verb}[pos]
        if pos is Pos.NOUN and gender == "f" and self.noun_feminine:
            template = self.noun_feminine
        elif pos is Pos.NOUN and gender == "pl" and self.noun_plural:
            template = self.noun_plural
        return template.replace("{" + pos.value + "}", word)


DEFAULT_TEMPLATES: dict[str, Templates] = {
    "en": Templates("This is {adj}.", "The {noun} can be nice.", "We {verb}."),
    "de": Templates(
        "Es ist {adj}.",
        "Ein {noun} ist gut.",
        "Wir müssen {verb}.",
        noun_feminine="Eine {noun} ist gut.",
        noun_plural="Die {noun} sind gut.",
    ),
}


def read_pairs(
    data: bytes, file: str, *, columns: Sequence[str], source: str
) -> list[tuple[str, str]]:
    """Bilingual ``a<TAB>b`` lines as (source word, target word); ``columns`` names
    the two columns' languages (Wiktionary BLI files: ``("de", "en")``)."""
    if source not in columns:
        raise ValueError(
            f"source language {source!r} is not one of the columns {columns}"
        )
    src_col = list(columns).index(source)
    problems = ProblemCollector()
    pairs: list[tuple[str, str]] = []
    for line in read_lines(data, file, keep_empty=False):
        cols = line.text.split("\t")
        if len(cols) != 2 or not cols[0].strip() or not cols[1].strip():
            problems.add(
                file, line.number, "expected two non-empty tab-separated columns"
            )
            continue
        pairs.append((cols[src_col].strip(), cols[1 - src_col].strip()))
    problems.raise_if_any()
    return pairs


#: Part-of-speech labels accepted in a lexicon's third column (case-insensitive):
#: the spec's names and the Wiktionary BLI file suffixes.
POS_LABELS = {
    "adj": Pos.ADJ,
    "adjective": Pos.ADJ,
    "noun": Pos.NOUN,
    "verb": Pos.VERB,
}


def read_pos_lexicon(
    data: bytes, file: str, *, columns: Sequence[str], source: str
) -> dict[Pos, list[tuple[str, str]]]:
    """A word list with parts of speech: ``a<TAB>b<TAB>pos`` lines, ``columns`` naming
    the languages of ``a`` and ``b``, ``pos`` one of :data:`POS_LABELS` (other word
    classes, e.g. adverbs, are errors: the probe set has three classes). Every problem
    is reported with its line; a lexicon without pairs is an error."""
    if source not in columns:
        raise ValueError(
            f"source language {source!r} is not one of the columns {columns}"
        )
    src_col = list(columns).index(source)
    problems = ProblemCollector()
    out: dict[Pos, list[tuple[str, str]]] = {}
    for line in read_lines(data, file, keep_empty=False):
        cols = [c.strip() for c in line.text.split("\t")]
        if len(cols) != 3 or not cols[0] or not cols[1]:
            problems.add(
                file,
                line.number,
                f"expected 3 tab-separated columns ({columns[0]} word, "
                f"{columns[1]} word, pos), found {len(cols)}",
            )
            continue
        pos = POS_LABELS.get(cols[2].casefold())
        if pos is None:
            problems.add(
                file, line.number, f"unknown pos {cols[2]!r} (valid: adj, noun, verb)"
            )
            continue
        out.setdefault(pos, []).append((cols[src_col], cols[1 - src_col]))
    problems.raise_if_any()
    if not out:
        raise FormatError.at(file, None, "the lexicon contains no word pairs")
    return out


def read_word_pairs(
    data: bytes, file: str, *, columns: Sequence[str], source: str
) -> list[tuple[str, str]]:
    """One word class's pairs: a JSON object / zip (German-Wiktionary parser, keys
    are source words) or two-column TSV; a file without pairs is an error."""
    if data[:2] == b"PK" or data.lstrip()[:1] == b"{":
        pairs = read_json_pairs(data, file)
    else:
        pairs = read_pairs(data, file, columns=columns, source=source)
    if not pairs:
        raise FormatError.at(file, None, "contains no word pairs")
    return pairs


def templates_for(
    lang: str, *, adj: str = "", noun: str = "", verb: str = ""
) -> Templates:
    """The default templates of ``lang`` with the given ones replacing them; each
    template must hold its placeholder (``{adj}``, ``{noun}``, ``{verb}``). A noun
    template of one's own drops the default's gendered variants."""
    base = DEFAULT_TEMPLATES.get(lang, DEFAULT_TEMPLATES["en"])
    given = {"adj": adj.strip(), "noun": noun.strip(), "verb": verb.strip()}
    for key, template in given.items():
        if template and "{" + key + "}" not in template:
            raise ValueError(f"the {key} template must contain {{{key}}}")
    # A different noun template makes the gendered variants (German articles) wrong.
    own_noun = bool(given["noun"]) and given["noun"] != base.noun
    return Templates(
        given["adj"] or base.adj,
        given["noun"] or base.noun,
        given["verb"] or base.verb,
        None if own_noun else base.noun_feminine,
        None if own_noun else base.noun_plural,
    )


def read_json_pairs(data: bytes, file: str) -> list[tuple[str, str]]:
    """A JSON object ``{source word: [target, ...]}`` (German-Wiktionary parser
    format), or a zip archive holding one such ``.json`` file."""
    import io
    import json
    import zipfile

    if data[:2] == b"PK":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = [n for n in archive.namelist() if n.endswith(".json")]
            if len(names) != 1:
                raise FormatError.at(
                    file, None, "the zip archive must hold exactly one .json file"
                )
            data = archive.read(names[0])
    try:
        obj = json.loads(decode_text(data, file))
    except json.JSONDecodeError as exc:
        raise FormatError.at(file, exc.lineno, f"invalid JSON: {exc.msg}") from None
    if not isinstance(obj, dict):
        raise FormatError.at(
            file, None, "expected a JSON object {word: [translations]}"
        )
    pairs: list[tuple[str, str]] = []
    for src, targets in obj.items():
        for tgt in targets if isinstance(targets, list) else [targets]:
            if isinstance(tgt, str) and src.strip() and tgt.strip():
                pairs.append((src.strip(), tgt.strip()))
    return pairs


def read_genders(data: bytes, file: str) -> dict[str, str]:
    """``noun<TAB>gender`` lines, gender one of m, f, n, pl."""
    problems = ProblemCollector()
    out: dict[str, str] = {}
    for line in read_lines(data, file, keep_empty=False):
        cols = [c.strip() for c in line.text.split("\t")]
        if len(cols) != 2 or cols[1] not in ("m", "f", "n", "pl"):
            problems.add(
                file, line.number, "expected noun<TAB>gender with gender m, f, n or pl"
            )
            continue
        out[cols[0].casefold()] = cols[1]
    problems.raise_if_any()
    return out
