"""A team's choices about its runs: which runs are its final runs in a phase (at most
``Phase.max_final_runs``, until the phase closes) and which runs are hidden from
everyone but the team and the organisers (the team's choice; the organisers may
hide or show runs of their task too, from the console's runs page: their hiding is
a decision of its own, recorded on the run, that the team sees and cannot undo). Which runs a leaderboard then ranks is
decided in ``services/boards/selection.py``; every change here invalidates the phase's
boards once its transaction commits (``services/boards/boardcache.py``). Neither choice is an
input of the Ladder (``services/boards/visibility.py``): hiding or choosing a run never
releases a score."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from evalhub.competitions.models import Phase, SharedTask, Submission, Team
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import access, boardcache, selection, systems


class ChoiceRefused(Exception):
    """The change is not allowed; the message says why, for the participant."""


_NOT_CHOOSABLE = {Submission.Status.FAILED, Submission.Status.REJECTED}


def _manageable(submission: Submission, user: object) -> None:
    if not access.can_manage_run(user, submission):
        raise ChoiceRefused("Only the run's team can change this.")


def set_final(*, submission: Submission, user: object, final: bool) -> Submission:
    """Choose (or un-choose) a run as one of its team's final runs. Refused after
    the phase closes, for failed or rejected runs, beyond ``max_final_runs``
    (the team must un-choose one first; in a phase with tracks the limit holds per
    track: a team may choose ``max_final_runs`` runs in each track), and for
    whatever a feature app's ``signals.final_choice_check`` refuses (e.g. an
    incomplete fact sheet)."""
    _manageable(submission, user)
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


def set_hidden(*, submission: Submission, user: object, hidden: bool) -> Submission:
    """Show a run to everyone (the default) or hide it from everyone but its team
    and the organisers: the team's choice, allowed at any time, except showing a
    run the organisers hid (their decision; only they reverse it)."""
    _manageable(submission, user)
    with transaction.atomic():
        current = Submission.objects.select_for_update().get(pk=submission.pk)
        if not hidden and current.hidden_by_organisers:
            raise ChoiceRefused(HIDDEN_BY_ORGANISERS)
        runs = Submission.objects.filter(pk=submission.pk)
        _write_hidden(runs.filter(hidden_by_organisers_at=None), hidden=hidden)
    submission.refresh_from_db()
    return submission


#: What the team reads where it would show a run the organisers hid.
HIDDEN_BY_ORGANISERS = (
    "The organisers hid this run: only they can show it again (ask them if you "
    "think it should be public)."
)


def set_hidden_by_organiser(
    *, task: SharedTask, user: object, submission_ids: Iterable[int], hidden: bool
) -> int:
    """The organisers hide or show runs of their task (the console's bulk action;
    baselines included). Hiding is their own decision, recorded (who, when) on each
    run, a run its team had hidden included: the team can no longer show it.
    Showing undoes theirs and the team's (the run is public again). Returns how many
    runs were hidden or shown; ids of other tasks' runs are ignored."""
    if not roles.is_organiser(user, task):
        raise ChoiceRefused("Only the task's organisers can change this.")
    runs = Submission.objects.filter(phase__task=task, pk__in=list(submission_ids))
    if not hidden:
        return _write_hidden(runs, hidden=hidden)  # shown: theirs and the team's end
    with transaction.atomic():
        changed = _write_hidden(runs, hidden=True)
        # Hidden now or by the team before: the decision is the organisers'.
        runs.filter(hidden_by_organisers_at=None).update(
            hidden_by_organisers_at=timezone.now(),
            hidden_by_organisers_by=user,
        )
    return changed


def _write_hidden(runs: QuerySet[Submission], *, hidden: bool) -> int:
    """Set ``hidden`` on ``runs`` (showing one also ends the organisers' decision:
    only their own action shows such a run); the boards of every phase concerned
    follow once the transaction commits. Returns how many runs changed."""
    with transaction.atomic():
        changing = runs.exclude(hidden=hidden)
        phase_ids = set(changing.values_list("phase_id", flat=True))
        fields: dict[str, object] = {"hidden": hidden}
        if not hidden:
            fields.update(hidden_by_organisers_at=None, hidden_by_organisers_by=None)
        changed = changing.update(**fields)
        for phase_id in sorted(phase_ids):
            # Hiding takes a run off the boards: no page drawn before is served.
            boardcache.invalidate_phase(phase=phase_id, retract=True)
    return changed


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
    chosen = tuple(
        Submission.objects.filter(phase=phase, team=team, final_selected=True).order_by(
            "final_selected_at", "pk"
        )
    )
    return FinalChoices(
        phase=phase,
        team=team,
        limit=phase.max_final_runs,
        chosen=chosen,
        open=selection.finals_apply(phase) and timezone.now() < phase.closes_at,
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
