"""Scoring runs for the rankings tests through the production path: the submit
service, then the scoring job (``scoring.score_submission``), then the job that
draws the run's own figures.

``figures=False`` leaves a run's own figures pending, as they are until a worker
takes their job: for a test that reads none of them (no run page, no run figure,
no archive), since drawing them is most of a small run's CPU. The boards, the
statistics, the comparison and analysis figures and the package never read them."""

from __future__ import annotations

from evalhub.competitions.models import Submission
from evalhub.competitions.services.runs import scoring, submit
from tests import run_figures


def scored(
    phase,
    user,
    data: bytes,
    method: str,
    *,
    figures: bool = True,  # noqa: ANN001
    **more: object,
) -> Submission:
    """A run submitted as the browser does (``submitted``; ``more``: the submit
    service's other arguments, e.g. ``track``) and scored now (``rescored``)."""
    return rescored(submitted(phase, user, data, method, **more), figures=figures)


def submitted(phase, user, data: bytes, method: str, **more: object) -> Submission:  # noqa: ANN001
    """A run submitted as the browser does (``more``: the submit service's other
    arguments), queued: its scoring job sent once the transaction commits."""
    return submit.submit_run(
        phase=phase,
        user=user,
        filename="run.tsv",
        data=data,
        method_name=method,
        **more,
    )


def rescored(sub: Submission, *, figures: bool = True) -> Submission:
    """Score a queued run (a new one, or one queued again for rescoring) now, and
    draw its figures (unless ``figures`` is False: see the module docstring)."""
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    if figures:
        run_figures.draw_pending(sub)  # the job the scoring job sends after commit
    sub.refresh_from_db()
    return sub


def compare_args(tmp_path, bucc_demo, subs, gold_version: int) -> list[str]:  # noqa: ANN001
    """``evalhub compare --format latex`` on the BUCC demo's first test set and these
    runs (their files and inputs written to ``tmp_path``), each named as the
    package names it; the title and label follow."""
    from evalhub.rankings.services import package

    ts_data = bucc_demo.test_sets[0]
    for role, data in {**ts_data.inputs, **ts_data.gold}.items():
        (tmp_path / role).write_bytes(data)
    args = ["compare", "bilingual_term_alignment", "--gold", str(tmp_path / "gold")]
    args += ["--source-terms", str(tmp_path / "source_terms")]
    args += ["--target-terms", str(tmp_path / "target_terms"), "--run"]
    names = []
    for i, sub in enumerate(subs):
        path = tmp_path / f"run{i}.tsv"
        with sub.file.open("rb") as fh:
            path.write_bytes(fh.read())
        args.append(str(path))
        names += ["--name", package.system_name(sub.team.name, sub.method_name)]
    return [*args, *names, "--gold-version", str(gold_version), "--format", "latex"]
