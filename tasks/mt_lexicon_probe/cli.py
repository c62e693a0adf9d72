"""``evalhub probe build``: build a probe set from POS-split bilingual word lists.

Example (English->German, the Wiktionary BLI files, paper defaults)::

    evalhub probe build --lang en --columns de,en \\
        --pos-lists adj=de-en.train.Adjective noun=de-en.train.Noun verb=de-en.train.Verb \\
        --dictionary de-en.all --seed 1 --per-cell 100 --out probes.tsv \\
        --public-out probes.public.tsv --references-out references.tsv

Prints the counts available in each frequency band (``--json``: one JSON object).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tasks.base import FormatError
from tasks.mt_lexicon_probe.builder import (
    BuildConfig,
    build_probe_set,
    read_genders,
    read_word_pairs,
    templates_for,
    wordfreq_zipf,
)
from tasks.mt_lexicon_probe.probes import (
    FreqClass,
    Pos,
    probes_to_tsv,
    references_to_tsv,
)


def add_probe_parser(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    probe = commands.add_parser("probe", help="organiser tools for mt_lexicon_probe")
    actions = probe.add_subparsers(dest="probe_command", required=True)
    b = actions.add_parser(
        "build",
        help="build a probe set",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument(
        "--pos-lists",
        nargs="+",
        required=True,
        metavar="POS=FILE",
        help="bilingual TSV per word class (adj, noun, verb), or a JSON/zip {source: [targets]}; repeat a class to merge files",
    )
    b.add_argument(
        "--dictionary",
        nargs="*",
        default=[],
        metavar="FILE",
        help="more bilingual TSV files, used only to exclude words spelt the same in both languages",
    )
    b.add_argument(
        "--columns",
        default="de,en",
        help="languages of the two columns of every file (default de,en)",
    )
    b.add_argument(
        "--lang", default="en", help="source language of the probes (default en)"
    )
    b.add_argument("--seed", type=int, default=1)
    b.add_argument(
        "--per-cell",
        type=int,
        default=100,
        help="words per word class x frequency class",
    )
    b.add_argument(
        "--medium-zipf", type=float, help="medium band centre (default: CELEX count 25)"
    )
    b.add_argument(
        "--low-zipf", type=float, help="low band centre (default: CELEX count 1)"
    )
    b.add_argument(
        "--band-width",
        type=float,
        default=0.15,
        help="half width of a band in Zipf units",
    )
    b.add_argument(
        "--min-pos-share",
        type=float,
        default=0.25,
        help="minimum share of a word's dictionary pairs in the class",
    )
    b.add_argument(
        "--exclude",
        metavar="FILE",
        help="words to leave out, one per line (manual check)",
    )
    b.add_argument(
        "--keep-closed-class",
        action="store_true",
        help="do not drop the built-in closed-class words",
    )
    b.add_argument(
        "--genders",
        metavar="FILE",
        help="German nouns: noun<TAB>m|f|n|pl (article choice)",
    )
    b.add_argument("--template-adj", help="override the adjective template ({adj})")
    b.add_argument("--template-noun", help="override the noun template ({noun})")
    b.add_argument("--template-verb", help="override the verb template ({verb})")
    b.add_argument(
        "--out", required=True, help="probe TSV with references (organiser copy)"
    )
    b.add_argument(
        "--public-out", help="probe TSV without references (for participants)"
    )
    b.add_argument(
        "--references-out", help="references TSV id<TAB>ref1|ref2 (private gold)"
    )
    b.add_argument("--json", action="store_true", help="print the band report as JSON")


def run_probe(args: argparse.Namespace) -> int:
    try:
        report = _build(args)
    except (FormatError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for band in report["bands"]:
            print(
                "{pos}\t{freq_class}\tZipf {zipf_min:.2f}-{zipf_max:.2f}\tavailable {available}\tselected {selected}".format(
                    **band
                )
            )
        for warning in report["warnings"]:
            print(f"warning: {warning}", file=sys.stderr)
    return 0


def _pairs(path: str, columns: tuple[str, ...], lang: str) -> list[tuple[str, str]]:
    return read_word_pairs(Path(path).read_bytes(), path, columns=columns, source=lang)


def _build(args: argparse.Namespace) -> dict[str, object]:
    columns = tuple(c.strip() for c in args.columns.split(","))
    if len(columns) != 2 or args.lang not in columns:
        raise ValueError(
            f"--columns must name two languages including --lang {args.lang}"
        )
    target = columns[1 - columns.index(args.lang)]
    pos_pairs: dict[Pos, list[tuple[str, str]]] = {}
    for spec in args.pos_lists:
        name, _, path = spec.partition("=")
        if name not in {p.value for p in Pos} or not path:
            raise ValueError(
                f"--pos-lists {spec!r}: expected adj=FILE, noun=FILE or verb=FILE"
            )
        pos_pairs.setdefault(Pos(name), []).extend(_pairs(path, columns, args.lang))
    dictionary = [
        pair for path in args.dictionary for pair in _pairs(path, columns, args.lang)
    ]
    config = BuildConfig(
        lang=args.lang,
        target_lang=target,
        per_cell=args.per_cell,
        seed=args.seed,
        medium_zipf=args.medium_zipf,
        low_zipf=args.low_zipf,
        band_width=args.band_width,
        min_pos_share=args.min_pos_share,
        drop_closed_class=not args.keep_closed_class,
    )
    templates = templates_for(
        args.lang,
        adj=args.template_adj or "",
        noun=args.template_noun or "",
        verb=args.template_verb or "",
    )
    exclude = (
        Path(args.exclude).read_text(encoding="utf-8").split() if args.exclude else ()
    )
    genders = (
        read_genders(Path(args.genders).read_bytes(), args.genders)
        if args.genders
        else None
    )
    result = build_probe_set(
        pos_pairs,
        config,
        frequency=wordfreq_zipf(args.lang),
        dictionary_pairs=dictionary,
        genders=genders,
        templates=templates,
        exclude=exclude,
    )
    probes = result.probes.probes
    Path(args.out).write_text(probes_to_tsv(probes), encoding="utf-8")
    if args.public_out:
        Path(args.public_out).write_text(
            probes_to_tsv(probes, references=False), encoding="utf-8"
        )
    if args.references_out:
        Path(args.references_out).write_text(
            references_to_tsv(probes), encoding="utf-8"
        )
    return {
        "n_probes": len(probes),
        "medium_zipf": config.centre(FreqClass.MEDIUM),
        "low_zipf": config.centre(FreqClass.LOW),
        "bands": [
            {
                "pos": b.pos.value,
                "freq_class": b.freq_class.value,
                "zipf_min": b.zipf_min,
                "zipf_max": b.zipf_max,
                "available": b.available,
                "selected": b.selected,
            }
            for b in result.bands
        ],
        "excluded": dict(result.excluded),
        "warnings": list(result.warnings),
    }
