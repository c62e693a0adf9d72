"""Sentence alignment, scored as in ARCADE (Langlais, Simard & Véronis 1998, seed 003)
plus vecalign's strict/lax measures.

A bitext is a source text S = s_0..s_{n-1} and its translation T = t_0..t_{m-1}. An
alignment is a set of *bisegments* (a, b), a ⊆ S, b ⊆ T; one side may be empty (an
omission or insertion). A test set is several documents (bitexts).

Files
-----
- **Inputs** (role ``documents``): a zip holding ``<doc>.src`` and ``<doc>.tgt`` for
  every document — UTF-8, one sentence per line. A UTF-8 BOM is dropped, CRLF accepted,
  lines are NFC-normalised, a trailing space/CR is stripped, empty lines are kept as
  (empty) sentences. Document names: letters, digits and ``_ . + -``.
- **Gold** (role ``gold``) and **run**: either a zip of ``<doc>.align`` files, or one
  text file in which ``# <doc>`` lines start each document's section (a single-document
  test set needs no header). Every document must be present; unknown names are errors.
- **Bisegment lines**: ``[i, j]:[k]`` with 0-based sentence numbers (the vecalign /
  Bleualign format); ``[]:[22]`` and ``[52]:[]`` are allowed, a third ``:cost`` field is
  ignored, blank lines are skipped. Accepted as real references have them:
  non-contiguous and crossing bisegments, a sentence in two bisegments, sentences in none,
  unsorted numbers (a side is a *set*). Rejected with file, document and line: unparsable
  lines, negative or out-of-range numbers, a number twice on one side, both sides empty.
  A repeated bisegment counts once (a warning says so).
- **Zips** are read defensively (``archive.py``): no path traversal, absolute paths,
  links or encryption; files at the top level or all in one folder; each member and the
  total are limited in declared and in actually inflated size.

Metrics (``metrics.py``)
------------------------
With A the run and A_r the reference (sets of bisegments), and A' = {(s, t) : (a, b) ∈
A, s ∈ a, t ∈ b} the sentence pairs of A (a bisegment with an empty side gives none):

- **alignment**: R = |A ∩ A_r| / |A_r|, P = |A ∩ A_r| / |A| (both sides must be equal).
- **sentence**: R = |A' ∩ A'_r| / |A'_r|, P = |A' ∩ A'_r| / |A'|.
- **word** and **char**: each sentence is a sequence of finer units and a sentence pair
  (s, t) stands for the |s|·|t| unit pairs of their cross product, so
  R = Σ_{(s,t) ∈ A' ∩ A'_r} |s||t| / Σ_{(s,t) ∈ A'_r} |s||t| and P likewise over A'.
  Words are the matches of ``\\w+|[^\\w\\s]`` (Unicode; every punctuation mark is a
  word, as in the paper); characters are the non-whitespace characters. The seed's text
  lost the paper's own formula for these two levels: this is the formal generalisation
  of its sentence-level definition (spec ``sentence_alignment.md``).
- **strict** and **lax** (vecalign ``score.py``, Sennrich & Volk 2011): precision over
  every run bisegment, recall over the reference bisegments with both sides non-empty
  (matched against the run's non-empty-sided ones); strict = identical bisegment, lax =
  the bisegment shares a source and a target sentence with one and the same bisegment of
  the other alignment. Numbers equal vecalign's on the Text+Berg data; vecalign compares
  index lists in file order, we compare sets (only differs for an unsorted list that
  matches exactly — none of the real runs has one).
- F = 2PR / (P + R); any 0/0 is 0. A test set sums every count over its documents
  (micro average); each document's numbers are reported too. ``mean_f1`` is ARCADE's
  "global efficiency" (mean F of the four granularities); ``f1`` is the F at the
  organiser's ``primary_granularity`` (default ``sentence``; ARCADE also used ``char``).
  Averaging over the counted test sets is the platform's job.

CLI: ``evalhub score sentence_alignment --source S --target T --gold G --run R --json``
scores one document and prints ``alignment``, ``sentence``, ``word``, ``char``,
``strict``, ``lax``, each with ``precision``, ``recall``, ``f1`` and the counts
``correct`` (precision numerator), ``proposed``, ``correct_reference`` (recall
numerator; equal to ``correct`` except for strict/lax) and ``reference``, plus
``documents`` (the same per document), ``f1`` (primary), ``mean_f1``,
``primary_granularity`` and ``scorer`` (name and version). A test set at once:
``--documents D.zip`` (its bitexts, as the task page offers them) instead of
``--source``/``--target``, with ``--gold`` and ``--run`` in the platform's
multi-document formats; counts summed over the documents as on the platform;
``--ignore-other-documents`` skips the run's documents of other test sets (see
``offline``).

Offline options: ``--ci`` adds the platform's bootstrap interval of the primary F over
documents (JSON key ``ci``; ``null`` for a single document, as on the platform);
``--plots DIR`` writes the run page's figure (P/R/F per granularity) as SVG, PNG and PDF;
``evalhub compare sentence_alignment ... --run A B ...`` prints the significance page's
overview table (text, CSV, JSON or LaTeX) with the platform's signature line.
"""

from __future__ import annotations

FORMAT_HELP = """\
**Inputs.** A zip with `<doc>.src` and `<doc>.tgt` per document: UTF-8, one sentence per
line, sentences numbered from 0. A BOM is dropped, CRLF is fine, text is NFC-normalised,
a trailing space is ignored; empty lines are sentences.

**Your run.** Either a zip of `<doc>.align` files, or one text file where a line
`# <doc>` starts each document (a single-document test set needs no header). Every
document must be present. One bisegment per line, 0-based, the vecalign/Bleualign format:

```
# minutes
[0]:[0, 1]
[1, 2]:[2]
[]:[3]
[3]:[]
```

`[]:[3]` marks an inserted target sentence, `[3]:[]` an omitted source sentence; a third
`:cost` field is ignored, order does not matter, a repeated bisegment counts once. Errors
(with file, document and line): unparsable lines, negative or out-of-range numbers, a
number twice on one side, both sides empty, a missing or unknown document.

**Scores** (ARCADE, Langlais et al. 1998): recall, precision and F1 at four levels —
*alignment* (whole bisegments must match), *sentence* (the sentence pairs inside the
bisegments), *word* and *char* (each sentence pair weighs |s|·|t| words or non-space
characters; words are `\\w+` runs and single punctuation marks). Also vecalign's *strict*
and *lax* P/R/F1 (lax: overlaps a reference bisegment on both sides). Counts are summed
over the documents of a test set. The primary score is F1 at the organiser's chosen level
(sentence by default).
"""
