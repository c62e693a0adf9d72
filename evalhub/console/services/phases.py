"""Adding, changing and ordering a task's phases, with the warnings an organiser
must confirm before a change affects runs already made."""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction
from django.db.models import Count, Q
from django.db.models.functions import TruncDate

from evalhub.competitions.models import Phase, SharedTask, Submission


def impact(*, phase: Phase, data: Mapping[str, object]) -> list[str]:
    """What saving ``data`` over ``phase`` does to the runs made already (plain
    text, one line per problem); empty for a new phase or a harmless change."""
    if phase.pk is None:
        return []
    runs = Submission.objects.filter(phase=phase, is_baseline=False)
    counted = runs.filter(Submission.counting())
    warnings: list[str] = []
    opens, closes = data["opens_at"], data["closes_at"]
    outside = runs.filter(Q(created_at__lt=opens) | Q(created_at__gte=closes)).count()
    if outside and (opens > phase.opens_at or closes < phase.closes_at):
        warnings.append(
            f"{outside} run{'s' if outside != 1 else ''} already made would lie "
            "outside the new opening window (they stay, scored as they are)."
        )
    daily = data["daily_limit"]
    top_day = (
        counted.annotate(day=TruncDate("created_at"))
        .values("team__name", "day")
        .annotate(n=Count("pk"))
        .order_by("-n")
        .first()
    )
    if top_day and top_day["n"] > daily:
        warnings.append(
            f"Team {top_day['team__name']} made {top_day['n']} runs on "
            f"{top_day['day']:%Y-%m-%d}, more than the new daily limit of {daily}."
        )
    total = data["total_limit"]
    top_team = (
        counted.values("team__name").annotate(n=Count("pk")).order_by("-n").first()
    )
    if top_team and top_team["n"] > total:
        warnings.append(
            f"Team {top_team['team__name']} has made {top_team['n']} runs, more than "
            f"the new total limit of {total}; it can submit no more."
        )
    finals = data["max_final_runs"]
    if finals:
        top_final = (
            runs.filter(final_selected=True)
            .values("team__name")
            .annotate(n=Count("pk"))
            .order_by("-n")
            .first()
        )
        if top_final and top_final["n"] > finals:
            warnings.append(
                f"Team {top_final['team__name']} has chosen {top_final['n']} final "
                f"runs, more than the new limit of {finals}."
            )
    return warnings


def save_phase(*, task: SharedTask, phase: Phase) -> Phase:
    """Save a phase built by the phase form; a new one goes last."""
    phase.task = task
    if phase.pk is None:
        last = task.phases.order_by("-order").values_list("order", flat=True).first()
        phase.order = (last or 0) + 1 if last is not None else 0
    phase.save()
    return phase


def move_phase(*, phase: Phase, up: bool) -> None:
    """Swap the phase with its neighbour above (``up``) or below; the task's
    phases are numbered 0, 1, 2, ... afterwards."""
    with transaction.atomic():
        phases = list(
            Phase.objects.select_for_update()
            .filter(task_id=phase.task_id)
            .order_by("order", "opens_at", "pk")
        )
        i = next(n for n, p in enumerate(phases) if p.pk == phase.pk)
        j = i - 1 if up else i + 1
        if 0 <= j < len(phases):
            phases[i], phases[j] = phases[j], phases[i]
        for n, p in enumerate(phases):
            if p.order != n:
                p.order = n
                p.save(update_fields=["order"])  # the core's receivers see it
