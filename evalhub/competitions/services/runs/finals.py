"""A team's choice of its final runs in a phase (at most ``Phase.max_final_runs``,
until the phase closes; hiding runs is ``hiding.py``). Which runs a leaderboard then ranks is
decided in ``services/boards/selection.py``; every change here invalidates the phase's
boards once its transaction commits (``services/boards/boardcache.py``). Neither choice is an
input of the Ladder (``services/boards/visibility.py``): hiding or choosing a run never
releases a score."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from evalhub.competitions.models import Phase, Submission, Team
from evalhub.competitions.services.boards import access, boardcache, selection, systems
from evalhub.precompiled import Precompiled, fields, instance


class ChoiceRefused(Exception):
    """The change is not allowed; the message says why, for the participant."""


_NOT_CHOOSABLE = {Submission.Status.FAILED, Submission.Status.REJECTED}


def manageable(submission: Submission, user: object) -> None:
    if not access.can_manage_run(user, submission):
        raise ChoiceRefused("Only the run's team can change this.")


def set_final(*, submission: Submission, user: object, final: bool) -> Submission:
    """Choose (or un-choose) a run as one of its team's final runs. Refused after
    the phase closes, for failed or rejected runs, beyond ``max_final_runs``
    (the team must un-choose one first; in a phase with tracks the limit holds per
    track: a team may choose ``max_final_runs`` runs in each track), and for
    whatever a feature app's ``signals.final_choice_check`` refuses (e.g. an
    incomplete fact sheet)."""
    manageable(submission, user)
    phase = submission.phase
    if not selection.finals_apply(phase):
        raise ChoiceRefused(
            "Every run counts in this phase: there are no final runs to choose."
        )
    if timezone.now() >= phase.closes_at:
        raise ChoiceRefused(
            "The phase has closed: final runs can no longer be changed."
        )
    with transaction.atomic():
        # Lock the team's runs in the phase so two concurrent choices cannot both
        # pass the limit.
        team_runs = list(
            Submission.objects.select_for_update()
            .filter(phase=phase, team_id=submission.team_id)
            .order_by("pk")
        )
        current = next(s for s in team_runs if s.pk == submission.pk)
        if current.final_selected == final:
            return current
        if final:
            if current.status in _NOT_CHOOSABLE:
                raise ChoiceRefused(
                    f"Run {current.pk} is {current.get_status_display().lower()}: "
                    "only runs that are scored or being scored can be final."
                )
            chosen = [
                s
                for s in team_runs
                if s.final_selected
                and s.status not in _NOT_CHOOSABLE
                and s.track_id == current.track_id
            ]
            if len(chosen) >= phase.max_final_runs:
                limit = phase.max_final_runs
                where = phase.name
                if current.track_id is not None:
                    where = f"track '{current.track.slug}' of {phase.name}"
                raise ChoiceRefused(
                    f"Your team may choose at most {limit} final "
                    f"run{'s' if limit != 1 else ''} in {where} and has chosen "
                    f"{', '.join(f'run {s.pk}' for s in chosen)}: un-choose one "
                    "first."
                )
            # What feature apps require of a final run (e.g. a complete fact sheet).
            refusals = systems.final_choice_refusals(current)
            if refusals:
                raise ChoiceRefused(" ".join(refusals))
        Submission.objects.filter(pk=current.pk).update(
            final_selected=final, final_selected_at=timezone.now() if final else None
        )
        boardcache.invalidate_phase(phase=phase)
    current.refresh_from_db()
    return current


@dataclass(frozen=True, slots=True)
class FinalChoices:
    phase: Phase
    team: Team
    limit: int  # 0: every run counts
    chosen: tuple[Submission, ...]
    open: bool  # the team can still change them

    @property
    def left(self) -> int:
        return max(0, self.limit - len(self.chosen))


def choices(*, phase: Phase, team: Team) -> FinalChoices:
    """The team's final runs in ``phase`` (none read where the phase ranks every
    run: ``limit`` 0)."""
    chosen = (
        tuple(
            instance(Submission, row)
            for row in _CHOSEN.rows(phase_id=phase.pk, team_id=team.pk)
        )
        if phase.max_final_runs
        else ()
    )
    return FinalChoices(
        phase=phase,
        team=team,
        limit=phase.max_final_runs,
        chosen=chosen,
        open=selection.finals_apply(phase) and timezone.now() < phase.closes_at,
    )


# Asked by every run page its team views (precompiled: see evalhub.precompiled).
_CHOSEN = Precompiled(
    lambda phase_id, team_id: (
        Submission.objects.filter(
            phase_id=phase_id, team_id=team_id, final_selected=True
        )
        .order_by("final_selected_at", "pk")
        .values_list(*fields(Submission))
    ),
    phase_id=-2_000_000_008,
    team_id=-2_000_000_009,
)


def organiser_overview(*, phase: Phase) -> list[dict[str, object]]:
    """Per team: its chosen final runs and how many of its runs are hidden (for the
    organisers' dashboard)."""
    rows: dict[int, dict[str, object]] = {}
    for sub in (
        Submission.objects.filter(phase=phase)
        .exclude(status=Submission.Status.REJECTED)
        .select_related("team")
        .order_by("team__name", "created_at")
    ):
        row = rows.setdefault(
            sub.team_id, {"team": sub.team, "finals": [], "hidden": 0, "runs": 0}
        )
        row["runs"] += 1  # type: ignore[operator]
        row["hidden"] += int(sub.hidden)  # type: ignore[operator]
        if sub.final_selected:
            row["finals"].append(sub)  # type: ignore[attr-defined]
    return list(rows.values())
