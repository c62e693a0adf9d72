"""Benchmark: ``evalhub score`` as a whole process, every task type at two sizes, and
against the reference tools on the same files when their paths are given.

Run: ``.venv/bin/python bench/cli.py [--pairs N]``

Reference tools (never vendored; fetch them yourself):

- ``BUCC_OFFICIAL_SCORER``: the organisers' ``evaluation.py`` (github
  PierreZweigenbaum/bucc2022), run as ``evaluation.py -i -g GOLD -s D1 -t D2 RUN``.
- ``VECALIGN_SCORE``: vecalign's ``vecalign/score.py`` (github thompsonb/vecalign),
  run as ``python -m vecalign.score -t RUN -g GOLD`` from its checkout (it imports
  ``vecalign.dp_utils``, whose Cython ``dp_core`` must be built or stubbed: score.py
  does not call it).

Both sides' modules are compiled to bytecode first (:func:`compile_bytecode`). Each
case runs ``--pairs`` times (default 11), ours and the reference alternating
(the order flips every pair, so drift in the machine's load hits both alike); the
table shows medians of wall time and of peak RSS (``wait4``'s ``ru_maxrss``), and the
ratio reference / ours of the medians. Each process is started from a small
launcher (``LAUNCHER``), so its peak RSS is its own. Sizes: BUCC the 54,860-pair run of
``bench/bucc.py`` and its first 5,000 pairs; sentence alignment the MAC-Test size
(4,875 / 6,610 sentences) and 20 times that, built from the Text+Berg documents
(MAC-Test itself is not in the shared data); term extraction ACTER htfl en against
the XLM-R output and the 4,200 x 1,988 case of ``bench/term_extraction.py``; MT
lexicon probes the demo and ten copies of it; ``--help`` alone.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.paths import shared_data  # noqa: E402

Command = list[str]
#: MAC-Test zh-en (bertalign's corpus): 4,875 source / 6,610 target sentences.
MAC_TEST_SOURCE = 4875


def evalhub_command() -> Command:
    script = Path(sys.executable).parent / "evalhub"
    return [str(script)] if script.exists() else [sys.executable, "-m", "evalhub.cli"]


#: Runs the command from a small process, so its peak RSS is its own: a child forked
#: straight from this (large) script would count this script's pages until exec.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run_once(cmd: Command, cwd: Path | None = None) -> tuple[float, float]:
    """Wall seconds (fork to exit) and peak RSS (MiB) of one process; it must exit 0."""
    proc = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *cmd], cwd=cwd, capture_output=True, text=True
    )
    seconds, rss, code = proc.stdout.split()
    if int(code) != 0 or proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({code}): {proc.stderr}")
    return float(seconds), int(rss) / 1024


def measure(
    ours: Command, ref: Command | None, pairs: int, ref_cwd: Path | None
) -> tuple[tuple[float, float], tuple[float, float] | None]:
    mine: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for i in range(pairs):
        order = [(ours, mine, None), (ref, theirs, ref_cwd)]
        if i % 2:
            order.reverse()
        for cmd, sink, cwd in order:
            if cmd is not None:
                sink.append(run_once(cmd, cwd))

    def med(xs: list[tuple[float, float]]) -> tuple[float, float]:
        return (
            statistics.median(x[0] for x in xs),
            statistics.median(x[1] for x in xs),
        )

    return med(mine), (med(theirs) if theirs else None)


# ---- inputs -----------------------------------------------------------------
def bucc_case(tmp: Path, pairs: int | None) -> tuple[Command, Command | None]:
    from bench.bucc import build_run

    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    lines = build_run(base).decode().splitlines(keepends=True)
    run = tmp / f"bucc_run_{pairs or len(lines)}.tsv"
    run.write_text("".join(lines[:pairs] if pairs else lines), encoding="utf-8")
    gold, d1, d2 = (
        base / "gold.tsv",
        base / "source_terms.txt",
        base / "target_terms.txt",
    )
    ours = [
        *evalhub_command(),
        "score",
        "bilingual_term_alignment",
        "--gold",
        str(gold),
        "--run",
        str(run),
        "--source-terms",
        str(d1),
        "--target-terms",
        str(d2),
        "--json",
    ]
    official = os.environ.get("BUCC_OFFICIAL_SCORER")
    ref = (
        [sys.executable, official, "-i", "-q", "-g", str(gold), "-s", str(d1)]
        + ["-t", str(d2), str(run)]
        if official
        else None
    )
    return ours, ref


def sentence_case(tmp: Path, copies: int) -> tuple[Command, Command | None]:
    """The Text+Berg documents concatenated (indices shifted) up to MAC-Test's
    4,875 source sentences, then ``copies`` times that."""
    from bench.sentence_alignment import _pieces

    pieces = _pieces()
    source: list[str] = []
    target: list[str] = []
    gold: list[str] = []
    run: list[str] = []

    def add(doc, g, r) -> None:  # noqa: ANN001
        ds, dt = len(source), len(target)
        for segs, out in ((g, gold), (r, run)):
            for b in segs.bisegments:
                s = [i + ds for i in b.source]
                t = [j + dt for j in b.target]
                out.append(f"{s}:{t}\n")
        source.extend(doc.source)
        target.extend(doc.target)

    unit: list = []
    n = 0
    while n < MAC_TEST_SOURCE:
        for doc, g, r in pieces:
            if n >= MAC_TEST_SOURCE:
                break
            unit.append((doc, g, r))
            n += len(doc.source)
    for _ in range(copies):
        for piece in unit:
            add(*piece)
    paths = {}
    for name, lines in (
        ("src", [s + "\n" for s in source]),
        ("tgt", [t + "\n" for t in target]),
        ("gold", gold),
        ("run", run),
    ):
        paths[name] = tmp / f"sa{copies}.{name}"
        paths[name].write_text("".join(lines), encoding="utf-8")
    ours = [
        *evalhub_command(),
        "score",
        "sentence_alignment",
        "--source",
        str(paths["src"]),
        "--target",
        str(paths["tgt"]),
        "--gold",
        str(paths["gold"]),
        "--run",
        str(paths["run"]),
        "--json",
    ]
    score = os.environ.get("VECALIGN_SCORE")
    ref = (
        [sys.executable, "-m", "vecalign.score", "-t", str(paths["run"])]
        + ["-g", str(paths["gold"])]
        if score
        else None
    )
    print(
        f"  (sentence alignment x{copies}: {len(source):,} / {len(target):,} "
        f"sentences, {len(gold):,} gold and {len(run):,} run bisegments)"
    )
    return ours, ref


def term_case(tmp: Path, large: bool) -> tuple[Command, Command | None]:
    if large:
        from bench.term_extraction import acter_terms, make_case

        outputs, gold_terms = make_case(acter_terms(("en",)), 4200, 1988, seed=1)
        gold = tmp / "te_gold.txt"
        gold.write_text("\n".join(gold_terms) + "\n", encoding="utf-8")
        run = tmp / "te_run.txt"
        run.write_text("\n".join(outputs) + "\n", encoding="utf-8")
    else:
        from tests.task_types.term_extraction.test_real_data import gold_path, xlmr_run

        gold = gold_path("en", False)
        run = tmp / "te_xlmr_en.txt"
        run.write_bytes(xlmr_run("en", "ann", "en"))
    ours = [*evalhub_command(), "score", "term_extraction", "--gold", str(gold)]
    return ours + ["--run", str(run), "--casefold", "--json"], None


def probe_case(tmp: Path, copies: int) -> tuple[Command, Command | None]:
    """The demo's probes, references and first run, ``copies`` times (ids
    suffixed)."""
    from tasks import registry

    demo = registry.get("mt_lexicon_probe").demo()
    test_set = demo.test_sets[0]
    files = {
        "probes": test_set.inputs["probes"],
        "references": test_set.gold["references"],
        "run": next(iter(demo.runs[0][2].values())),
    }
    paths = {}
    for name, data in files.items():
        lines = data.decode().splitlines()
        out = []
        for c in range(copies):
            for line in lines:
                if name == "run" or copies == 1:
                    out.append(line)
                else:
                    first, _, rest = line.partition("\t")
                    out.append(f"{first}x{c}\t{rest}")
        paths[name] = tmp / f"probe{copies}.{name}"
        paths[name].write_text("\n".join(out) + "\n", encoding="utf-8")
    cmd = [*evalhub_command(), "score", "mt_lexicon_probe"]
    for name, path in paths.items():
        cmd += [f"--{name}", str(path)]
    return cmd + ["--json"], None


def compile_bytecode(vecalign: str | None) -> None:
    """Write the ``.pyc`` files of both sides first, as ``pip install`` does (an
    editable checkout, or ``PYTHONDONTWRITEBYTECODE``, would otherwise compile our
    modules, and vecalign's, in every run; a script run by path, like
    ``evaluation.py``, is compiled every time whatever one does)."""
    compileall.compile_dir(ROOT / "tasks", quiet=1)
    for name in ("__init__.py", "cli.py"):
        compileall.compile_file(ROOT / "evalhub" / name, quiet=1)
    if vecalign:
        compileall.compile_dir(Path(vecalign).resolve().parent, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=11)
    parser.add_argument(
        "--cases",
        default="",
        help="only the cases whose name contains this text (e.g. MAC-Test)",
    )
    args = parser.parse_args()
    vecalign = os.environ.get("VECALIGN_SCORE")
    vec_cwd = Path(vecalign).resolve().parents[1] if vecalign else None
    compile_bytecode(vecalign)
    cases: list[tuple[str, Callable[[Path], tuple[Command, Command | None]]]] = [
        ("--help (sentence_alignment)", lambda t: (
            [*evalhub_command(), "score", "sentence_alignment", "--help"], None)),
        ("bilingual_term_alignment 5,000 pairs", lambda t: bucc_case(t, 5000)),
        ("bilingual_term_alignment 54,860 pairs", lambda t: bucc_case(t, None)),
        ("sentence_alignment MAC-Test size", lambda t: sentence_case(t, 1)),
        ("sentence_alignment 20x MAC-Test", lambda t: sentence_case(t, 20)),
        ("term_extraction XLM-R en vs ACTER htfl", lambda t: term_case(t, False)),
        ("term_extraction 4,200 x 1,988", lambda t: term_case(t, True)),
        ("mt_lexicon_probe demo", lambda t: probe_case(t, 1)),
        ("mt_lexicon_probe demo x10", lambda t: probe_case(t, 10)),
    ]  # fmt: skip
    print(f"load average before: {os.getloadavg()}")
    print(
        f"{'case':42} {'ours s':>8} {'MiB':>6} {'ref s':>8} {'MiB':>6} {'ref/ours':>8}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name, build in cases:
            if args.cases not in name:
                continue
            ours, ref = build(Path(tmp))
            cwd = vec_cwd if ref and "vecalign.score" in ref else None
            (t, mem), theirs = measure(ours, ref, args.pairs, cwd)
            line = f"{name:42} {t:8.3f} {mem:6.0f}"
            if theirs is not None:
                line += f" {theirs[0]:8.3f} {theirs[1]:6.0f} {theirs[0] / t:7.2f}x"
            print(line, flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
