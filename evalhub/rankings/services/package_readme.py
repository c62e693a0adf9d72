"""The package's ``README``: what every file holds and how every number in it was
computed (plain text; user text appears as it is, it is never interpreted)."""

from __future__ import annotations

import shlex

from evalhub.competitions.models import Submission
from evalhub.rankings.services.package import BoardTable, Package
from tasks.common import resampling as rs

_METHODS = """\
How the numbers were computed
-----------------------------
- Metric values: the task type's scorer on each run file against the test set's
  gold (the scorer and its version are the first part of each board's signature;
  the gold version its "gold:" part). The same scorer runs offline as
  `evalhub score` / `evalhub compare`.
- Runs ranked: the public leaderboard's. Public test sets: the best run of each
  team (in Ladder mode, the run the Ladder released); private test sets: each
  team's chosen final runs (or its run with the best public score when it chose
  none). Runs hidden by their teams are not in this package.
- Intervals ("± CI"): paired percentile bootstrap over the task type's unit
  ("unit:" and "n:" in the signature: the intervals, the paired bootstrap and
  the randomisation test all resample it; "bootstrap:B" resamples, "seed:S",
  "ci:percentile-0.95"), the same resamples
  for every run of a test set; shown as value ± the larger half-width.
- p-values: approximate randomisation between every two systems ("ar:R"
  trials, exact enumeration when 2^items <= R), and the paired bootstrap test
  (in the CSV and the JSON).
- Significance bands: BAND_RULE (REFERENCE). Each board below states
  its unit, n and the comparisons each band rests on; a board whose units
  cannot give p < "alpha" has no bands and says why.
- Bold: the best value of each quality metric's column (every tied value),
  per the metric's direction; counts (such as TP, FP, FN, ranked pairs) are
  never "best".
- Tables: the primary metric appears once, as "value ± half-width" of its
  interval; the other columns are the leaderboard's default metrics (every
  metric is in package.json).

Reproducing a table offline
---------------------------
With the gold and the run files, `evalhub compare` prints the same table
(`pip install` the platform; no database needed):

  evalhub compare TASK_TYPE --gold GOLD [inputs] --run A B ... \\
      --name "team (method)" ... --gold-version N --samples B --seed S \\
      --alpha ALPHA --metric M --columns C --title TITLE --label LABEL \\
      --format latex

giving the runs in submission order (ties are broken by it). The options of
each board are below.
"""


_COMPILING = """\
Compiling
---------
main.tex needs LuaLaTeX with fontspec, booktabs, graphicx, geometry, array,
longtable, pdflscape and url (Debian: texlive-luatex texlive-latex-recommended).
Names in any script are set: a character the main font (Latin Modern) lacks
comes from the first installed fallback font that has it (DejaVu for Greek and
Cyrillic; Noto CJK, Droid Sans Fallback or WenQuanYi for Chinese, Japanese and
Korean; FreeSerif; Symbola for symbols and emoji; Debian: fonts-dejavu-core
fonts-droid-fallback fonts-symbola, or fonts-noto-cjk). A character no installed
font has stops the compilation with "Missing character: There is no X": install
a font that has it (and add it to the \\evalhubfallback list in main.tex); a
name is never dropped silently. Right-to-left names (Arabic, Hebrew) are set
left to right. The tables alone (tables/, pvalues/, systems.tex) can be pasted
into a paper compiled with any engine that can set the names' characters.
Pages are portrait; a table too wide for them is set on a landscape page.
"""


def _board(board: BoardTable) -> list[str]:
    table = board.table
    test_set = board.key.test_set
    versions = sorted(
        set(
            Submission.objects.filter(
                pk__in=[run["run"] for run in board.runs]
            ).values_list("scorer_version", flat=True)
        )
        - {""}
    )
    lines = [
        f"{board.key.title} (tables/{board.key.slug}.tex)",
        f"  signature: {table['signature']}",
        f"  task type: {table['task_type']}; scorer versions of the runs: "
        + (", ".join(versions) or "-"),
        f"  gold version: {test_set.gold_version}; resampling unit: "
        f"{rs.bands.unit_from(table.get('unit')).count(int(table['n_items']))}",
        f"  ranked by: {table['metric_label']} ({table['metric']}); "
        f"bootstrap samples {table['samples']}, seed {table['seed']}, "
        f"alpha {table['alpha']}",
        f"  systems: {len(board.runs)}; offline: evalhub compare "
        f"{table['task_type']} ... --gold-version {test_set.gold_version} "
        f"--samples {table['samples']} --seed {table['seed']} "
        f"--alpha {table['alpha']} --metric {table['metric']} "
        f"--columns {','.join(table['table_metrics'])} "  # type: ignore[arg-type]
        f"--title {shlex.quote(str(table['title']))} "
        f"--label {table['label']} --format latex",
    ]
    if table.get("bands_legend"):
        lines.append(f"  bands: {table['bands_legend']}")
    if not board.statistics_current:
        lines.append(
            "  note: the statistics were being refreshed when this package was "
            "built; bands and p-values are left out (download it again later)."
        )
    return lines


def text(package: Package) -> str:
    phase = package.phase
    lines = [
        f"Overview-paper package: {phase.task.title}, {phase.name}",
        "=" * 60,
        "",
        "Files",
        "-----",
        "main.tex             a results section; compiles as it is with LuaLaTeX:",
        "                     lualatex main.tex (twice, for the table numbers)",
        "tables/<board>.tex   results per test set (and track), named in the",
        "                     caption: band, rank, system, the primary metric ±",
        "                     its interval, the leaderboard's other default metrics",
        "pvalues/<board>.tex  pairwise p-values (approximate randomisation); .csv:",
        "                     every pair once, with delta and both p-values",
        "figures/<test set>/  comparison figures and the interval chart (PDF)",
        "systems.tex, .csv    team, method, track and the systems' columns",
        "                     (fact-sheet answers, paper links)",
        "package.json         all of the above as data",
        "",
        _COMPILING,
    ]
    if package.organiser and package.unrevealed:
        lines += [
            "Organisers' copy: it includes test sets not yet revealed to the public: "
            + ", ".join(package.unrevealed)
            + ".",
            "",
        ]
    methods = _METHODS.replace("BAND_RULE", rs.bands.band_rule_text()).replace(
        "REFERENCE", rs.bands.REFERENCE
    )
    lines += [methods, "Boards", "------"]
    for board in package.boards:
        lines += _board(board) + [""]
    return "\n".join(lines)
