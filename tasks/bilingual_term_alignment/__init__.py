"""Bilingual term alignment in comparable corpora (BUCC 2022 shared task).

Source: Adjali, Morin, Sharoff, Rapp, Zweigenbaum, "Overview of the 2022 BUCC Shared
Task: Bilingual Term Alignment in Comparable Specialized Corpora" (seed 002); official
scorer github PierreZweigenbaum/bucc2022 ``evaluation.py`` v1.1.

Task
    Given source terms D1 and target terms D2, a run ranks term pairs (t1, t2) of
    D1 x D2 that are translations, most confident first. A term may have several
    translations, or none.

Files (all UTF-8)
    ``source_terms``, ``target_terms``: one term per line (blank lines skipped,
    repeats kept once). ``gold``: ``source<TAB>target`` per line, a set, every pair
    inside D1 x D2 (else the gold is rejected, naming the lines), never empty.
    ``run``: ``source<TAB>target`` per line; rank = line order; no score column.

Normalisation (every file)
    A UTF-8 BOM is stripped, CRLF is accepted, each field is trimmed of surrounding
    white space, text is Unicode NFC. Matching is then exact and case-sensitive.

Validation of a run (public inputs only, so errors never reveal the gold)
    A line with no tab, more than two fields, an empty field, or bytes that are not
    UTF-8 rejects the run, listing the first offending lines and reasons (blank lines
    are skipped). Then, without costing a rank and each with a warning quoting the
    first line numbers: a repeated pair is kept only at its first occurrence
    (``n_duplicates``); a pair outside D1 x D2 is dropped (``n_oov``). The remaining
    run may rank at most cap = floor(cap_factor x (|D1| + |D2|) / 2) pairs
    (cap_factor = 10 by default, the paper's ceiling); above it the run is rejected
    (``cap_policy = "reject"``) or cut to the cap (``"truncate"``, ``n_truncated``).
    An empty run scores 0 everywhere (the scorer's view); the platform rejects, uncounted,
    a run left with no pair after cleaning (``nothing_to_score``).

Metrics (r_1..r_n the cleaned run, m = |gold|, rel(k) = 1 if r_k is a gold pair)
    - ``ap`` (primary, official): (1/m) sum_{k: rel(k)=1} P@k, P@k = hits in top k / k.
    - ``ap_interpolated``: the same with each P@k replaced by the best P@k' at a later
      relevant rank k' >= k (as the official ``--interpolated``).
    - ``precision`` = TP/n, ``recall`` = TP/m, ``f1``; counts ``n_sys`` = n,
      ``n_gold`` = m, ``tp``, ``fp`` = n - TP, ``fn`` = m - TP.
    - ``p_at_100``, ``p_at_1000`` (short runs padded with misses), ``r_precision`` = P@m.
    - ``map_source``: mean over the gold source terms of the AP of the run's pairs
      for that source, in run order (the paper's section 4.2.1 MAP variant).
    0/0 is 0.0 everywhere. On clean runs (no repeats, no OOV pairs) the numbers equal
    the official scorer run with ``-i``. Unlike it, repeats never count twice (its AP
    can exceed 1) and OOV pairs are always filtered.

Curves and analysis
    Per run: precision/recall/F1 against the number of examined pairs (linear and log
    x) and AP accumulated against rank, thinned to a few hundred points (the final
    point exact). Organiser-only ``detail``: ``gold_ranks`` (rank at which each gold
    pair, in sorted order, was retrieved, -1 if missed) and ``wrong_candidates`` (per
    gold source term, the run's best-ranked wrong targets ``[target, rank]``).
    Across runs, difficulty bins (Gianola et al. 2021): bin_n = gold pairs retrieved by
    exactly n runs; sizes and percentages are public, members with the closest wrong
    candidates are organiser-only.

Offline: ``evalhub score bilingual_term_alignment --gold G --run R --source-terms D1
--target-terms D2 [--json] [--ci] [--plots DIR]``. ``--ci`` adds the platform's 95 %
bootstrap interval of AP over gold pairs (JSON key ``ci``; ``--samples``, ``--seed``);
``--plots DIR`` writes the run page's figures (P/R/F1 against examined pairs, linear and
log x, and accumulated AP) as SVG, PNG and PDF. ``evalhub compare
bilingual_term_alignment ... --run A B ...`` prints the significance page's overview
table (text, CSV, JSON or LaTeX) with the platform's signature line.
"""

from __future__ import annotations

FORMAT_HELP = """\
**Run format.** A UTF-8 text file with one term pair per line,
`source term<TAB>target term`, ranked by decreasing confidence (line 1 = rank 1).
No header and no score column. Pairs must come from the source term list (D1) and
the target term list (D2).

**Normalisation.** A BOM is removed, Windows line ends are accepted, spaces around
each term are trimmed, text is Unicode NFC. Matching is exact and **case-sensitive**.

**Rejected runs** (nothing is scored, the attempt does not count): a line without a
tab, with more than two fields, with an empty term, or a file that is not UTF-8. The
error lists the first offending line numbers. A run ranking more than
10 x (|D1| + |D2|) / 2 distinct pairs is rejected too (or cut, if the organisers chose so).

**Cleaned, with a warning:** a repeated pair counts only at its first rank; a pair
outside D1 x D2 is removed. Neither costs a rank.

**Scores.** Primary: uninterpolated average precision
AP = (1/|gold|) x sum of P@k over the ranks k of gold pairs (BUCC 2022). Also
interpolated AP, precision, recall, F1, P@100, P@1000, R-precision and MAP over
source terms. A run left with no pair once cleaned (every pair repeated or outside
D1 x D2) is rejected with the reason; the attempt does not count.
"""
