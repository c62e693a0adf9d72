"""Which runs are hidden from everyone but their team and the organisers: the team's
choice, and the organisers' (from the console's runs page), whose hiding is a
decision of its own, recorded on the run (who, when), that the team sees and cannot
undo. Every change invalidates the boards of the phases concerned once its
transaction commits (``services/boards/boardcache.py``). Hiding is no input of the
Ladder (``services/boards/visibility.py``): hiding a run never releases a score."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from evalhub.competitions.models import SharedTask, Submission
from evalhub.competitions.services import roles
from evalhub.competitions.services.boards import boardcache
from evalhub.competitions.services.runs.finals import ChoiceRefused, manageable


def set_hidden(*, submission: Submission, user: object, hidden: bool) -> Submission:
    """Show a run to everyone (the default) or hide it from everyone but its team
    and the organisers: the team's choice, allowed at any time, except showing a
    run the organisers hid (their decision; only they reverse it)."""
    manageable(submission, user)
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
