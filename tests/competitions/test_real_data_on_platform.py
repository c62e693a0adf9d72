"""The real public data through the whole platform path (upload -> validation -> job ->
stored scores -> leaderboard), pinned to the official / published numbers that the
task-type tests establish offline."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.competitions import jobs
from evalhub.competitions.models import Phase, Score, SharedTask, Submission, TestSet
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import leaderboard
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import submit
from tests.paths import shared_data
from tests.zips import zip_bytes

pytestmark = pytest.mark.django_db


def _task(
    organiser, slug: str, task_type: str, settings: dict, files: dict[str, bytes]
):  # noqa: ANN001, ANN202
    task = SharedTask.objects.create(
        slug=slug,
        title=slug,
        task_type=task_type,
        task_settings=settings,
        state="published",
    )
    task.organisers.add(organiser)
    now = timezone.now()
    phase = Phase.objects.create(
        task=task,
        slug="test",
        name="Test",
        opens_at=now - timedelta(days=1),
        closes_at=now + timedelta(days=1),
        daily_limit=10,
        total_limit=10,
    )
    test_set = TestSet.objects.create(phase=phase, slug="test", name="test")
    for role, data in files.items():
        datasets.store_file(test_set=test_set, role=role, filename=role, data=data)
    return phase, test_set


def _run(
    phase, django_user_model, team_name: str, data: bytes, filename: str = "run.txt"
) -> Submission:  # noqa: ANN001
    user = django_user_model.objects.create_user(team_name.lower().replace(" ", "-"))
    teams.register(task=phase.task, user=user, new_team_name=team_name)
    sub = submit.submit_run(
        phase=phase, user=user, filename=filename, data=data, method_name=team_name
    )
    assert jobs.score_submission(sub.pk) == "scored"
    return sub


def _score(sub: Submission, metric: str) -> float:
    return Score.objects.get(submission=sub, metric=metric).value  # type: ignore[return-value]


def test_bucc_real_runs_equal_the_official_scorer(
    organiser, isolated_storage, django_user_model
):
    base = shared_data("bilingual_term_alignment", "wiktionary_en_de", "test")
    phase, _ = _task(
        organiser, "bucc-real", "bilingual_term_alignment", {},
        {
            "source_terms": (base / "source_terms.txt").read_bytes(),
            "target_terms": (base / "target_terms.txt").read_bytes(),
            "gold": (base / "gold.tsv").read_bytes(),
        },
    )  # fmt: skip
    cognates = _run(
        phase,
        django_user_model,
        "Cognates",
        (base / "runs" / "cognates.tsv").read_bytes(),
    )
    messy = _run(
        phase, django_user_model, "Messy", (base / "runs" / "messy.tsv").read_bytes()
    )
    long_tail = _run(
        phase,
        django_user_model,
        "Long tail",
        (base / "runs" / "long_tail.tsv").read_bytes(),
    )
    # Official evaluation.py (BUCC 2022, v1.1, with -i), see
    # tests/task_types/bilingual_term_alignment/test_official_numbers.py.
    assert _score(cognates, "ap") == pytest.approx(0.049584698827213836, abs=1e-9)
    assert _score(cognates, "ap_interpolated") == pytest.approx(
        0.05153416091529075, abs=1e-9
    )
    assert _score(long_tail, "ap") == pytest.approx(0.03128866739791313, abs=1e-9)
    assert _score(long_tail, "tp") == 612
    # The messy run cleans to the cognates run; its team is told what was removed.
    assert _score(messy, "ap") == _score(cognates, "ap")
    messy.refresh_from_db()
    assert any("50" in w for w in messy.warnings) and any(
        "200" in w for w in messy.warnings
    )


def test_acter_xlmr_run_reproduces_the_published_termeval_counts(
    organiser, isolated_storage, django_user_model
):
    gold = shared_data(
        "term_extraction", "acter", "en", "htfl", "annotated", "annotations",
        "unique_annotation_lists", "htfl_en_terms.tsv",
    ).read_bytes()  # fmt: skip
    preds = shared_data(
        "term_extraction", "ate_nobi_preds", "preds", "en_acter_ann_gs.txt"
    )
    run = ("\n".join(json.loads(preds.read_text(encoding="utf-8"))[0]) + "\n").encode()
    phase, _ = _task(
        organiser, "acter-real", "term_extraction", {"mode": "termeval"}, {"gold": gold}
    )
    sub = _run(phase, django_user_model, "XLM-R", run)
    # Published (ate_nobi scores/): 1996 predicted, 2361 gold, 1148 correct.
    assert _score(sub, "precision") == pytest.approx(1148 / 1996, abs=1e-12)
    assert _score(sub, "recall") == pytest.approx(1148 / 2361, abs=1e-12)
    # TermoMeter at tau = 0.4, pinned in tests/task_types/term_extraction/test_real_data.py.
    assert _score(sub, "term_precision") == pytest.approx(0.72383724447466, abs=1e-9)
    assert _score(sub, "term_f1") == pytest.approx(0.6153410452662965, abs=1e-9)


def test_text_berg_systems_rank_as_their_papers_report(
    organiser, isolated_storage, django_user_model
):
    root = shared_data("sentence_alignment")
    data = root / "vecalign_bleualign_data"
    docs, gold = {}, {}
    for i in range(7):
        docs[f"test{i}.src"] = (data / f"test{i}.de").read_bytes()
        docs[f"test{i}.tgt"] = (data / f"test{i}.fr").read_bytes()
        gold[f"test{i}.align"] = (data / f"test{i}.defr").read_bytes()
    phase, test_set = _task(
        organiser, "textberg", "sentence_alignment", {},
        {"documents": zip_bytes(docs), "gold": zip_bytes(gold)},
    )  # fmt: skip

    def run_of(path_of) -> bytes:  # noqa: ANN001
        return b"".join(
            f"# test{i}\n".encode() + path_of(i).read_bytes() for i in range(7)
        )

    bertalign = _run(phase, django_user_model, "Bertalign", run_of(
        lambda i: root / "bertalign_textberg_auto" / f"00{i + 1}.align"))  # fmt: skip
    bleualign = _run(phase, django_user_model, "Bleualign", zip_bytes({
        f"test{i}.align": (root / "derived_bleualign_refer_as_indices" / f"eval1989.google..test{i}.defr").read_bytes()
        for i in range(7)
    }), filename="bleualign.zip")  # fmt: skip
    galechurch = _run(phase, django_user_model, "Gale-Church", run_of(
        lambda i: root / "derived_bleualign_refer_as_indices" / f"eval1989-galechurch.test{i}.defr"))  # fmt: skip
    # vecalign's score.py on the same files (tests/task_types/sentence_alignment).
    assert _score(bertalign, "strict_f1") == pytest.approx(0.939063, abs=5e-7)
    assert _score(bertalign, "lax_f1") == pytest.approx(0.991931, abs=5e-7)
    assert _score(bleualign, "strict_f1") == pytest.approx(0.809096, abs=5e-7)
    assert _score(galechurch, "strict_f1") == pytest.approx(0.501312, abs=5e-7)
    board = leaderboard.compute(test_set=test_set)
    assert [row.team for row in board.rows] == ["Bertalign", "Bleualign", "Gale-Church"]
