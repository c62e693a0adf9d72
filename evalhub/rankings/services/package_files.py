"""The files of the overview-paper package (``services/package.py`` decides what it
holds): a zip with one folder ``<task>-<phase>-overview/`` holding

- ``main.tex``: a LaTeX document that ``\\input``'s every table and includes every
  figure, so the folder compiles as it is (``pdflatex main.tex``);
- ``tables/<board>.tex``: the results of one (test set, track): booktabs, the best
  value per column in bold, a rule between significance bands, intervals;
- ``pvalues/<board>.tex`` and ``.csv``: the pairwise p-value matrix;
- ``figures/<test set>/<figure>.pdf``: comparison figures and the interval chart;
- ``systems.tex`` and ``.csv``: team, method, track and the feature apps' columns
  (fact-sheet answers, paper links) per system;
- ``README``: how every number was computed; ``package.json``: all of it as data.

User text is written through the one table writer (``competitions.services.tables``
over ``tasks.common.plaintext``): LaTeX-escaped, CSV cells neutralised.
"""

from __future__ import annotations

import io
import json
import zipfile

from evalhub.competitions.models import Phase
from evalhub.competitions.services.boards import tables
from evalhub.competitions.services.boards.tables import latex_escape
from evalhub.rankings.services import package_readme
from evalhub.rankings.services.package import Package, build
from tasks.common import tables as offline

#: Fixed timestamp of every member: the same package gives the same bytes.
_DATE = (2020, 1, 1, 0, 0, 0)


def folder(package: Package) -> str:
    phase = package.phase
    return f"{phase.task.slug}-{phase.slug}-overview"


def files(package: Package) -> dict[str, bytes]:
    """Path inside the package folder -> content."""
    out: dict[str, bytes] = {}
    for board in package.boards:
        slug = board.key.slug
        out[f"tables/{slug}.tex"] = offline.results_latex(board.table).encode()
        pvalues = offline.pvalues_latex(board.table)
        if pvalues:
            out[f"pvalues/{slug}.tex"] = pvalues.encode()
            out[f"pvalues/{slug}.csv"] = offline.pvalues_csv(board.table).encode()
    out.update(package.figures)
    out["systems.tex"] = systems_latex(package).encode()
    out["systems.csv"] = systems_csv(package).encode()
    out["main.tex"] = main_tex(package, out).encode()
    out["README"] = readme(package).encode()
    out["package.json"] = (
        json.dumps(as_json(package), indent=1, ensure_ascii=False) + "\n"
    ).encode()
    return out


def download(*, phase: Phase, user: object) -> tuple[str, bytes]:
    """The zip's file name and bytes for this viewer (``package.NotAvailable``,
    ``package.Preparing``: see ``package.build``)."""
    built = build(phase=phase, user=user)
    return f"{folder(built)}.zip", zip_bytes(built)


def zip_bytes(package: Package) -> bytes:
    buffer = io.BytesIO()
    root = folder(package)
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in sorted(files(package).items()):
            archive.writestr(zipfile.ZipInfo(f"{root}/{name}", _DATE), content)
    return buffer.getvalue()


def _system_cells(package: Package, system: dict) -> list[str]:  # type: ignore[type-arg]
    key = (int(system["team_id"]), str(system["method"]))
    cells = []
    for column in package.columns:
        text = column.values.get(key, "")
        url = column.urls.get(key, "")
        cells.append(f"{text} <{url}>" if url and url != text else text or url)
    return cells


def _has_tracks(package: Package) -> bool:
    return any(board.key.track is not None for board in package.boards)


def systems_latex(package: Package) -> str:
    tracks = _has_tracks(package)
    header = ["Team", "Method"] + (["Track"] if tracks else [])
    header += [latex_escape(c.label) for c in package.columns]
    rows = []
    for system in package.systems:
        cells = [str(system["team"]), str(system["method"])]
        if system["baseline"]:
            cells[1] += " (baseline)"
        cells += [str(system["track"])] if tracks else []
        rows.append([latex_escape(c) for c in cells + _system_cells(package, system)])
    columns = "ll" + ("l" if tracks else "") + "p{4cm}" * len(package.columns)
    title = f"{package.phase.task.title}, {package.phase.name}: the systems."
    lines = tables.booktabs(
        columns=columns, header=header, rows=rows, caption=latex_escape(title)
    )
    return "\n".join(lines) + "\n"


def systems_csv(package: Package) -> str:
    header = ["team", "method", "track", "baseline"]
    for column in package.columns:
        header += [column.key, f"{column.key}:url"]
    rows = []
    for system in package.systems:
        key = (int(system["team_id"]), str(system["method"]))
        row = [system["team"], system["method"], system["track"]]
        row.append("yes" if system["baseline"] else "no")
        for column in package.columns:
            row += [column.values.get(key, ""), column.urls.get(key, "")]
        rows.append(row)
    return tables.csv_text(header, rows)


def main_tex(package: Package, written: dict[str, bytes]) -> str:
    phase = package.phase
    title = latex_escape(f"{phase.task.title}: {phase.name}")
    lines = [
        r"\documentclass[a4paper]{article}",
        r"\usepackage[T1]{fontenc}",
        r"\usepackage[utf8]{inputenc}",
        r"\usepackage[margin=1.5cm,landscape]{geometry}",
        r"\usepackage{booktabs}",
        r"\usepackage{graphicx}",
        rf"\title{{{title}: results}}",
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        r"% Generated by evalhub: every table is \input from tables/ and pvalues/.",
    ]
    for board in package.boards:
        slug = board.key.slug
        lines += ["", rf"\section*{{{latex_escape(board.key.title)}}}"]
        lines.append(rf"\input{{tables/{slug}}}")
        if f"pvalues/{slug}.tex" in written:
            lines.append(rf"\input{{pvalues/{slug}}}")
        lines.append(r"\clearpage")
    names = sorted(name for name in written if name.startswith("figures/"))
    if names:
        lines += ["", r"\section*{Figures}"]
    for name in names:
        caption = latex_escape(name[len("figures/") : -len(".pdf")])
        lines += [
            r"\begin{figure}[p]",
            r"\centering",
            rf"\includegraphics[width=0.8\linewidth,height=0.8\textheight,keepaspectratio]{{{name}}}",
            rf"\caption{{\texttt{{{caption}}}}}",
            r"\end{figure}",
            r"\clearpage",
        ]
    lines += ["", r"\section*{Systems}", r"\input{systems}", r"\end{document}", ""]
    return "\n".join(lines)


def readme(package: Package) -> str:
    return package_readme.text(package)


def as_json(package: Package) -> dict[str, object]:
    phase = package.phase
    return {
        "task": phase.task.slug,
        "task_title": phase.task.title,
        "phase": phase.slug,
        "phase_name": phase.name,
        "for_organisers": package.organiser,
        "unrevealed_test_sets": package.unrevealed,
        "boards": [
            {
                "test_set": board.key.test_set.slug,
                "test_set_name": board.key.test_set.name,
                "track": board.key.track_name or None,
                "file": board.key.slug,
                "statistics_current": board.statistics_current,
                "runs": board.runs,
                "table": board.table,
            }
            for board in package.boards
        ],
        "systems": [
            {
                **system,
                "columns": {
                    column.key: {
                        "label": column.label,
                        "value": column.values.get(
                            (int(system["team_id"]), str(system["method"]))
                        ),
                        "url": column.urls.get(
                            (int(system["team_id"]), str(system["method"]))
                        ),
                    }
                    for column in package.columns
                },
            }
            for system in package.systems
        ],
        "figures": sorted(package.figures),
    }
