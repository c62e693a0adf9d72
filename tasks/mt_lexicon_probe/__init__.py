"""``mt_lexicon_probe``: probing the lexicon of MT systems (Volk 1997).

Source: seed ``004_50c8345678ce5bb6`` (M. Volk, "Probing the lexicon in evaluating
commercial MT systems"); spec ``specs/mt_lexicon_probe.md``.

Probe set (organiser: ``evalhub probe build`` or the "Build a probe set" page)
    Word class (adj, noun, verb) x frequency class (high, medium, low), ``per_cell``
    words each (paper: 100 -> 900 probes). Words come from a bilingual dictionary split
    by part of speech (e.g. Wiktionary ``de-en.{train,test}.{Adjective,Noun,Verb}``,
    direction en->de: English words, German references); frequencies from ``wordfreq``
    Zipf values, standing in for CELEX. High = the most frequent words of the class;
    medium / low = a seeded random sample of the words within +-0.15 Zipf of a centre.
    Default centres are the paper's CELEX counts 25 and 1 converted with
    Zipf = log10(count / N * 1e9), N = CELEX corpus size (English COBUILD 17.9 M words:
    25 -> 3.15, 1 -> 1.75; German Mannheim corpus ~5.4 M: 25 -> 3.67, 1 -> 2.27).
    Excluded: multi-word and non-letter entries, words unknown to wordfreq,
    closed-class words (:mod:`.closed_class`, plus ``--exclude``), words spelt the same
    as one of their translations ("international"), and words with under 25% of their
    dictionary pairs in the class. Templates per source language:
    English "This is {adj}.", "The {noun} can be nice.", "We {verb}."; German
    "Es ist {adj}.", "Ein/Eine {noun} ist gut." (by gender when known, plural-only
    nouns "Die {noun} sind gut."), "Wir müssen {verb}.".
    Note: wordfreq counts word forms, not lemmas of one part of speech, so homographs
    (to keyboard) sit at their most frequent use's frequency, as in the paper's
    German CELEX data.

    Both run :mod:`.builder`. The page also takes one lexicon with parts of speech, ``a<TAB>b<TAB>pos`` (pos
    adj/adjective, noun or verb; :func:`.builder.read_pos_lexicon`).
    Command: ``evalhub probe build --pos-lists adj=F noun=F verb=F [--dictionary F]
    --columns de,en --lang en --seed 1 --per-cell 100 --out probes.tsv
    [--public-out P --references-out R] [--medium-zipf Z --low-zipf Z --band-width W
    --exclude F --genders F --template-noun T ...] [--json]`` (see :mod:`.cli`);
    it prints the words available and selected in each band.

Formats (UTF-8; BOM, CRLF accepted; NFC; blank lines ignored except in runs)
    probes     ``id<TAB>word<TAB>pos<TAB>freq_class<TAB>sentence[<TAB>ref1|ref2]`` (the
               public file has no sixth column), pos in adj/noun/verb, freq_class in
               high/medium/low.
    references ``id<TAB>ref1|ref2`` (private gold; optional; empty lines allowed).
    run        one translation per probe line, same order, same number of lines;
               a run whose every line is empty is refused (nothing to score).
    judgements ``id<TAB>tag``, tag in u w m wf s f wd c (may be partial).

Tagging (:mod:`.tags`), first rule wins: an annotator's judgement; the judgement
memory (same probe id and same normalised translation = case-folded word tokens, so
punctuation and spacing do not matter; conflicting stored judgements settle nothing);
``u`` when the source word occurs as a whole token, ignoring case; ``c`` *proposed*
when a reference occurs as whole tokens (counted provisionally, shown as
``proposed_c`` until confirmed); otherwise pending.

Scores (:mod:`.scoring`), per word class x frequency class over *judged* items J:
translated = (J - n_u) / J; correct = (J - n_u - n_w - n_m) / J; correct_strict =
(J - n_u - n_w - n_m - n_wf) / J (null when J = 0); "mean" = mean over word classes
with a defined share; wrong_determiners = nouns tagged ``wd``. Scores are provisional
while items are pending or proposals unconfirmed. Primary metric: correct, low
frequency, mean over word classes. Cohen's kappa compares two annotators.

Offline: ``evalhub score mt_lexicon_probe --probes P --run R [--judgements J]
[--references F] [--json] [--ci] [--plots DIR]``. ``--ci`` adds the platform's bootstrap
interval over probes (JSON key ``ci``); ``--plots DIR`` writes the run page's figure as
SVG, PNG and PDF; ``evalhub compare mt_lexicon_probe ... --run A B ...`` prints the
significance page's overview table.
"""

from __future__ import annotations

FORMAT_HELP = """\
**Probe file** (download): `id<TAB>word<TAB>pos<TAB>freq_class<TAB>sentence`, one
probe sentence per line, e.g. `noun-low-007<TAB>waterbird<TAB>noun<TAB>low<TAB>The
waterbird can be nice.`

**Your run**: translate the sentences (the 5th column) with your system and upload
**one translation per line, in the same order, with exactly as many lines as there are
probes** (UTF-8; an empty line means no translation; a run with no translation at
all is refused: there is nothing to score). Do not edit or post-process the
output: copying an unknown source word into the translation is what the evaluation
detects.

**Scoring** (Volk 1997): every translation is tagged `u` unknown (source word copied,
set automatically when it appears as a whole word, ignoring case), `w` wrong, `m`
missing, `wf` wrong form, `s` sense-preserving segmentation, `f` missing interfix,
`wd` wrong determiner or `c` correct. Tags other than `u` come from annotators (a
translation containing a reference is proposed as correct; a judgement is reused for
identical translations of other systems). Per word class (adj, noun, verb) and
frequency class (high, medium, low): *translated* = share not `u`; *correct* = share
not `u`, `w`, `m`; *correct without wrong forms* = share not `u`, `w`, `m`, `wf`;
shares over judged items, averaged over word classes. Ranking: correct, low frequency.
Scores stay provisional while items await annotation.
"""
