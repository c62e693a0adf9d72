"""The files of the overview-paper package (``services/package.py`` decides what it
holds): a zip with one folder ``<task>-<phase>-overview/`` holding

- ``main.tex``: a results section that ``\\input``'s every table and includes every
  figure, so the folder compiles as it is (``lualatex main.tex``; see
  ``services/package_tex.py``: fonts for names in any script, page orientation);
- ``tables/<board>.tex``: the results of one (test set, track), captioned with
  them: booktabs, the primary metric once with its interval, the best value of
  each quality metric in bold, a rule between significance bands;
- ``pvalues/<board>.tex`` and ``.csv``: the pairwise p-value matrix;
- ``figures/<test set>/<figure>.pdf``: comparison figures and the interval chart;
- ``systems.tex`` and ``.csv``: team, method, track and the feature apps' columns
  (fact-sheet answers, paper links as ``\\url``) per system;
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
from evalhub.rankings.services import package_readme, package_tex
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
    out["systems.tex"] = package_tex.systems_latex(package).encode()
    out["systems.csv"] = systems_csv(package).encode()
    out["main.tex"] = package_tex.main_tex(package, out).encode()
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
        "figure_captions": {
            name: package.captions.get(name, ("", ""))[1]
            for name in sorted(package.figures)
        },
    }
