"""One band rule, one wording: every surface that shows bands (the leaderboard page,
its JSON export and the API, the significance page and its exports, the overall
ranking, the console's ranking page with the Ladder's explanation, the package's
README and LaTeX captions, ``evalhub compare``) says what a band means with the
sentence of ``tasks.common.resampling.bands``, and none says it another way
(observation 2 of the issue: "from one another" on the leaderboard, "from the
band's best" on the significance page and in the package)."""

from __future__ import annotations

import html
import io
import json
from contextlib import redirect_stdout

import pytest
from django.urls import reverse

from evalhub.rankings.services import package, package_files
from tasks import cli
from tasks.common.resampling import bands
from tests.rankings.statistics_demo import (
    leaderboard_html,
    scored_demo,
    significance_html,
)

pytestmark = pytest.mark.django_db

#: Other definitions of a band that must not appear anywhere.
OTHER_WORDINGS = (
    "from one another",
    "No correction for multiple comparisons",
    "significantly different from the band's best.",
    "significantly different from the band's best,",
    "a new band starts at",
)


def _get(client, name: str, *args: object) -> str:  # noqa: ANN001
    response = client.get(reverse(name, args=args))
    assert response.status_code == 200, name
    return html.unescape(response.content.decode())


def _surfaces(client, task, tmp_path) -> dict[str, str]:  # noqa: ANN001
    phase = task.phases.get()
    ts = phase.test_sets.get()
    out = {
        "leaderboard": html.unescape(leaderboard_html(client, task)),
        "leaderboard json": _get(
            client, "competitions:leaderboard-json", task.slug, phase.slug
        ),
        "api": _get(client, "api:api-v1:leaderboard-detail", task.slug, phase.slug),
        "significance": html.unescape(significance_html(client, ts)),
        "significance json": _get(
            client, "rankings:significance-export", ts.pk, "json"
        ),
        "significance tex": _get(client, "rankings:significance-export", ts.pk, "tex"),
        "overall ranking": _get(
            client, "competitions:ranking-detail", task.slug, phase.slug
        ),
    }
    organiser = task.organisers.get()
    files = package_files.files(package.build(phase=phase, user=organiser, render=True))
    out["package README"] = files["README"].decode()
    for name, data in files.items():
        if name.startswith("tables/") and name.endswith(".tex"):
            out[f"package {name}"] = data.decode()
    client.force_login(organiser)
    out["console ranking (Ladder)"] = _get(
        client, "console:ranking", task.slug, phase.slug
    )
    demo_ts = task.type.demo(seed=0).test_sets[0]
    for role, data in {**demo_ts.inputs, **demo_ts.gold}.items():
        (tmp_path / role).write_bytes(data)
    args = ["compare", task.type.slug, "--gold", str(tmp_path / "gold")]
    args += ["--source-terms", str(tmp_path / "source_terms")]
    args += ["--target-terms", str(tmp_path / "target_terms"), "--run"]
    for i, (_, _, runs) in enumerate(task.type.demo(seed=0).runs):
        (tmp_path / f"run{i}.tsv").write_bytes(runs[demo_ts.name])
        args.append(str(tmp_path / f"run{i}.tsv"))
    for fmt in ("text", "latex", "json"):
        stdout = io.StringIO()
        with redirect_stdout(stdout):
            assert cli.main([*args, "--format", fmt]) == 0
        out[f"evalhub compare {fmt}"] = stdout.getvalue()
    return out


def test_every_surface_words_the_band_rule_the_same_way(
    client, isolated_storage, tmp_path
):
    task = scored_demo("bilingual_term_alignment")
    surfaces = _surfaces(client, task, tmp_path)
    for name, text in surfaces.items():
        if name.endswith("json") or name == "api":
            text = json.dumps(json.loads(text), ensure_ascii=False)
        assert bands.RULE in text.replace("\\", ""), name
        for other in OTHER_WORDINGS:
            assert other not in text, (name, other)
    # The boards' sentence states the unit, n, the correction and the comparisons.
    board = surfaces["leaderboard"]
    assert "over 243 gold pairs" in board
    assert "Holm-corrected at α = 0.05" in board
    assert "comparisons per band: 2, 1, 0" in board
