"""Demo tasks for the quick start, one per registered task type, with data generated
by the task types themselves (``TaskType.demo``) and a few runs submitted through the
normal submission service.

``seed_tracks_demo`` adds one more: a term-extraction campaign ranked in two tracks
(``TRACKS_DEMO_SLUG``: "closed" and "open"), with demo runs in both.

Only ``organiser`` / ``DEMO_PASSWORD`` can log in: the demo teams' members exist to own
the demo runs and have no usable password (a documented password would let anyone
submit, hide or pick final runs as them)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from evalhub.competitions import signals
from evalhub.competitions.models import (
    Phase,
    Registration,
    SharedTask,
    Team,
    TestSet,
    Track,
)
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.runs import submit
from tasks import registry

DEMO_PASSWORD = "evalhub-demo"
#: The demo task ranked in tracks (feature apps may attach more to it).
TRACKS_DEMO_SLUG = "demo-term-extraction-tracks"
log = logging.getLogger(__name__)


def _organiser() -> object:
    organiser, new = get_user_model().objects.get_or_create(
        username="organiser", defaults={"is_staff": True}
    )
    if new:
        organiser.set_password(DEMO_PASSWORD)
        organiser.save()
    return organiser


def seed_demo(
    *, slugs: list[str] | None = None, with_runs: bool = True
) -> list[SharedTask]:
    """Create the demo tasks that do not exist yet (idempotent)."""
    created = []
    organiser = _organiser()
    for slug in slugs or registry.slugs():
        task_slug = f"demo-{slug.replace('_', '-')}"
        if SharedTask.objects.filter(slug=task_slug).exists():
            continue
        task_type = registry.get(slug)
        demo = task_type.demo(seed=0)
        title = demo.title
        if not title.lower().startswith("demo"):
            title = f"Demo: {title}"
        task, phase = _create_task(task_slug, title, slug, demo, organiser)
        if with_runs:
            _submit_demo_runs(task, phase, [(*run, "") for run in demo.runs])
        created.append(task)
    _lock_demo_members(organiser)
    if created:  # feature apps add their demo rows (e.g. fact sheets)
        signals.demo_seeded.send(sender=SharedTask, tasks=created)
    return created


def seed_tracks_demo(*, with_runs: bool = True) -> SharedTask | None:
    """The term-extraction demo ranked in two tracks, "closed" (the corpus only)
    and "open" (any resource), limits per track, demo runs in both; None when it
    exists already (idempotent)."""
    if SharedTask.objects.filter(slug=TRACKS_DEMO_SLUG).exists():
        return None
    organiser = _organiser()
    demo = registry.get("term_extraction").demo(seed=0)
    task, phase = _create_task(
        TRACKS_DEMO_SLUG,
        "Demo: term extraction in two tracks",
        "term_extraction",
        demo,
        organiser,
        description="Systems are ranked within their track: **closed** systems use "
        "only the corpus provided, **open** systems may use any resource "
        "(dictionaries, web data, pretrained models).\n\n" + demo.description,
    )
    Phase.objects.filter(pk=phase.pk).update(limits_per_track=True)
    Track.objects.create(
        phase=phase,
        slug="closed",
        name="Closed",
        description="closed: only the corpus provided",
        order=0,
    )
    Track.objects.create(
        phase=phase,
        slug="open",
        name="Open",
        description="open: any resource (dictionaries, web data, pretrained models)",
        order=1,
    )
    if with_runs:
        runs = [(*run, "closed") for run in demo.runs]
        (a_team, _, a_files), (_, _, b_files), (c_team, _, _) = demo.runs[:3]
        runs += [
            (a_team, "ranked extractor + web glossary", b_files, "open"),
            (c_team, "noisy extractor + lexicon", a_files, "open"),
        ]
        _submit_demo_runs(task, phase, runs)
    _lock_demo_members(organiser)
    signals.demo_seeded.send(sender=SharedTask, tasks=[task])
    return task


def _create_task(
    task_slug: str,
    title: str,
    type_slug: str,
    demo: object,
    organiser: object,
    description: str | None = None,
) -> tuple[SharedTask, Phase]:
    with transaction.atomic():
        task = SharedTask.objects.create(
            slug=task_slug,
            title=title,
            description=demo.description if description is None else description,  # type: ignore[attr-defined]
            task_type=type_slug,
            task_settings=dict(demo.settings),  # type: ignore[attr-defined]
            state=SharedTask.State.PUBLISHED,
            owner=organiser,
        )
        task.organisers.add(organiser)  # type: ignore[arg-type]
        now = timezone.now()
        phase = Phase.objects.create(
            task=task,
            slug="evaluation",
            name="Evaluation",
            opens_at=now - timedelta(days=1),
            closes_at=now + timedelta(days=90),
            daily_limit=10,
            total_limit=100,
        )
        for order, ts in enumerate(demo.test_sets):  # type: ignore[attr-defined]
            test_set = TestSet.objects.create(
                phase=phase,
                slug=_slug(ts.name),
                name=ts.title or ts.name,
                visibility=ts.visibility,
                order=order,
            )
            for role, data in {**ts.inputs, **ts.gold}.items():
                datasets.store_file(
                    test_set=test_set, role=role, filename=f"{role}.txt", data=data
                )
    return task, phase


def _submit_demo_runs(task: SharedTask, phase: Phase, runs: list[tuple]) -> None:
    """(team name, method, files, track slug or "") through the normal service."""
    User = get_user_model()
    for team_name, method, files, track in runs:
        team, _ = Team.objects.get_or_create(name=f"{team_name}")
        member, new = User.objects.get_or_create(username=_slug(team_name))
        if new:
            member.set_unusable_password()
            member.save(update_fields=["password"])
        team.members.add(member)
        Registration.objects.get_or_create(
            task=task, team=team, defaults={"status": Registration.Status.APPROVED}
        )
        data = next(iter(files.values()))
        try:
            submit.submit_run(
                phase=phase,
                user=member,
                filename=f"{_slug(method)}.txt",
                data=data,
                method_name=method,
                track=track or None,
            )
        except (submit.SubmissionInvalid, submit.SubmissionRefused) as exc:
            log.warning(
                "demo run %r of %s was not accepted: %s", method, task.slug, exc
            )


def _lock_demo_members(organiser: object) -> None:
    """Databases seeded before demo members lost their password: a member of a team
    registered for a demo task who still has the documented password gets none."""
    User = get_user_model()
    members = (
        User.objects.filter(
            teams__registrations__task__slug__startswith="demo-",
            teams__registrations__task__organisers=organiser,
        )
        .exclude(pk=getattr(organiser, "pk", None))
        .distinct()
    )
    for member in members:
        if member.has_usable_password() and member.check_password(DEMO_PASSWORD):
            member.set_unusable_password()
            member.save(update_fields=["password"])


def _slug(text: str) -> str:
    return (
        "-".join("".join(ch if ch.isalnum() else " " for ch in text.lower()).split())[
            :50
        ]
        or "x"
    )
