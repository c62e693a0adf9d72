"""The overview-paper package compiles with the engine its README names (LuaLaTeX)
into a results section: names in any script (Japanese, Greek, symbols, emoji) are
in the PDF's text, a character no font has stops the compilation instead of
vanishing, pages are portrait unless a table's columns do not fit, figures have
real captions and links are ``\\url``'s. Without LuaLaTeX the compile tests skip;
with ``CI=true`` (``.ci/run``, which installs it) they fail instead."""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from evalhub.competitions import signals
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import analyses, boardcache
from evalhub.competitions.services.boards.systems import SystemColumn
from evalhub.rankings import jobs
from evalhub.rankings.services import package, package_files, package_tex
from tasks import registry
from tasks.common import compare, tables
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db

NAMES = ["日本語 \\input{/etc/passwd}", "Ελληνικά ✓ 50%_x", "Emoji 🚀😀 & co"]
PAPER = "https://example.org/ñ/p?a=1&b=%20#sec~2_x"


def _engine() -> str:
    found = shutil.which("lualatex")
    if found is None:
        message = (
            "lualatex is not installed (apt-get install texlive-luatex "
            "texlive-latex-recommended fonts-droid-fallback fonts-symbola "
            "poppler-utils)"
        )
        if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
            pytest.fail(message + "; .ci/run installs it", pytrace=False)
        pytest.skip(message)
    return found


@pytest.fixture
def unicode_world(task, phase, test_set, bucc_demo, django_user_model):  # noqa: ANN001, ANN201
    """Three teams named in Japanese, Greek and emoji (with LaTeX specials), one
    run each, the statistics and comparison figures of the test set, and a paper
    link per system."""
    subs = []
    for i, ((_, method, files), name) in enumerate(
        zip(bucc_demo.runs, NAMES, strict=True)
    ):
        user = django_user_model.objects.create_user(f"u{i}")
        teams.register(task=task, user=user, new_team_name=name)
        subs.append(scored(phase, user, files["test"], method, figures=False))
    boardcache.invalidate(test_set_id=test_set.pk, refresh_statistics=False)
    assert jobs.refresh_statistics(test_set.pk) == "refreshed"
    analyses.refresh(test_set_id=test_set.pk)

    def papers(sender, phase, viewer, **kwargs):  # noqa: ANN001, ANN202, ARG001
        keys = [(s.team_id, s.method_name) for s in subs]
        return [
            SystemColumn(
                key="paper",
                label="Paper",
                on_board=False,
                values=dict.fromkeys(keys, "Ελληνικά paper"),
                urls=dict.fromkeys(keys, PAPER),
            )
        ]

    signals.system_columns.connect(papers, dispatch_uid="test-package-latex")
    yield subs
    signals.system_columns.disconnect(dispatch_uid="test-package-latex")


def _compile(root: Path, engine: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape"]
        + ["main.tex"],
        cwd=root,
        capture_output=True,
        timeout=300,
        check=False,
    )


def _extract(organiser, phase, tmp_path: Path) -> Path:  # noqa: ANN001
    built = package.build(phase=phase, user=organiser, render=True)
    zipfile.ZipFile(io.BytesIO(package_files.zip_bytes(built))).extractall(tmp_path)
    return tmp_path / package_files.folder(built)


def test_names_in_any_script_compile_into_the_pdf(
    unicode_world, phase, organiser, tmp_path: Path
):  # noqa: ANN001
    engine = _engine()
    root = _extract(organiser, phase, tmp_path)
    readme = (root / "README").read_text()
    assert "lualatex main.tex" in readme
    main = (root / "main.tex").read_text()
    assert "landscape]{geometry}" not in main and r"\begin{landscape}" not in main
    result = _compile(root, engine)
    log = (root / "main.log").read_text(errors="replace")
    assert result.returncode == 0, log[-3000:]
    assert "(./tables/public.tex" in log  # every file it reads is logged
    assert "(/etc/passwd" not in log
    assert "Missing character" not in log
    assert "Overfull \\hbox" not in log  # every table fits its page
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    flat = re.sub(r"\s+", " ", text)
    for name in NAMES:  # every character of every name, in order
        assert name in flat, (name, flat[:3000])
    assert "Results on test set Public" in flat
    assert "Ελληνικά paper" in flat and "example.org/ñ/p?a=1&b=%20#sec~2_x" in flat
    # Figures are captioned with what they show, not with their file names.
    assert "with its paired-bootstrap 95% interval" in flat
    assert "intervals.pdf" not in flat and "public/ap" not in flat
    pages = subprocess.run(
        ["pdfinfo", "-f", "1", "-l", "99", "main.pdf"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout.decode()
    sizes = re.findall(r"Page +\d+ size: +([\d.]+) x ([\d.]+)", pages)
    rotations = re.findall(r"Page +\d+ rot: +(\d+)", pages)
    assert sizes and all(float(w) < float(h) for w, h in sizes)  # portrait
    assert set(rotations) == {"0"}


def test_a_character_no_font_has_stops_the_compilation(
    task, phase, test_set, bucc_demo, organiser, django_user_model, tmp_path: Path
):  # noqa: ANN001, PLR0913
    """U+10FFFD (private use: no font draws it) is not dropped with a warning in
    the log: the compilation fails and names it."""
    engine = _engine()
    user = django_user_model.objects.create_user("nofont")
    teams.register(task=task, user=user, new_team_name="Team \U0010fffd")
    scored(phase, user, bucc_demo.runs[0][2]["test"], "m", figures=False)
    root = _extract(organiser, phase, tmp_path)
    result = _compile(root, engine)
    log = (root / "main.log").read_text(errors="replace")
    assert result.returncode != 0
    assert "Missing character: There is no" in log
    assert not (root / "main.pdf").exists()


def _wide_table(systems: int, name: str = "Team (method)") -> str:
    task_type = registry.get("bilingual_term_alignment")
    table = {
        **compare.metrics_head(task_type),
        "samples": 1000,
        "seed": 0,
        "confidence": 0.95,
        "alpha": 0.05,
        "signature": "sig",
        "systems": [
            {
                "index": i + 1,
                "name": f"{name} {i}",
                "band": 1,
                "metrics": {m.key: 0.5 for m in task_type.metrics},
                "interval": {"value": 0.5, "half_width": 0.01},
            }
            for i in range(systems)
        ],
        "p_randomisation": [[0.5] * systems for _ in range(systems)],
    }
    return tables.results_latex(table), tables.pvalues_latex(table)


def test_portrait_unless_the_columns_do_not_fit():
    results, pvalues = _wide_table(4)
    assert package_tex.fit(results) == package_tex.Fit(False, "", True)
    assert package_tex.fit(pvalues) == package_tex.Fit(False, "", True)
    _, many = _wide_table(20)
    assert package_tex.fit(many).landscape and package_tex.fit(many).fits
    _, too_many = _wide_table(60)
    assert not package_tex.fit(too_many).fits
    long_names, _ = _wide_table(
        3, "日本語のとても長いチーム名 (a very long method name)"
    )
    assert package_tex.fit(long_names).landscape
