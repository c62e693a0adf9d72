"""``term_extraction``: monolingual term extraction scored with classic P/R/F and
TermoMeter (Nazarenko & Zargayouna, "Evaluating term extraction", seeds 000/001).

Files
-----
- ``corpus`` (public, optional): the texts; stored for participants, never parsed.
- ``gold`` (private): UTF-8, one term per line, optionally ``term<TAB>label``
  (ACTER labels ``Specific_Term``, ``Common_Term``, ``OOD_Term``, ``Named_Entity``).
  Labels give per-label recall and the ``exclude_labels`` filter (TermEval's "without
  named entities").
- ``run`` (submission): UTF-8, one term per line, optionally ``term<TAB>score`` on every
  line (then ranked by score, higher first; ties keep line order). Without scores the
  line order is the rank when the task sets ``ranked``. The CSV ``index,term`` form
  (TemplateATE outputs; quoted terms allowed) and a JSON list of strings are accepted
  only when the organiser lists them in ``accept_formats``; ``json_list`` picks one list
  of a JSON list of term lists (the ate_nobi predictions, one list per language).

Normalisation and errors
------------------------
BOM stripped, CRLF accepted, Unicode NFC, each term trimmed with inner whitespace
collapsed, empty lines dropped, duplicates after normalisation counted once (reported
as a warning); ``casefold`` folds case on both sides. In default mode gold lines that
become the same term merge; :attr:`formats.GoldList.merged_lines` /
``merge_warnings()`` tell the organiser which (real ACTER en htfl: lines 954/959 and
2140/2145, ``heart  failure``). Invalid UTF-8, a NUL byte (binary), a line over 1,000
characters, malformed ``term<TAB>score`` lines, a gold line of only a tab, a gold
label that is not one of ACTER's four (:data:`formats.LABELS`; the type's labels), or
more terms than ``max_terms`` raise
:class:`tasks.base.FormatError` naming the file and line; nothing is scored. ``cap``
(CESART) evaluates only the first N distinct terms of a run.

Metrics
-------
- Classic (exact match): P = |O ∩ R| / |O|, R = |O ∩ R| / |R|, F1; 0/0 -> 0.
  ``mode="default"`` compares normalised strings; ``mode="termeval"`` lowercases run
  terms and takes gold terms as written (TermEval 2020's rule): this reproduces the
  published ``ate_nobi_preds/scores`` counts exactly (en htfl without NEs: 1996
  predicted, 2361 gold, 1148 correct) and the TemplateATE table.
- TermoMeter (:mod:`distance`, :mod:`measures`): d_s = Levenshtein / longer length;
  d_c = Hungarian word alignment (substitution d_s, insertion/deletion 1, square matrix
  padded with 1s) / max #words; d_t = (d_s + d_c) / 2. Each output term goes to its
  nearest gold term (ties: first in the gold file); pert = 1 - d* if d* <= tau else 0;
  output terms within tau of one gold term form one part; TP = sum Pert / |parts|,
  TR = sum Pert / |R|, TF = harmonic mean. Distances see the normalised strings (run
  terms lowercased in TermEval mode). The curve over tau = 0, 0.01, ..., 1 comes from
  one exact nearest-neighbour pass (:mod:`nearest`, tested equal to the brute force).
- Ranked runs: P@100/500/1000, R-precision (P@|R|), uninterpolated AP, P/R vs rank.
- Per-label exact recall and the share of each label's gold terms reached at tau;
  ``recall_without_named_entities`` when the gold has NE labels.

``report.detail`` (organiser-only): clusters (gold term, label, line, its output terms
and distances), unmatched output terms with their nearest gold term, unreached gold
terms.

Offline: ``evalhub score term_extraction --gold G --run R [--tau T] [--casefold]
[--json] [--ci] [--plots DIR]``. Distances are compared exactly (rationals), so ties
and ``d <= tau`` are decided as defined; ``tau`` is read as the decimal it is written as.
``--ci`` adds the platform's 95 % bootstrap interval of TF over gold terms (JSON key
``ci``; ``--samples``, ``--seed``); ``--plots DIR`` writes the run page's figures (TP/TR/TF
and matched terms against tau, P/R against rank) as SVG, PNG and PDF. ``evalhub compare
term_extraction ... --run A B ...`` prints the significance page's overview table.
"""
