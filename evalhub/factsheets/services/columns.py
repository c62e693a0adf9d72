"""The answers and papers as the core's per-system columns
(``competitions.services.systems.SystemColumn``), holding only what the viewer may see:

- organisers of the task see every system's answers and paper;
- everyone else sees those of the systems (team, method) with at least one run in
  the phase that is shown to the public (not hidden, not rejected): a method whose
  runs are all hidden exists only for its team and the organisers, so its answers
  do too (the team reads them on its own fact-sheet pages);
- nothing at all of a task the viewer cannot see.

The board fragments are cached per audience (``board_pages.boards_fragment``: the
organiser flag among them), and this answer depends on the viewer only through that
flag and the task's visibility, so a cached board never shows one viewer's columns
to another.
"""

from __future__ import annotations

from evalhub.competitions.models import Phase, Submission
from evalhub.competitions.services.boards import access
from evalhub.competitions.services.boards.systems import SystemColumn, SystemKey
from evalhub.factsheets.models import Answer, PaperLink, Question

PAPER_KEY = "paper"


def question_key(question: Question) -> str:
    return f"fact:{question.key}"


def visible_systems(*, phase: Phase, viewer: object) -> set[SystemKey] | None:
    """The systems whose answers ``viewer`` may see (``None``: all of them)."""
    task = phase.task
    if not access.can_see_task(viewer, task):
        return set()
    if access.can_see_hidden_runs(viewer, task):
        return None
    return set(
        Submission.objects.filter(phase=phase, hidden=False, is_baseline=False)
        .exclude(status=Submission.Status.REJECTED)
        .values_list("team_id", "method_name")
        .distinct()
    )


def columns(*, phase: Phase, viewer: object) -> list[SystemColumn]:
    """One column per question (in the organisers' order), then the paper column
    (once any paper is attached)."""
    questions = list(Question.objects.filter(task_id=phase.task_id))
    if not questions and not PaperLink.objects.filter(phase=phase).exists():
        return []  # nothing asked, nothing attached: no column
    shown = visible_systems(phase=phase, viewer=viewer)
    if shown is not None and not shown:
        return []
    values: dict[int, dict[SystemKey, str]] = {q.pk: {} for q in questions}
    for question_id, team_id, method, value in Answer.objects.filter(
        phase=phase
    ).values_list("question_id", "team_id", "method_name", "value"):
        if shown is None or (team_id, method) in shown:
            values.setdefault(question_id, {})[(team_id, method)] = value
    result = [
        SystemColumn(
            key=question_key(q),
            label=q.label,
            on_board=q.on_board,
            values=values[q.pk],
            description=q.help_text or q.label,
        )
        for q in questions
    ]
    titles: dict[SystemKey, str] = {}
    links: dict[SystemKey, str] = {}
    for paper in PaperLink.objects.filter(phase=phase):
        system = (paper.team_id, paper.method_name)
        if shown is None or system in shown:
            titles[system] = paper.title
            if paper.link:
                links[system] = paper.link
    if titles:
        result.append(
            SystemColumn(
                key=PAPER_KEY,
                label="Paper",
                on_board=True,
                values=titles,
                urls=links,
                description="The team's system-description paper",
            )
        )
    return result
