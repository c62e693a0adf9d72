from __future__ import annotations

import pytest

from evalhub.annotations import jobs
from evalhub.annotations.models import Judgement
from evalhub.annotations.services import judgements, judging, page, rescoring
from evalhub.competitions import signals
from evalhub.competitions.models import Artefact, Evaluation, Score, Submission
from tasks.mt_lexicon_probe.tags import Tag, normalise_translation

pytestmark = pytest.mark.django_db
fast = pytest.mark.usefixtures("without_plots")

PRIMARY = "correct_low_mean"
SHARED = ("adj-low-002", normalise_translation("Dies ist Dieb-isch."))


def _score(sub: Submission, test_set, metric: str = PRIMARY) -> float | None:  # noqa: ANN001
    return Score.objects.get(submission=sub, test_set=test_set, metric=metric).value


def _tag(test_set, user, item: tuple[str, str], tag: str) -> Judgement:  # noqa: ANN001
    return judging.record(
        test_set=test_set,
        user=user,
        probe_id=item[0],
        translation_key=item[1],
        tag=tag,
    )


@fast
def test_platform_scores_with_automatic_tags_only(mt_runs, mt_test_set):
    wide = mt_runs["wide"]
    # Low class: 3 pending items (Dieb-isch, Wasser-Vogel, Sakristei-Mann), the rest
    # proposed c: correct over judged items = 1.0, 3 items awaiting annotation.
    assert _score(wide, mt_test_set) == pytest.approx(1.0)
    assert _score(wide, mt_test_set, "n_pending") == 3


@fast
def test_judgement_memory_is_reused_across_systems(mt_runs, mt_test_set, organiser):
    wide, segmenting, small = (mt_runs[k] for k in ("wide", "segmenting", "small"))
    before_small = list(
        Score.objects.filter(submission=small).order_by("metric").values_list("value")
    )
    _tag(mt_test_set, organiser, SHARED, "w")

    changed = rescoring.rescore_test_set(test_set_id=mt_test_set.pk)

    # One judgement settles the identical translation of both systems.
    assert sorted(changed) == sorted([wide.pk, segmenting.pk])
    # wide, low class: adj 2/3 (waffenlos c, Dieb-isch w, tränenlos c), noun 1/1,
    # verb 3/3 -> mean (2/3 + 1 + 1) / 3.
    assert _score(wide, mt_test_set) == pytest.approx((2 / 3 + 1 + 1) / 3)
    assert _score(wide, mt_test_set, "n_pending") == 2
    assert _score(segmenting, mt_test_set, "n_pending") == 10
    items = Evaluation.objects.get(submission=segmenting).detail["items"]
    tagged = next(i for i in items if i["id"] == "adj-low-002")
    assert (tagged["tag"], tagged["source"]) == ("w", "judgement")
    # small copied the word (automatic u): untouched.
    after_small = list(
        Score.objects.filter(submission=small).order_by("metric").values_list("value")
    )
    assert after_small == before_small


def test_rescoring_twice_is_a_noop(mt_runs, mt_test_set, organiser):
    wide = mt_runs["wide"]
    plot = Artefact.objects.get(evaluation__submission=wide)
    old_svg = plot.svg.read()
    _tag(mt_test_set, organiser, SHARED, "w")
    assert jobs.rescore_judged_runs(mt_test_set.pk) != []
    rows = list(Score.objects.order_by("pk").values_list("pk", "value"))
    stamps = list(Evaluation.objects.order_by("pk").values_list("created_at"))
    plots = list(Artefact.objects.order_by("pk").values_list("pk", "svg"))
    # The run's plot was redrawn with the new numbers.
    plot = Artefact.objects.get(evaluation__submission=wide)
    new_svg = plot.svg.read()
    assert new_svg != old_svg and new_svg.lstrip().startswith(b"<?xml")
    assert jobs.rescore_judged_runs(mt_test_set.pk) == []
    assert list(Score.objects.order_by("pk").values_list("pk", "value")) == rows
    assert list(Evaluation.objects.order_by("pk").values_list("created_at")) == stamps
    assert list(Artefact.objects.order_by("pk").values_list("pk", "svg")) == plots


@fast
def test_undo_keeps_history_and_restores_the_previous_score(
    mt_runs, mt_test_set, organiser
):
    wide = mt_runs["wide"]
    first = _tag(mt_test_set, organiser, SHARED, "c")
    second = _tag(mt_test_set, organiser, SHARED, "w")
    rescoring.rescore_test_set(test_set_id=mt_test_set.pk)
    assert _score(wide, mt_test_set) == pytest.approx((2 / 3 + 1 + 1) / 3)

    undone = judging.undo(test_set=mt_test_set, user=organiser)
    assert undone.pk == second.pk and undone.retracted_by == organiser
    assert judgements.current_tags(test_set=mt_test_set) == {SHARED: Tag.CORRECT}
    rescoring.rescore_test_set(test_set_id=mt_test_set.pk)
    assert _score(wide, mt_test_set) == pytest.approx(1.0)

    judging.undo(test_set=mt_test_set, user=organiser)
    assert judgements.current_tags(test_set=mt_test_set) == {}
    assert judging.undo(test_set=mt_test_set, user=organiser) is None
    history = judgements.history(test_set=mt_test_set, probe_id=SHARED[0])
    assert [(j.pk, j.tag, j.annotator, j.is_active) for j in history] == [
        (second.pk, "w", organiser, False),
        (first.pk, "c", organiser, False),
    ]
    rescoring.rescore_test_set(test_set_id=mt_test_set.pk)
    assert _score(wide, mt_test_set, "n_pending") == 3


@fast
def test_undo_retracts_only_the_users_own_judgement(
    mt_runs, mt_test_set, organiser, django_user_model
):
    second = django_user_model.objects.create_user("anna")
    mt_test_set.phase.task.organisers.add(second)
    mine = _tag(mt_test_set, organiser, SHARED, "w")
    _tag(mt_test_set, second, SHARED, "c")
    assert judging.undo(test_set=mt_test_set, user=organiser).pk == mine.pk
    assert judgements.current_tags(test_set=mt_test_set) == {SHARED: Tag.CORRECT}


@fast
def test_cohen_kappa_between_two_annotators(
    mt_runs, mt_test_set, organiser, django_user_model
):
    anna = django_user_model.objects.create_user("anna")
    items = [
        ("adj-low-002", "Dies ist Dieb-isch."),
        ("noun-low-001", "Der Wasser-Vogel kann schön sein."),
        ("noun-low-002", "Der Sakristei-Mann kann schön sein."),
        ("verb-low-003", "Wir Tastatur."),
    ]
    org_tags = ["w", "s", "w", "w"]
    anna_tags = ["w", "s", "s", "w"]
    for (pid, text), a, b in zip(items, org_tags, anna_tags, strict=True):
        key = normalise_translation(text)
        _tag(mt_test_set, organiser, (pid, key), a)
        _tag(mt_test_set, anna, (pid, key), b)
    # Only anna tagged this one: not in the comparison.
    _tag(
        mt_test_set, anna, ("verb-low-002", normalise_translation("Wir aus-klug.")), "w"
    )

    [pair] = judgements.agreement(test_set=mt_test_set)
    # p_o = 3/4; p_e = (3/4)(2/4) + (1/4)(2/4) = 1/2; kappa = (3/4 - 1/2) / (1/2).
    assert (pair.first, pair.second) == ("anna", "org")
    assert pair.agreement.n_items == 4
    assert pair.agreement.kappa == pytest.approx(0.5)


@fast
def test_invalid_judgements_are_refused(mt_runs, mt_test_set, organiser):
    with pytest.raises(judging.InvalidJudgement):
        _tag(mt_test_set, organiser, ("adj-low-002", "some other text"), "w")
    with pytest.raises(judging.InvalidJudgement):
        _tag(mt_test_set, organiser, ("no-such-probe", SHARED[1]), "w")
    with pytest.raises(judging.InvalidJudgement):
        _tag(mt_test_set, organiser, SHARED, "x")
    with pytest.raises(judging.InvalidJudgement, match="nouns only"):
        _tag(mt_test_set, organiser, SHARED, "wd")
    assert Judgement.objects.count() == 0


@fast
def test_a_judgement_queues_the_rescoring_after_commit(
    mt_runs, mt_test_set, organiser, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        _tag(mt_test_set, organiser, SHARED, "w")
    assert len(callbacks) == 1


@fast
def test_a_newly_scored_run_gets_the_stored_judgements(
    mt_runs,
    mt_test_set,
    organiser,
    submit_scored,
    mt_demo,
    django_capture_on_commit_callbacks,
):
    _tag(mt_test_set, organiser, SHARED, "w")
    rescoring.rescore_test_set(test_set_id=mt_test_set.pk)
    wide_bytes = next(iter(mt_demo.runs[0][2].values()))
    late = submit_scored("late", wide_bytes)
    # Scored by the platform with automatic tags only ...
    assert _score(late, mt_test_set, "n_pending") == 3
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        signals.submission_scored.send(
            sender=Submission, submission_id=late.pk, test_set_ids=[mt_test_set.pk]
        )
    # ... then the re-scoring job is queued (other apps may listen too).
    ours = [c for c in callbacks if "rescore_after_scoring" in c.__qualname__]
    assert len(ours) == 1
    assert rescoring.rescore_test_set(test_set_id=mt_test_set.pk) == [late.pk]
    assert _score(late, mt_test_set, "n_pending") == 2
    assert _score(late, mt_test_set) == _score(mt_runs["wide"], mt_test_set)


@fast
def test_page_groups_identical_translations_and_filters(
    mt_runs, mt_test_set, organiser
):
    ctx = page.annotation_page(
        test_set=mt_test_set,
        user=organiser,
        probe_id="adj-low-002",
        filters=page.Filters(),
    )
    [shared, copied] = ctx["choices"]
    assert shared.key == SHARED[1] and len(shared.systems) == 2
    assert shared.needs_judgement and copied.source == "auto_u"
    assert ctx["progress"].n_items == 81 and ctx["progress"].n_pending == 14

    untagged_nouns = page.Filters(pos="noun", untagged=True)
    ctx = page.annotation_page(
        test_set=mt_test_set, user=organiser, probe_id=None, filters=untagged_nouns
    )
    assert ctx["group"].probe.pos == "noun"
    assert all(c.needs_judgement or c.source != "pending" for c in ctx["choices"])
    low = page.annotation_page(
        test_set=mt_test_set,
        user=organiser,
        probe_id=None,
        filters=page.Filters(freq_class="low", pos="verb"),
    )
    assert low["n_shown"] == 3
