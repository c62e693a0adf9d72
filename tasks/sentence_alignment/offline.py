"""``evalhub score sentence_alignment``: the files named on the command line, read
and scored as the platform scores them.

The spec's contract is one document: ``--source S --target T --gold G --run R``.
A test set of the platform holds several documents, and its scores are counts
summed over them (micro average), which per-document commands do not print; so,
as a compatible extension, ``--documents D.zip`` (the test set's bitexts as
downloaded from the task page) replaces ``--source`` and ``--target``, and
``--gold`` and ``--run`` then hold every document, in the platform's formats (a
zip of ``<document>.align`` or one file with ``# <document>`` lines). One run file
covers every test set of a phase: ``--ignore-other-documents`` skips the run's
documents that are not in ``--documents``, as the platform skips the other test
sets' documents when it scores this one."""

from __future__ import annotations

import argparse
from pathlib import Path

from tasks.base import SettingsError
from tasks.common import cli_files
from tasks.sentence_alignment.formats import (
    DOC_NAME,
    AlignmentSet,
    Document,
    document_names,
    parse_alignments,
    parse_documents,
    parse_sentences,
)


def check_arguments(args: argparse.Namespace) -> None:
    """Either ``--documents`` or both ``--source`` and ``--target``."""
    single = args.source is not None or args.target is not None
    if args.documents is not None and single:
        raise SettingsError(
            "--documents replaces --source and --target: give one or the other"
        )
    if args.documents is None and (args.source is None or args.target is None):
        raise SettingsError(
            "give --source and --target (one document) or --documents (a test set)"
        )
    if args.ignore_other_documents and args.documents is None:
        raise SettingsError("--ignore-other-documents goes with --documents")


def read_documents(args: argparse.Namespace) -> tuple[Document, ...]:
    """The documents of ``--documents``, or the one of ``--source``/``--target``."""
    if args.documents is not None:
        data = cli_files.read_input(args.documents, "--documents")
        return parse_documents(data, cli_files.label("--documents", args.documents))
    name = Path(args.source).name.split(".")[0] or "document"
    return (
        Document(
            name if DOC_NAME.fullmatch(name) else "document",
            parse_sentences(
                cli_files.read_input(args.source, "--source"),
                cli_files.label("--source", args.source),
            ),
            parse_sentences(
                cli_files.read_input(args.target, "--target"),
                cli_files.label("--target", args.target),
            ),
        ),
    )


def read_alignments(
    args: argparse.Namespace, documents: tuple[Document, ...]
) -> tuple[AlignmentSet, AlignmentSet]:
    """(gold, run) of ``documents``."""
    gold = parse_alignments(
        cli_files.read_input(args.gold, "--gold"),
        cli_files.label("--gold", args.gold),
        documents,
    )
    data = cli_files.read_input(args.run, "--run", allow_blank=True)
    file = cli_files.label("--run", args.run)
    ignore: frozenset[str] = frozenset()
    if args.ignore_other_documents:
        ignore = document_names(data, file) - {d.name for d in documents}
    return gold, parse_alignments(data, file, documents, ignore=ignore)
