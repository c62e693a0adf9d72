"""Public/private, reveal and gold release as explicit actions: before each one the
organiser reads who will see what, counted by the leak rules themselves
(``visibility.visible`` for a viewer who is not signed in, on the test set as it
will be), then confirms. The actions are the core's services
(``datasets.reveal``, ``datasets.release_gold``: release is refused while a private
test set is unrevealed unless confirmed) and a saved visibility (the core's
receivers invalidate the boards)."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from django.db import transaction

from evalhub.competitions.models import Evaluation, SharedTask, Submission, TestSet
from evalhub.competitions.services.boards import visibility
from evalhub.competitions.services.data import datasets


@dataclass(frozen=True, slots=True)
class Disclosure:
    """What an action changes, in sentences the confirmation page shows."""

    title: str
    button: str
    sentences: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    #: the organiser must tick "release although private scores are hidden"
    unrevealed: tuple[str, ...] = ()
    #: nothing to do (already in that state)
    done: bool = False


def _runs(test_set: TestSet) -> list[Submission]:
    return list(
        Submission.objects.filter(
            pk__in=Evaluation.objects.filter(test_set=test_set).values("submission_id")
        )
        .select_related("team", "phase__task")
        .order_by("pk")
    )


def _public_runs(test_set: TestSet) -> tuple[int, int, int]:
    """(runs, teams, hidden runs) whose scores on ``test_set`` as it is (or will be,
    for a changed copy) a viewer who is not signed in may see."""
    runs = _runs(test_set)
    seen = visibility.visible(viewer=visibility.PUBLIC, test_set=test_set, runs=runs)
    teams = {r.team_id for r in runs if r.pk in seen}
    return len(seen), len(teams), sum(1 for r in runs if r.hidden)


def _who(task: SharedTask) -> str:
    if task.state == SharedTask.State.DRAFT:
        return (
            "Once the task is published (it is a draft: only its organisers see it "
            "now), everyone, signed in or not,"
        )
    return "Everyone, signed in or not,"


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _scores_sentence(test_set: TestSet, will: bool) -> str:
    runs, teams, hidden = _public_runs(test_set)
    who = _who(test_set.phase.task)
    verb = "will see" if will else "sees"
    text = (
        f"{who} {verb} the scores of {_n(runs, 'run')} of {_n(teams, 'team')} "
        f"on “{test_set.name}”, and of every run scored on it from now on"
    )
    if hidden:
        text += f" ({_n(hidden, 'hidden run')}: their teams and the organisers only)"
    return text + "."


def visibility_change(*, test_set: TestSet, visibility: str) -> Disclosure:
    label = dict(TestSet.Visibility.choices).get(visibility, visibility)
    title = f"Make “{test_set.name}” {label.split(' ')[0].lower()}"
    if visibility == test_set.visibility:
        return Disclosure(
            title, "", (f"“{test_set.name}” is {label.lower()} already.",), done=True
        )
    changed = copy.copy(test_set)
    changed.visibility = visibility
    if visibility == TestSet.Visibility.PUBLIC:
        sentences = (_scores_sentence(changed, will=True),)
    elif test_set.revealed:
        sentences = (
            f"“{test_set.name}” was revealed: its scores stay visible to everyone "
            "(a revealed private test set shows its scores).",
        )
    else:
        runs, teams, _ = _public_runs(test_set)
        sentences = (
            f"Nobody but the organisers will see the scores on “{test_set.name}” "
            "until it is revealed, the runs' own teams included.",
            f"The scores of {_n(runs, 'run')} of {_n(teams, 'team')} shown today "
            "leave the public boards, and the teams choose final runs for it.",
        )
    return Disclosure(title, f"Make it {visibility}", sentences)


def set_visibility(*, test_set: TestSet, visibility: str) -> bool:
    if visibility not in TestSet.Visibility.values:
        raise ValueError(f"unknown visibility {visibility!r}")
    with transaction.atomic():
        row = TestSet.objects.select_for_update().get(pk=test_set.pk)
        if row.visibility == visibility:
            return False
        row.visibility = visibility
        row.save(update_fields=["visibility"])
    test_set.visibility = visibility
    return True


def reveal_effect(*, test_set: TestSet) -> Disclosure:
    title = f"Reveal the scores of “{test_set.name}”"
    if test_set.scores_public:
        why = "revealed" if test_set.revealed else "public"
        return Disclosure(
            title, "", (f"“{test_set.name}” is {why} already.",), done=True
        )
    changed = copy.copy(test_set)
    changed.revealed = True
    return Disclosure(
        title,
        "Reveal the scores",
        (
            _scores_sentence(changed, will=True),
            "The registered teams are notified. A reveal cannot be undone.",
        ),
    )


def reveal(*, test_set: TestSet) -> None:
    datasets.reveal(test_set=test_set)


def release_effect(*, task: SharedTask) -> Disclosure:
    title = "Release the gold"
    if task.gold_released:
        return Disclosure(title, "", ("The gold is released already.",), done=True)
    test_sets = list(
        TestSet.objects.filter(phase__task=task, files__private=True)
        .distinct()
        .select_related("phase")
    )
    runs = (
        Evaluation.objects.filter(test_set__phase__task=task, submission__hidden=False)
        .values("submission_id")
        .distinct()
        .count()
    )
    names = ", ".join(f"“{ts.phase.name} / {ts.name}”" for ts in test_sets) or "none"
    sentences = (
        f"{_who(task)} will be able to download the gold files of "
        f"{_n(len(test_sets), 'test set')} ({names}) and see the per-item outcomes "
        f"(which gold items each run found) of {_n(runs, 'shown run')}, on the "
        "pages where they may see the scores.",
        "The registered teams are notified. A release cannot be undone.",
    )
    unrevealed = tuple(
        f"{ts.phase.name} / {ts.name}"
        for ts in TestSet.objects.filter(
            phase__task=task, visibility=TestSet.Visibility.PRIVATE, revealed=False
        ).select_related("phase")
    )
    warnings = ()
    if unrevealed:
        warnings = (
            "The scores of "
            + ", ".join(f"“{n}”" for n in unrevealed)
            + " are not revealed: whoever reads the gold can compute them. Reveal "
            "them first, or tick the box to release the gold all the same.",
        )
    return Disclosure(
        title, "Release the gold", sentences, warnings=warnings, unrevealed=unrevealed
    )


def release(*, task: SharedTask, confirm_unrevealed: bool) -> bool:
    """``datasets.release_gold``; GoldReleaseRefused while a private test set is
    unrevealed and ``confirm_unrevealed`` is not given."""
    return datasets.release_gold(task=task, confirm_unrevealed=confirm_unrevealed)


GoldReleaseRefused = datasets.GoldReleaseRefused
