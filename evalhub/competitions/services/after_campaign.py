"""Evaluation after the campaign: once a task's last phase has closed, its
organisers may keep it open for evaluation, so that later systems are scored on
the same test data (the researchers who ask for official scores for their paper
long after the end).

The evaluation after the campaign is a phase of its own (``Phase.after_campaign``),
opened from the end of the campaign (or now) until the date the organisers choose,
with limits of its own, and a copy of the last official phase's tracks and test
sets (their inputs and gold). Its runs are scored like any other and ranked on its
own boards, titled "after the campaign"; they never enter the official results:
those are the official phases' boards, overall rankings and Ladders (a run belongs
to one phase), the home page's leader and counts (``boards/home.py``) and the
overview-paper package (the rankings app offers none for such a phase).

The Ladder protects the test data, not the phase: each copied test set records its
original (``TestSet.copied_from``) and the opening sends
``signals.after_campaign_opened``, on which the rankings app copies the last
phase's ranking settings, so that the copy's Ladder continues each team's history
from its campaign runs (``rankings/services/ladder.py``). A task has one such phase
(a database constraint; ``open_for_evaluation`` creates it, ``change`` changes it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from evalhub.competitions import signals
from evalhub.competitions.models import Phase, SharedTask, TestSet, Track
from evalhub.competitions.services.data import datasets

SLUG = "after-the-campaign"
NAME = "After the campaign"


class Refused(ValueError):
    """Not now (the campaign is not over, the dates are wrong); plain words."""


def official_phases(task: SharedTask) -> list[Phase]:
    return [p for p in task.phases.all() if not p.after_campaign]


def refusal(*, task: SharedTask, now: datetime | None = None) -> str | None:
    """Why the task cannot be opened for evaluation after its campaign now (plain
    words, saying when it becomes possible); None when it can."""
    official = official_phases(task)
    if not official:
        return "The task has no phase yet: there is no campaign to follow."
    end = max(p.closes_at for p in official)
    if end > (now or timezone.now()):
        return (
            f"The campaign runs until {end:%Y-%m-%d %H:%M} UTC: the evaluation after "
            "the campaign opens once its last phase has closed."
        )
    # Its copies are public: a team submitting its campaign run again would read
    # the private score the campaign never showed it.
    hidden = [
        ts.name
        for ts in _last_official(official).test_sets.all()
        if ts.visibility == TestSet.Visibility.PRIVATE and not ts.revealed
    ]
    if hidden:
        names = ", ".join(f"“{name}”" for name in hidden)
        which = (
            f"The private test set {names} has not been revealed: its copy"
            if len(hidden) == 1
            else f"The private test sets {names} have not been revealed: their copies"
        )
        return (
            f"{which} after the campaign would be public, and a team could learn the "
            "private score of its campaign run by submitting it again. Reveal the "
            "private scores first (on the Test sets page)."
        )
    return None


def _checked(
    *, task: SharedTask, closes_at: datetime, daily_limit: int, total_limit: int,
    now: datetime,
) -> None:  # fmt: skip
    """Refuses (``Refused``) what neither opening nor changing allows."""
    refused = refusal(task=task, now=now)
    if refused is not None:
        raise Refused(refused)
    if closes_at <= now:
        raise Refused("The evaluation after the campaign must close in the future.")
    if daily_limit < 1 or total_limit < 1:
        raise Refused("The limits must allow at least one run.")


def open_for_evaluation(
    *,
    task: SharedTask,
    closes_at: datetime,
    daily_limit: int = 5,
    total_limit: int = 20,
    now: datetime | None = None,
) -> Phase:
    """Open the task's evaluation after the campaign: a phase copying the last
    official phase's tracks, test sets (their inputs and gold) and, through
    ``signals.after_campaign_opened``, what feature apps keep per phase (the
    Ladder's settings). Refused while an official phase is open or to come, for a
    closing date in the past, and once it exists (``change`` changes it): one per
    task, however many open it at once (the task's row is locked, and a database
    constraint holds where locks are not taken)."""
    now = now or timezone.now()
    _checked(
        task=task, closes_at=closes_at, daily_limit=daily_limit,
        total_limit=total_limit, now=now,
    )  # fmt: skip
    official = official_phases(task)
    end = max(p.closes_at for p in official)
    last = _last_official(official)
    try:
        with transaction.atomic():
            # Openings of one task take turns; the constraint holds without locks.
            list(SharedTask.objects.select_for_update().filter(pk=task.pk))
            if Phase.objects.filter(task=task, after_campaign=True).exists():
                raise Refused(ALREADY_OPEN)
            phase = _copy(task=task, last=last, end=end, closes_at=closes_at,
                          daily_limit=daily_limit, total_limit=total_limit)  # fmt: skip
            signals.after_campaign_opened.send(sender=Phase, phase=phase, source=last)
    except IntegrityError:
        if not Phase.objects.filter(task=task, after_campaign=True).exists():
            raise
        raise Refused(ALREADY_OPEN) from None
    return phase


ALREADY_OPEN = (
    "The task already has its evaluation after the campaign: change its dates and "
    "limits instead."
)


def change(
    *,
    task: SharedTask,
    closes_at: datetime,
    daily_limit: int,
    total_limit: int,
    now: datetime | None = None,
) -> Phase:
    """Change the closing date (opening it again once closed) and the limits of the
    task's evaluation after the campaign, in one transaction on its locked row."""
    now = now or timezone.now()
    _checked(
        task=task, closes_at=closes_at, daily_limit=daily_limit,
        total_limit=total_limit, now=now,
    )  # fmt: skip
    with transaction.atomic():
        phase = (
            Phase.objects.select_for_update()
            .filter(task=task, after_campaign=True)
            .first()
        )
        if phase is None:
            raise Refused("The task is not open for evaluation after the campaign.")
        phase.closes_at = closes_at
        phase.daily_limit, phase.total_limit = daily_limit, total_limit
        phase.save(update_fields=["closes_at", "daily_limit", "total_limit"])
    return phase


def _copy(
    *, task: SharedTask, last: Phase, end: datetime, closes_at: datetime,
    daily_limit: int, total_limit: int,
) -> Phase:  # fmt: skip
    """The phase of the evaluation after the campaign with its copies of ``last``'s
    tracks and test sets (inside the caller's transaction)."""
    order = Phase.objects.filter(task=task).aggregate(m=Max("order"))["m"] or 0
    phase = Phase.objects.create(
        task=task, slug=_free_slug(task), name=NAME, after_campaign=True,
        opens_at=end, closes_at=closes_at, daily_limit=daily_limit,
        total_limit=total_limit, failed_runs_count=last.failed_runs_count,
        max_final_runs=0, limits_per_track=last.limits_per_track, order=order + 1,
    )  # fmt: skip
    for track in last.tracks.all():
        Track.objects.create(
            phase=phase, slug=track.slug, name=track.name,
            description=track.description, order=track.order,
        )  # fmt: skip
    gold_roles = {role.key for role in task.type.gold_roles}
    for source in last.test_sets.all():
        copy = TestSet.objects.create(
            phase=phase, slug=source.slug, name=source.name,
            visibility=TestSet.Visibility.PUBLIC, copied_from=source,
            counts_for_ranking=source.counts_for_ranking, order=source.order,
        )  # fmt: skip
        # Inputs first: gold is checked against them.
        for f in sorted(source.files.all(), key=lambda f: f.role in gold_roles):
            with f.file.open("rb") as handle:
                data = handle.read()
            datasets.store_file(
                test_set=copy, role=f.role, filename=f.original_name, data=data
            )
    return phase


def _last_official(official: list[Phase]) -> Phase:
    """The phase whose tracks and test sets the evaluation after the campaign copies."""
    return max(official, key=lambda p: (p.closes_at, p.order))


def _free_slug(task: SharedTask) -> str:
    taken = set(task.phases.values_list("slug", flat=True))
    slug, n = SLUG, 1
    while slug in taken:
        n += 1
        slug = f"{SLUG}-{n}"
    return slug


@dataclass(frozen=True, slots=True)
class AfterCampaign:
    """Where a task stands with its evaluation after the campaign."""

    #: Why it cannot be opened now (the campaign runs, no phase); None: it can.
    refused: str | None
    #: The phase of the evaluation after the campaign, once opened.
    phase: Phase | None
    #: Runs are accepted now.
    is_open: bool
    #: Its test sets: the copies, or those its opening would copy.
    test_sets: tuple[TestSet, ...]


def current(*, task: SharedTask, now: datetime | None = None) -> AfterCampaign:
    now = now or timezone.now()
    phase = Phase.objects.filter(task=task, after_campaign=True).first()
    official = official_phases(task)
    source = phase or (_last_official(official) if official else None)
    return AfterCampaign(
        refused=refusal(task=task, now=now),
        phase=phase,
        is_open=phase is not None and phase.opens_at <= now < phase.closes_at,
        test_sets=tuple(source.test_sets.all()) if source else (),
    )


def close(*, task: SharedTask, now: datetime | None = None) -> Phase:
    """Stop accepting runs after the campaign: its closing date becomes now. Its
    runs, scores and board stay; opening it again later is allowed."""
    now = now or timezone.now()
    phase = Phase.objects.filter(task=task, after_campaign=True).first()
    if phase is None or phase.closes_at <= now:
        raise Refused("The task is not open for evaluation after the campaign.")
    phase.closes_at = max(now, phase.opens_at)
    phase.save(update_fields=["closes_at"])
    return phase
