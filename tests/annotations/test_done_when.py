"""Issue 5's "done when", through Django's client with the real Wiktionary lexicon:
the organiser builds a probe set on the page, two systems translate it (invented here
from the real dictionaries: a wide lexicon, and a small one that copies the words it
does not know), the platform tags what it can automatically, an annotator tags the
rest on the annotation page, and the leaderboard carries the paper's tables."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalhub.annotations.services import rescoring
from evalhub.competitions.services.boards import analyses
from tasks.mt_lexicon_probe.builder import read_pairs
from tasks.mt_lexicon_probe.probes import parse_probes
from tests.paths import shared_data

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("without_plots")]

ROOT = ("mt_lexical_coverage", "wiktionary_bli_de_en")


def _upload(name: str) -> SimpleUploadedFile:
    path = shared_data(*ROOT, name)
    return SimpleUploadedFile(path.name, path.read_bytes())


def _lexicon(name: str) -> dict[str, str]:
    """English word -> its first German translation in a real BLI file."""
    out: dict[str, str] = {}
    path = shared_data(*ROOT, name)
    for en, de in read_pairs(
        path.read_bytes(), name, columns=("de", "en"), source="en"
    ):
        out.setdefault(en.casefold(), de)
    return out


def _translate(probes: bytes, lexicon: dict[str, str]) -> bytes:
    """A word-for-word system in the German templates; unknown words are copied."""
    lines = []
    for p in parse_probes(probes, "probes.tsv").probes:
        word = lexicon.get(p.word.casefold(), p.word)
        if p.pos.value == "adj":
            lines.append(f"Es ist {word}.")
        elif p.pos.value == "noun":
            lines.append(f"Das {word[:1].upper() + word[1:]} kann schön sein.")
        else:
            lines.append(f"Wir {word}.")
    return ("\n".join(lines) + "\n").encode()


def _submit(phase, name: str, data: bytes):  # noqa: ANN001, ANN202
    from django.contrib.auth import get_user_model

    from evalhub.competitions.services import teams
    from evalhub.competitions.services.runs import scoring, submit

    user = get_user_model().objects.create_user(f"user-{name}")
    teams.register(task=phase.task, user=user, new_team_name=f"Team {name}")
    sub = submit.submit_run(
        phase=phase, user=user, filename=f"{name}.txt", data=data, method_name=name
    )
    assert scoring.score_submission(submission_id=sub.pk) == "scored"
    sub.refresh_from_db()
    return sub


def test_build_on_the_page_auto_tag_annotate_and_rank(
    client, mt_task, organiser, annotator, django_user_model
):
    from django.utils import timezone

    from evalhub.competitions.models import Phase, TestSet

    now = timezone.now()
    phase = Phase.objects.create(
        task=mt_task,
        slug="evaluation",
        name="Evaluation",
        opens_at=now - timedelta(days=1),
        closes_at=now + timedelta(days=7),
    )
    client.force_login(organiser)
    build = reverse("annotations:probe-set-build", args=[mt_task.slug])
    form = client.get(build).context["form"]
    params = {k: form[k].value() for k in form.fields if not k.endswith("list")}
    params = {k: v for k, v in params.items() if v is not None}
    params["per_cell"] = 10
    files = {
        "adj_list": _upload("de-en.train.Adjective"),
        "noun_list": _upload("de-en.train.Noun"),
        "verb_list": _upload("de-en.train.Verb"),
        "dictionary": _upload("de-en.all"),
    }
    preview = client.post(build, {**params, **files}).context["preview"]
    assert preview.n_probes == 90
    save = reverse("annotations:probe-set-save", args=[mt_task.slug])
    client.post(
        save, {"token": preview.token, "target": f"phase:{phase.pk}", "name": "Real"}
    )
    test_set = TestSet.objects.get(phase=phase, name="Real")

    # Participants download the probes and translate them with their systems.
    client.force_login(django_user_model.objects.create_user("reader"))
    probes_url = reverse("competitions:testset-file", args=[test_set.pk, "probes"])
    probes = b"".join(client.get(probes_url).streaming_content)
    wide = _submit(phase, "wide", _translate(probes, _lexicon("de-en.all")))
    small = _submit(phase, "small", _translate(probes, _lexicon("de-en.test")))

    def scores(run) -> dict[str, float | None]:  # noqa: ANN001
        return dict(run.scores.filter(test_set=test_set).values_list("metric", "value"))

    # Automatic tags: copied words (u) and translations holding a reference (c?).
    assert scores(small)["translated_low_mean"] < scores(wide)["translated_low_mean"]
    assert scores(wide)["n_pending"] > 0  # e.g. words the references do not cover

    # The annotator tags what remains, one probe sentence after the other.
    client.force_login(annotator)
    detail = reverse("annotations:annotation-detail", args=[test_set.pk])
    tag = reverse("annotations:judgement-create", args=[test_set.pk])
    judged = 0
    for _ in range(500):
        context = client.get(detail, {"untagged": "1"}).context
        todo = [c for c in context["choices"] if c.needs_judgement]
        if context["group"] is None or not todo:
            break
        for choice in todo:
            verdict = "c" if choice.source == "proposed_c" else "w"
            response = client.post(
                tag,
                {"probe": context["group"].probe.id, "key": choice.key, "tag": verdict},
            )
            assert response.status_code == 302
            judged += 1
    assert judged > 0
    progress = client.get(detail).context["progress"]
    assert progress.n_settled == progress.n_items == 180  # 90 probes x 2 systems
    assert progress.n_to_judge == 0 and progress.n_proposed == 0
    rescoring.rescore_test_set(test_set_id=test_set.pk)

    # The leaderboard: tables 1-3 (means per frequency class) and table 4, final.
    board = client.get(
        reverse("competitions:leaderboard-json", args=[mt_task.slug, phase.slug])
    ).json()
    [real] = [b for b in board["test_sets"] if b["test_set"] == test_set.slug]
    rows = {r["method"]: r for r in real["rows"]}
    assert set(rows) == {"wide", "small"}
    for row in rows.values():
        assert row["n_pending"] == 0
        for measure in ("translated", "correct", "correct_strict"):
            for fc in ("high", "medium", "low"):
                assert row[f"{measure}_{fc}_mean"] is not None
        assert row["correct_low_mean"] <= row["translated_low_mean"]
    assert rows["small"]["translated_low_mean"] < rows["wide"]["translated_low_mean"]
    # ... and tables 1-4 per word class as a figure (refreshed after each scored
    # run by a worker; here directly).
    analyses.refresh(test_set_id=test_set.pk)
    page = client.get(
        reverse("competitions:leaderboard-detail", args=[mt_task.slug, phase.slug])
    ).content.decode()
    for label in ("Translated, low freq.", "Correct, low freq.", "Wrong determiners"):
        assert label in page
    figure = reverse(
        "competitions:testset-plot", args=[test_set.pk, "compare-tables", "png"]
    )
    assert "Tables 1-4 (Volk 1997)" in page and figure.replace(".png", ".svg") in page
    png = b"".join(client.get(figure).streaming_content)
    assert png.startswith(b"\x89PNG")
    run_page = client.get(reverse("competitions:run-detail", args=[wide.pk]))
    assert run_page.status_code == 200
