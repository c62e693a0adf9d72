"""The demo's fact sheet: three questions on one demo task (one of them a
leaderboard column) and answers for its demo runs, added when the demo is seeded
(``competitions.signals.demo_seeded``)."""

from __future__ import annotations

from django.db import transaction

from evalhub.competitions.models import SharedTask, Submission
from evalhub.competitions.services.boards import boardcache
from evalhub.factsheets.models import Answer, Question

#: The demo tasks that get the fact sheet: the term-extraction task ranked in two
#: tracks (``competitions.services.demo.seed_tracks_demo``) and BUCC (BUCC 2022
#: ranked systems with and without external resources).
DEMO_TASKS = frozenset({"demo-term-extraction-tracks", "demo-bilingual-term-alignment"})

QUESTIONS = (
    {
        "key": "external-data",
        "label": "External data used?",
        "help_text": "Anything beyond the task's training data: dictionaries, "
        "embeddings, pretrained models",
        "kind": Question.Kind.YES_NO,
        "required": True,
        "on_board": True,
    },
    {
        "key": "approach",
        "label": "Approach",
        "kind": Question.Kind.CHOICE,
        "choices": ["rule-based", "statistical", "neural", "hybrid"],
        "required": True,
    },
    {
        "key": "code",
        "label": "Code (URL)",
        "kind": Question.Kind.URL,
    },
)
_APPROACHES = ("statistical", "neural", "hybrid", "rule-based")


def seed(*, tasks: list[SharedTask]) -> None:
    for task in tasks:
        if task.slug in DEMO_TASKS:
            _seed_task(task)


def _seed_task(task: SharedTask) -> None:
    with transaction.atomic():
        if Question.objects.filter(task=task).exists():
            return
        made = {
            spec["key"]: Question.objects.create(task=task, order=order, **spec)
            for order, spec in enumerate(QUESTIONS)
        }
        systems = (
            Submission.objects.filter(phase__task=task, is_baseline=False)
            .exclude(status=Submission.Status.REJECTED)
            .order_by("phase_id", "team__name", "method_name")
            .values_list("phase_id", "team_id", "method_name", "track__slug")
            .distinct()
        )
        seen: set[tuple[int, int, str]] = set()
        for index, (phase_id, team_id, method, track) in enumerate(systems):
            if (phase_id, team_id, method) in seen:  # one method in two tracks
                continue
            seen.add((phase_id, team_id, method))
            system = {"phase_id": phase_id, "team_id": team_id, "method_name": method}
            # In a task ranked in tracks, the track says it: "closed" systems use
            # only the data provided, "open" ones any resource.
            external = {"closed": "no", "open": "yes"}.get(
                track or "", "yes" if index % 2 else "no"
            )
            Answer.objects.create(
                question=made["external-data"], value=external, **system
            )
            Answer.objects.create(
                question=made["approach"],
                value=_APPROACHES[index % len(_APPROACHES)],
                **system,
            )
        boardcache.invalidate_task(task=task)
