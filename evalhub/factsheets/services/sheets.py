"""A team's fact sheet of one method in a phase: who reads and edits it, saving it,
and whether it is complete.

Rules (one place):

- the sheet of a system (phase, team, method) is read through any of the team's runs
  of that method, by the team's members and the task's organisers; baselines (the
  organisers' runs) and rejected runs have none;
- the team's members edit it until the phase closes; after that it is frozen;
- while one of the method's runs is chosen as a final run, every required question
  must stay answered (a final choice requires a complete sheet,
  ``incomplete_reason``): the team un-chooses the run first;
- a saved change invalidates the phase's boards (their columns show answers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from evalhub.competitions.models import Phase, Submission, Team
from evalhub.competitions.services.boards import access, boardcache
from evalhub.factsheets.models import Answer, Question
from evalhub.factsheets.services import kinds
from evalhub.precompiled import Precompiled, fields, instance


class Refused(Exception):
    """The change is not allowed; the message says why, for the participant."""


class SheetInvalid(Exception):
    """Some answers are not valid: ``errors`` maps question keys to messages."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


@dataclass(frozen=True, slots=True)
class Field:
    question: Question
    value: str


@dataclass(frozen=True, slots=True)
class Sheet:
    phase: Phase
    team: Team
    method_name: str
    fields: tuple[Field, ...]
    #: "" when the viewer may edit the sheet, else why not (plain text).
    frozen_reason: str
    missing: tuple[Question, ...]
    #: The method's runs chosen as final runs.
    final_runs: tuple[int, ...]
    #: An empty sheet of a method the team described in another phase of the task:
    #: that phase and its answers (question key -> value), offered to start from.
    suggested_from: Phase | None = None
    suggested: Mapping[str, str] = field(default_factory=dict)

    @property
    def editable(self) -> bool:
        return not self.frozen_reason

    @property
    def complete(self) -> bool:
        return not self.missing


def has_sheet(submission: Submission, questions: list[Question] | None = None) -> bool:
    """``questions``: the task's questions, when the caller has read them."""
    if submission.is_baseline or submission.status == Submission.Status.REJECTED:
        return False
    if questions is not None:
        return bool(questions)
    return Question.objects.filter(task_id=submission.phase.task_id).exists()


def can_read(
    user: object, submission: Submission, questions: list[Question] | None = None
) -> bool:
    return has_sheet(submission, questions) and access.can_see_run_private(
        user, submission
    )


def frozen_reason(user: object, submission: Submission) -> str:
    """Why ``user`` cannot edit the sheet of ``submission``'s method ("" if they
    can)."""
    if not access.can_manage_run(user, submission):
        return "Only the team's members can edit its fact sheets."
    if timezone.now() >= submission.phase.closes_at:
        return "The phase has closed: the fact sheet is frozen."
    return ""


def questions_of(task_id: int) -> list[Question]:
    """The task's questions, in the organisers' order."""
    return [instance(Question, row) for row in _QUESTIONS.rows(task_id=task_id)]


def answers_of(*, phase: Phase, team_id: int, method_name: str) -> dict[int, str]:
    """Question id -> stored answer of one system."""
    return dict(
        _ANSWERS.rows(phase_id=phase.pk, team_id=team_id, method_name=method_name)
    )


def answers_of_systems(
    *, phase: Phase, team_ids: Iterable[int]
) -> dict[tuple[int, str], dict[int, str]]:
    """(team id, method name) -> question id -> stored answer, of every system of
    these teams in ``phase``, in one query (a list of many teams' runs)."""
    out: dict[tuple[int, str], dict[int, str]] = {}
    for team_id, method, question_id, value in Answer.objects.filter(
        phase=phase, team_id__in=list(team_ids)
    ).values_list("team_id", "method_name", "question_id", "value"):
        out.setdefault((team_id, method), {})[question_id] = value
    return out


# Asked by every run page (precompiled: see evalhub.precompiled).
_QUESTIONS = Precompiled(
    lambda task_id: Question.objects.filter(task_id=task_id).values_list(
        *fields(Question)
    ),
    task_id=-2_000_000_005,
)
_ANSWERS = Precompiled(
    lambda phase_id, team_id, method_name: Answer.objects.filter(
        phase_id=phase_id, team_id=team_id, method_name=method_name
    ).values_list("question_id", "value"),
    phase_id=-2_000_000_006,
    team_id=-2_000_000_007,
    method_name="\x00method-name",
)


def missing_questions(
    questions: list[Question], answers: Mapping[int, str]
) -> tuple[Question, ...]:
    return tuple(q for q in questions if q.required and not answers.get(q.pk))


def _final_runs(submission: Submission) -> tuple[int, ...]:
    return tuple(
        Submission.objects.filter(
            phase_id=submission.phase_id,
            team_id=submission.team_id,
            method_name=submission.method_name,
            final_selected=True,
        ).values_list("pk", flat=True)
    )


def sheet(*, submission: Submission, user: object) -> Sheet:
    questions = list(Question.objects.filter(task_id=submission.phase.task_id))
    answers = answers_of(
        phase=submission.phase,
        team_id=submission.team_id,
        method_name=submission.method_name,
    )
    reason = frozen_reason(user, submission)
    earlier, suggested = (
        _earlier_answers(submission, questions)
        if not answers and not reason
        else (None, {})
    )
    return Sheet(
        phase=submission.phase,
        team=submission.team,
        method_name=submission.method_name,
        fields=tuple(Field(q, answers.get(q.pk, "")) for q in questions),
        frozen_reason=reason,
        missing=missing_questions(questions, answers),
        final_runs=_final_runs(submission),
        suggested_from=earlier,
        suggested=suggested,
    )


def _earlier_answers(
    submission: Submission, questions: list[Question]
) -> tuple[Phase | None, dict[str, str]]:
    """The team's answers for the same method in the task's other phase it answered
    last (only those still valid answers of today's questions)."""
    latest = (
        Answer.objects.filter(
            team_id=submission.team_id,
            method_name=submission.method_name,
            phase__task_id=submission.phase.task_id,
        )
        .exclude(phase_id=submission.phase_id)
        .select_related("phase")
        .order_by("-updated_at")
        .first()
    )
    if latest is None:
        return None, {}
    by_id = {q.pk: q for q in questions}
    suggested = {}
    for question_id, value in Answer.objects.filter(
        team_id=submission.team_id,
        method_name=submission.method_name,
        phase_id=latest.phase_id,
    ).values_list("question_id", "value"):
        q = by_id.get(question_id)
        try:
            if q is not None and kinds.parse(q.kind, value, q.choices) == value:
                suggested[q.key] = value
        except kinds.Invalid:
            continue
    return latest.phase, suggested


def save(*, submission: Submission, user: object, data: Mapping[str, object]) -> Sheet:
    """Store the answers in ``data`` (question key -> raw answer; an empty or
    missing key removes the answer). Raises ``Refused`` or ``SheetInvalid``."""
    reason = (
        frozen_reason(user, submission)
        if has_sheet(submission)
        else ("This run has no fact sheet.")
    )
    if reason:
        raise Refused(reason)
    questions = list(Question.objects.filter(task_id=submission.phase.task_id))
    parsed: dict[int, str] = {}
    errors: dict[str, str] = {}
    for q in questions:
        try:
            parsed[q.pk] = kinds.parse(q.kind, data.get(q.key), q.choices)
        except kinds.Invalid as exc:
            errors[q.key] = f"{q.label}: {exc}"
    if errors:
        raise SheetInvalid(errors)
    phase = submission.phase
    system = {
        "phase": phase,
        "team_id": submission.team_id,
        "method_name": submission.method_name,
    }
    with transaction.atomic():
        # The team's runs in the phase, locked as services/finals.py locks them: a
        # final choice and this save cannot pass their checks at the same time.
        finals = [
            s.pk
            for s in Submission.objects.select_for_update()
            .filter(phase=phase, team_id=submission.team_id)
            .order_by("pk")
            if s.final_selected and s.method_name == submission.method_name
        ]
        missing = missing_questions(questions, parsed)
        if finals and missing:
            runs = ", ".join(f"run {pk}" for pk in finals)
            raise Refused(
                f"{runs} of this method {'is' if len(finals) == 1 else 'are'} chosen "
                "as final: every required question must stay answered ("
                + ", ".join(q.label for q in missing)
                + "). Un-choose the final run first."
            )
        current = answers_of(
            phase=phase, team_id=submission.team_id, method_name=submission.method_name
        )
        changed = False
        for q in questions:
            value = parsed[q.pk]
            if value == current.get(q.pk, ""):
                continue
            changed = True
            if value:
                Answer.objects.update_or_create(
                    question=q, **system, defaults={"value": value, "answered_by": user}
                )
            else:
                Answer.objects.filter(question=q, **system).delete()
        if changed:
            boardcache.invalidate_phase(phase=phase, refresh_statistics=False)
    return sheet(submission=submission, user=user)


def incomplete_reason(submission: Submission) -> str | None:
    """Why ``submission`` cannot be a final run yet (its method's sheet misses
    required answers), or None."""
    if submission.is_baseline:
        return None
    questions = [
        q
        for q in Question.objects.filter(task_id=submission.phase.task_id)
        if q.required
    ]
    if not questions:
        return None
    answers = answers_of(
        phase=submission.phase,
        team_id=submission.team_id,
        method_name=submission.method_name,
    )
    missing = missing_questions(questions, answers)
    if not missing:
        return None
    return (
        f"The fact sheet of method {submission.method_name!r} is incomplete: answer "
        + ", ".join(repr(q.label) for q in missing)
        + " on the run's fact-sheet page first."
    )


@dataclass(frozen=True, slots=True)
class MethodStatus:
    method_name: str
    latest_run: int
    answered: int
    missing: int


def team_methods(
    *, phase: Phase, teams: Sequence[Team]
) -> dict[int, list[MethodStatus]]:
    """Each team's methods in ``phase`` (runs not rejected, newest first) and how
    complete each one's sheet is, by team id; three queries whatever the number
    of teams."""
    questions = list(Question.objects.filter(task_id=phase.task_id))
    ids = [team.pk for team in teams]
    latest: dict[int, dict[str, int]] = {pk: {} for pk in ids}
    for pk, team_id, method in (
        Submission.objects.filter(phase=phase, team_id__in=ids, is_baseline=False)
        .exclude(status=Submission.Status.REJECTED)
        .order_by("-created_at", "-pk")
        .values_list("pk", "team_id", "method_name")
    ):
        latest[team_id].setdefault(method, pk)
    answers = answers_of_systems(phase=phase, team_ids=ids)
    return {
        team_id: [
            MethodStatus(
                method_name=method,
                latest_run=pk,
                answered=len(answers.get((team_id, method), {})),
                missing=len(
                    missing_questions(questions, answers.get((team_id, method), {}))
                ),
            )
            for method, pk in methods.items()
        ]
        for team_id, methods in latest.items()
    }
