"""Building a probe set from the organiser pages (the web side of
``evalhub probe build``; the selection itself is
:func:`tasks.mt_lexicon_probe.builder.build_probe_set`).

1. :func:`build` reads the uploaded word lists (or those of the previous build, kept
   with it), runs the builder and keeps the result as a *draft* in the cache for
   :data:`DRAFT_SECONDS`: the organiser sees the cells, sample words and warnings
   before anything is stored, and can tune parameters without uploading again.
2. :func:`save` stores a draft into a test set through the dataset service: the
   probe sentences without references as the public input ``probes``, the reference
   translations as the private gold ``references``.

Measured on the Wiktionary de-en lists (2.5 MB: train Adjective/Noun/Verb and
de-en.all; 2 shared cores, load 4.6): reading 0.6 s, building 2.9 s the first time
in a process (wordfreq loads its data), 1.5 s after that. That is short enough for
the request itself; the page shows the upload progress and a "building" status.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.core.cache import cache
from django.db import transaction
from django.utils.text import slugify

from evalhub.competitions.models import Evaluation, Phase, SharedTask, TestSet
from evalhub.competitions.services.data import datasets
from tasks.base import FormatError
from tasks.mt_lexicon_probe.builder import (
    BuildConfig,
    build_probe_set,
    default_zipf,
    read_genders,
    read_pos_lexicon,
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

DRAFT_SECONDS = 3600
SAMPLES = 6
LANGUAGES = ("en", "de")


class BuildError(ValueError):
    """Parameters that do not fit together (the message says which)."""


class DraftExpired(LookupError):
    """The draft is gone (expired or never built): build again."""


@dataclass(frozen=True, slots=True)
class Upload:
    name: str
    data: bytes


@dataclass(frozen=True, slots=True)
class WordLists:
    """The organiser's files: a lexicon with parts of speech and/or one list per
    word class; optionally a dictionary, words to leave out and noun genders."""

    lexicon: Upload | None = None
    class_lists: Mapping[Pos, Upload] = field(default_factory=dict)
    dictionary: Upload | None = None
    exclude: Upload | None = None
    genders: Upload | None = None

    @property
    def empty(self) -> bool:
        return self.lexicon is None and not self.class_lists

    def names(self) -> tuple[str, ...]:
        files = (self.lexicon, *self.class_lists.values(), self.dictionary)
        return tuple(f.name for f in (*files, self.exclude, self.genders) if f)


@dataclass(frozen=True, slots=True)
class Params:
    lang: str = "en"
    columns: tuple[str, str] = ("de", "en")
    per_cell: int = 100
    seed: int = 1
    medium_zipf: float | None = None
    low_zipf: float | None = None
    band_width: float = 0.15
    template_adj: str = ""
    template_noun: str = ""
    template_verb: str = ""


@dataclass(frozen=True, slots=True)
class Cell:
    pos: str
    freq_class: str
    zipf_min: float
    zipf_max: float
    available: int
    selected: int
    samples: tuple[str, ...]
    wanted: int

    @property
    def short(self) -> bool:
        return self.selected < self.wanted


@dataclass(frozen=True, slots=True)
class Preview:
    token: str
    lists_token: str
    list_names: tuple[str, ...]
    n_probes: int
    per_cell: int
    cells: tuple[Cell, ...]
    sentences: tuple[str, ...]
    warnings: tuple[str, ...]
    excluded: tuple[tuple[str, int], ...]
    medium_zipf: float
    low_zipf: float
    n_references: int
    sha256: str
    seconds: float

    def grid(self) -> list[tuple[str, list[Cell]]]:
        """Rows per word class, one cell per frequency class (high, medium, low)."""
        return [
            (pos.value, [c for c in self.cells if c.pos == pos.value]) for pos in Pos
        ]


def initial(*, task: SharedTask) -> dict[str, object]:
    """The form's starting values: the task's language and templates (empty: the
    paper's for the language chosen), the spec's default Zipf band centres (the
    paper's CELEX counts 25 and 1)."""
    settings = task.parsed_settings()
    lang = getattr(settings, "source_lang", "en")
    return {
        "lang": lang,
        "columns": "de,en",
        "per_cell": 100,
        "seed": 1,
        "medium_zipf": default_zipf(lang, 25),
        "low_zipf": default_zipf(lang, 1),
        "band_width": 0.15,
        "template_adj": getattr(settings, "template_adj", ""),
        "template_noun": getattr(settings, "template_noun", ""),
        "template_verb": getattr(settings, "template_verb", ""),
    }


def _draft_key(task: SharedTask, token: str) -> str:
    return f"evalhub:probe-draft:{task.pk}:{token}"


def _lists_key(task: SharedTask, token: str) -> str:
    return f"evalhub:probe-lists:{task.pk}:{token}"


def build(
    *, task: SharedTask, params: Params, lists: WordLists, reuse: str = ""
) -> Preview:
    """Build a probe set from ``lists`` (or, when none is uploaded, the word lists
    of the build ``reuse`` names, kept for :data:`DRAFT_SECONDS`, so parameters can
    be tuned without uploading again); keep it as a draft. Raises FormatError (file
    and line) or BuildError."""
    lists_token = secrets.token_urlsafe(12)
    if lists.empty and reuse:
        kept = cache.get(_lists_key(task, reuse))
        if kept is None:
            raise BuildError(
                "the word lists of the last build have expired; upload them again"
            )
        lists, lists_token = kept, reuse
    if lists.empty:
        raise BuildError(
            "upload a lexicon (word, translation, pos) or a word list per word class"
        )
    if params.lang not in params.columns or len(params.columns) != 2:
        raise BuildError(
            f"the columns ({','.join(params.columns)}) must name two languages "
            f"including the source language {params.lang}"
        )
    lexicon, class_lists = lists.lexicon, lists.class_lists
    dictionary, exclude, genders = lists.dictionary, lists.exclude, lists.genders
    target = params.columns[1 - params.columns.index(params.lang)]
    pos_pairs: dict[Pos, list[tuple[str, str]]] = {}
    if lexicon is not None:
        for pos, pairs in read_pos_lexicon(
            lexicon.data, lexicon.name, columns=params.columns, source=params.lang
        ).items():
            pos_pairs.setdefault(pos, []).extend(pairs)
    for pos, upload in class_lists.items():
        pos_pairs.setdefault(pos, []).extend(
            read_word_pairs(
                upload.data, upload.name, columns=params.columns, source=params.lang
            )
        )
    dictionary_pairs = (
        read_word_pairs(
            dictionary.data,
            dictionary.name,
            columns=params.columns,
            source=params.lang,
        )
        if dictionary
        else []
    )
    try:
        templates = templates_for(
            params.lang,
            adj=params.template_adj,
            noun=params.template_noun,
            verb=params.template_verb,
        )
    except ValueError as exc:
        raise BuildError(str(exc)) from None
    config = BuildConfig(
        lang=params.lang,
        target_lang=target,
        per_cell=params.per_cell,
        seed=params.seed,
        medium_zipf=params.medium_zipf,
        low_zipf=params.low_zipf,
        band_width=params.band_width,
    )
    started = time.perf_counter()
    try:
        result = build_probe_set(
            pos_pairs,
            config,
            frequency=wordfreq_zipf(params.lang),
            dictionary_pairs=dictionary_pairs,
            genders=read_genders(genders.data, genders.name) if genders else None,
            templates=templates,
            exclude=exclude.data.decode("utf-8", "replace").split() if exclude else (),
        )
    except ValueError as exc:
        if isinstance(exc, FormatError):
            raise
        raise BuildError(str(exc)) from None
    seconds = time.perf_counter() - started
    probes = result.probes.probes
    if not probes:
        raise BuildError(
            "no word of the lexicon qualifies as a probe (see the exclusions)"
        )
    public = probes_to_tsv(probes, references=False)
    references = references_to_tsv(probes)
    token = secrets.token_urlsafe(12)
    cache.set(
        _draft_key(task, token),
        {"probes": public, "references": references},
        DRAFT_SECONDS,
    )
    cache.set(_lists_key(task, lists_token), lists, DRAFT_SECONDS)
    words: dict[tuple[str, str], list[str]] = {}
    for p in probes:
        words.setdefault((p.pos.value, p.freq_class.value), []).append(p.word)
    cells = []
    for band in result.bands:
        chosen = words.get((band.pos.value, band.freq_class.value), [])
        step = max(1, len(chosen) // SAMPLES)
        cells.append(
            Cell(
                band.pos.value,
                band.freq_class.value,
                band.zipf_min,
                band.zipf_max,
                band.available,
                band.selected,
                tuple(chosen[::step][:SAMPLES]),
                params.per_cell,
            )
        )
    return Preview(
        token=token,
        lists_token=lists_token,
        list_names=lists.names(),
        n_probes=len(probes),
        per_cell=params.per_cell,
        cells=tuple(cells),
        sentences=tuple(p.sentence for p in probes[:: max(1, len(probes) // 9)][:9]),
        warnings=result.warnings,
        excluded=tuple(
            (reason.replace("_", " "), n)
            for reason, n in sorted(result.excluded.items())
        ),
        medium_zipf=config.centre(FreqClass.MEDIUM),
        low_zipf=config.centre(FreqClass.LOW),
        n_references=sum(1 for p in probes if p.references),
        sha256=hashlib.sha256(public.encode()).hexdigest(),
        seconds=seconds,
    )


def targets(*, task: SharedTask) -> list[tuple[str, str]]:
    """Where a probe set can go: each test set (``ts:<pk>``) or a new test set in a
    phase (``phase:<pk>``)."""
    out = [
        (f"ts:{ts.pk}", f"{ts.phase.name} · {ts.name}")
        for ts in TestSet.objects.filter(phase__task=task).select_related("phase")
    ]
    out += [
        (f"phase:{phase.pk}", f"{phase.name} · a new test set")
        for phase in Phase.objects.filter(task=task)
    ]
    return out


def save(*, task: SharedTask, token: str, target: str, name: str = "") -> TestSet:
    """Store the draft ``token`` into the chosen test set (or a new one named
    ``name``). A test set that already scored runs is not overwritten: its runs
    would no longer match the probe sentences."""
    draft = cache.get(_draft_key(task, token)) if token else None
    if draft is None:
        raise DraftExpired("the preview has expired; build the probe set again")
    kind, _, pk = target.partition(":")
    with transaction.atomic():
        if kind == "ts" and pk.isdigit():
            test_set = TestSet.objects.filter(phase__task=task, pk=int(pk)).first()
            if test_set is None:
                raise BuildError("choose a test set of this task")
            scored = Evaluation.objects.filter(test_set=test_set).count()
            if scored:
                raise BuildError(
                    f"test set {test_set.name!r} has {scored} scored run(s) whose "
                    "translations follow its current probes; save into a new test set"
                )
        elif kind == "phase" and pk.isdigit():
            phase = Phase.objects.filter(task=task, pk=int(pk)).first()
            if phase is None:
                raise BuildError("choose a phase of this task")
            name = name.strip()
            slug = slugify(name)[:50]
            if not slug:
                raise BuildError("give the new test set a name")
            if TestSet.objects.filter(phase=phase, slug=slug).exists():
                raise BuildError(f"phase {phase.name!r} has a test set {slug!r}")
            test_set = TestSet.objects.create(
                phase=phase,
                slug=slug,
                name=name[:100],
                order=TestSet.objects.filter(phase=phase).count(),
            )
        else:
            raise BuildError("choose a test set")
        datasets.store_file(
            test_set=test_set,
            role="probes",
            filename="probes.tsv",
            data=draft["probes"].encode(),
        )
        datasets.store_file(
            test_set=test_set,
            role="references",
            filename="references.tsv",
            data=draft["references"].encode(),
        )
    cache.delete(_draft_key(task, token))
    return test_set
