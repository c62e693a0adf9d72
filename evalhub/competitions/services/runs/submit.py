"""Submitting a run: permission and window checks, limits, the cheap checks of
``services/runs/validation.py``, then either the full parse at once (small files: a
``queued`` row enqueued for scoring on commit) or a ``validating`` row whose parse a
worker does under its own limits (large files)."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings as django_settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from evalhub.competitions import queue
from evalhub.competitions.models import (
    Phase,
    Registration,
    SharedTask,
    Submission,
    Team,
    Track,
)
from evalhub.competitions.services import gates, roles
from evalhub.competitions.services.data import taskdata, tracks
from evalhub.competitions.services.runs import lifecycle, validation
from tasks.base import FormatError, Problem

log = logging.getLogger(__name__)


class SubmissionRefused(Exception):
    """The team may not submit now (window, registration, limit, size)."""


class SubmissionInvalid(Exception):
    """The file does not parse; nothing was counted. ``problems`` name file and line."""

    def __init__(self, problems: tuple[Problem, ...], total: int):
        self.problems = problems
        self.total = total
        super().__init__("; ".join(str(p) for p in problems[:3]))


@dataclass(frozen=True, slots=True)
class Allowance:
    daily_left: int
    total_left: int
    resets_at: datetime  # start of the next UTC day

    @property
    def left(self) -> int:
        return min(self.daily_left, self.total_left)


def _day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def allowance(
    *,
    phase: Phase,
    team: Team,
    now: datetime | None = None,
    track: Track | None = None,
) -> Allowance:
    """What the team may still submit. With ``Phase.limits_per_track`` the limits
    count the runs of ``track`` only (each track has its own); otherwise every run
    of the phase, whatever its track (the limits are shared)."""
    now = now or timezone.now()
    start = _day_start(now.astimezone(UTC))
    counted = Submission.objects.filter(
        Submission.counting(), phase=phase, team=team, is_baseline=False
    )
    if phase.limits_per_track and track is not None:
        counted = counted.filter(track=track)
    total = counted.count()
    today = counted.filter(created_at__gte=start).count()
    return Allowance(
        daily_left=max(0, phase.daily_limit - today),
        total_left=max(0, phase.total_limit - total),
        resets_at=start + timedelta(days=1),
    )


def approved_team(*, phase: Phase, user: object) -> Team | None:
    """The user's team registered and approved for the phase's task, if any."""
    reg = (
        Registration.objects.filter(
            task=phase.task, team__members=user, status=Registration.Status.APPROVED
        )
        .select_related("team")
        .first()
    )
    return reg.team if reg else None


def pause_notice(task: SharedTask) -> str:
    """What every door (page, API, CLI) answers while the organisers paused the
    task's submissions; "" when they are not paused."""
    if not task.submissions_paused:
        return ""
    why = " ".join(task.pause_message.split())
    return "The organisers paused submissions to this task" + (
        f": {why}" if why else "."
    )


def validate_run(*, phase: Phase, data: bytes, filename: str) -> bool:
    """Check a run in this process as far as is cheap: SubmissionInvalid with every
    problem found, SubmissionRefused without test sets. Returns True when the file is
    fully parsed, False when it is too large and a worker must finish the check.

    Gold is never consulted, so no message can reveal it.
    """
    test_sets = taskdata.phase_test_sets(phase)
    if test_sets and not taskdata.checkable(test_sets):
        raise SubmissionRefused(
            "This phase is not ready for submissions: no test set has its input "
            "files yet. Nothing was counted; submit again once the organisers have "
            "added them."
        )
    try:
        if not test_sets:
            raise validation.NoTestSet
        inflated = validation.precheck(data=data, filename=filename)
        if inflated > django_settings.INLINE_VALIDATION_BYTES:
            return False
        found = validation.parse_problems(
            phase=phase, data=data, filename=filename, limited=False
        )
    except FormatError as exc:
        raise SubmissionInvalid(exc.problems, exc.total) from None
    except validation.NoTestSet:
        raise SubmissionRefused("This phase has no test set yet.") from None
    if found is not None:
        raise SubmissionInvalid(*validation.to_problems(found))
    return True


def submit_run(
    *,
    phase: Phase,
    user: object,
    filename: str,
    data: bytes,
    method_name: str,
    method_description: str = "",
    team: Team | None = None,
    is_baseline: bool = False,
    hidden: bool = False,
    now: datetime | None = None,
    track: str | None = None,
) -> Submission:
    """Validate and queue a run. Raises SubmissionRefused or SubmissionInvalid (the
    latter also records a ``rejected`` row, not counted against limits). ``hidden``:
    the run is shown to its team and the organisers only (services/runs/hiding.py).
    ``track``: the slug of the phase's track the run enters (required exactly when
    the phase has tracks; ``services/data/tracks.resolve``)."""

    given_now, now = now, now or timezone.now()
    try:
        track_obj = tracks.resolve(phase=phase, slug=track)
    except tracks.TrackError as exc:
        raise SubmissionRefused(str(exc)) from None
    if is_baseline:
        if not roles.is_organiser(user, phase.task):
            raise SubmissionRefused("Only organisers can add baseline runs.")
        if team is None:
            raise SubmissionRefused("A baseline run needs a team to show it under.")
    else:
        team = team or approved_team(phase=phase, user=user)
        if team is None:
            raise SubmissionRefused(
                "Your team is not registered (or not yet approved) for this task."
            )
        try:
            roles.refuse_overlap(task=phase.task, team=team, acting=user)
            gates.check(task=phase.task, user=user, action=gates.SUBMIT)
        except (roles.OrganiserCompetes, gates.Refused) as exc:
            raise SubmissionRefused(str(exc)) from None
        if phase.task.submissions_paused:
            raise SubmissionRefused(pause_notice(phase.task))
        if not phase.is_open(now):
            raise SubmissionRefused(
                f"The {phase.name} phase is closed for submissions "
                f"(open {phase.opens_at:%Y-%m-%d %H:%M} to {phase.closes_at:%Y-%m-%d %H:%M} UTC)."
            )
    limit = django_settings.MAX_UPLOAD_BYTES
    if len(data) > limit:
        raise SubmissionRefused(
            f"{filename} is {len(data):,} bytes; the limit is {limit:,} bytes."
        )
    if not data:
        raise SubmissionInvalid((Problem(filename, None, "the file is empty"),), 1)

    digest = hashlib.sha256(data).hexdigest()
    row = {
        "phase": phase,
        "team": team,
        "submitter": user,
        "original_name": filename[:255],
        "sha256": digest,
        "size": len(data),
        "method_name": method_name[:100],
        "method_description": method_description,
        "is_baseline": is_baseline,
        "hidden": hidden,
        "track": track_obj,
    }
    if not is_baseline:  # fail fast, before parsing
        _check_allowance(phase=phase, team=team, now=now, track=track_obj)
    try:
        checked = validate_run(phase=phase, data=data, filename=filename)
    except SubmissionInvalid as exc:
        lifecycle.new(
            **row,
            status=Submission.Status.REJECTED,
            failure_category=Submission.Failure.FORMAT,
            failure_message="\n".join(str(p) for p in exc.problems),
            created_at=now,
            finished_at=now,
        ).save()
        raise

    with transaction.atomic():
        # Serialise this team's submissions so two uploads cannot both take the last run.
        Team.objects.select_for_update().filter(pk=team.pk).first()
        if not is_baseline:
            _check_allowance(phase=phase, team=team, now=now, track=track_obj)
        # Its place in the team's history: the commit order (taken under the lock).
        submission = lifecycle.new(
            **row,
            status=Submission.Status.QUEUED
            if checked
            else Submission.Status.VALIDATING,
            created_at=lifecycle.stamp(team=team, now=given_now),
            enqueued_at=timezone.now(),
        )
        submission.file.save(
            f"{digest[:16]}-{_safe_name(filename)}", ContentFile(data), save=False
        )
        submission.save()
        job = queue.enqueue_scoring if checked else queue.enqueue_validation
        transaction.on_commit(lambda: job(submission.pk))
    return submission


#: Runs a repeat is named against: those that were or will be scored (a failed or
#: rejected run is worth submitting again as it was).
_KEPT = (
    Submission.Status.VALIDATING,
    Submission.Status.QUEUED,
    Submission.Status.SCORING,
    Submission.Status.SCORED,
)


def identical_earlier(*, submission: Submission) -> Submission | None:
    """The team's latest earlier run of the same phase and track whose file has the
    same bytes (sha256) as ``submission``'s, if one is kept: the upload page names
    it ("identical to your run #N"), as the scores will be the same."""
    return (
        Submission.objects.filter(
            phase_id=submission.phase_id,
            team_id=submission.team_id,
            track_id=submission.track_id,
            sha256=submission.sha256,
            status__in=_KEPT,
            pk__lt=submission.pk,
        )
        .order_by("-pk")
        .first()
    )


def repeat_notice(*, submission: Submission) -> str:
    """The sentence the upload shows when ``submission`` repeats an earlier run's
    file, else ''."""
    earlier = identical_earlier(submission=submission)
    if earlier is None:
        return ""
    return (
        f"This file is identical to your run #{earlier.pk} ({earlier.method_name}): "
        "it will get the same scores, and it counts as one of your runs."
    )


def submit_baseline(
    *,
    phase: Phase,
    user: object,
    filename: str,
    data: bytes,
    method_name: str,
    method_description: str = "",
    track: str | None = None,
) -> Submission:
    """An organiser's baseline run: the normal pipeline with ``is_baseline``, shown
    under the task's baseline team, exempt from limits and the phase window (in a
    phase with tracks, in the ``track`` given)."""
    from evalhub.competitions.services import teams

    if not roles.is_organiser(user, phase.task):
        raise SubmissionRefused("Only organisers can add baseline runs.")
    try:
        team = teams.baseline_team(task=phase.task)
    except teams.TeamNameTaken as exc:
        raise SubmissionRefused(str(exc)) from None
    return submit_run(
        phase=phase,
        user=user,
        filename=filename,
        data=data,
        method_name=method_name,
        method_description=method_description,
        team=team,
        is_baseline=True,
        track=track,
    )


def _check_allowance(
    *, phase: Phase, team: Team, now: datetime, track: Track | None
) -> None:
    left = allowance(phase=phase, team=team, now=now, track=track)
    where = (
        f"track '{track.slug}' of this phase"
        if phase.limits_per_track and track is not None
        else "this phase"
    )
    if left.total_left <= 0:
        raise SubmissionRefused(
            f"Your team has used all {phase.total_limit} runs of {where}."
        )
    if left.daily_left <= 0:
        today = (
            f" in track '{track.slug}'"
            if phase.limits_per_track and track is not None
            else ""
        )
        raise SubmissionRefused(
            f"Your team has used its {phase.daily_limit} runs for today{today}; the "
            f"limit resets at {left.resets_at:%Y-%m-%d %H:%M} UTC."
        )


def _safe_name(filename: str) -> str:
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    cleaned = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in base)
    return cleaned[-80:] or "run"
