"""Demo tasks for the quick start, one per registered task type, with data generated
by the task types themselves (``TaskType.demo``) and a few runs submitted through the
normal submission service.

Only ``organiser`` / ``DEMO_PASSWORD`` can log in: the demo teams' members exist to own
the demo runs and have no usable password (a documented password would let anyone
submit, hide or pick final runs as them)."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from evalhub.competitions.models import Phase, Registration, SharedTask, Team, TestSet
from evalhub.competitions.services import datasets, submit
from tasks import registry

DEMO_PASSWORD = "evalhub-demo"
log = logging.getLogger(__name__)


def seed_demo(
    *, slugs: list[str] | None = None, with_runs: bool = True
) -> list[SharedTask]:
    """Create the demo tasks that do not exist yet (idempotent)."""
    created = []
    User = get_user_model()
    organiser, new = User.objects.get_or_create(
        username="organiser", defaults={"is_staff": True}
    )
    if new:
        organiser.set_password(DEMO_PASSWORD)
        organiser.save()
    for slug in slugs or registry.slugs():
        task_slug = f"demo-{slug.replace('_', '-')}"
        if SharedTask.objects.filter(slug=task_slug).exists():
            continue
        task_type = registry.get(slug)
        demo = task_type.demo(seed=0)
        with transaction.atomic():
            task = SharedTask.objects.create(
                slug=task_slug,
                title=demo.title
                if demo.title.lower().startswith("demo")
                else f"Demo: {demo.title}",
                description=demo.description,
                task_type=slug,
                task_settings=dict(demo.settings),
                state=SharedTask.State.PUBLISHED,
            )
            task.organisers.add(organiser)
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
            for order, ts in enumerate(demo.test_sets):
                test_set = TestSet.objects.create(
                    phase=phase,
                    slug=_slug(ts.name),
                    name=ts.name,
                    visibility=ts.visibility,
                    order=order,
                )
                for role, data in ts.inputs.items():
                    datasets.store_file(
                        test_set=test_set, role=role, filename=f"{role}.txt", data=data
                    )
                for role, data in ts.gold.items():
                    datasets.store_file(
                        test_set=test_set, role=role, filename=f"{role}.txt", data=data
                    )
        if with_runs:
            for team_name, method, files in demo.runs:
                team, _ = Team.objects.get_or_create(name=f"{team_name}")
                member, new = User.objects.get_or_create(username=_slug(team_name))
                if new:
                    member.set_unusable_password()
                    member.save(update_fields=["password"])
                team.members.add(member)
                Registration.objects.get_or_create(
                    task=task,
                    team=team,
                    defaults={"status": Registration.Status.APPROVED},
                )
                data = next(iter(files.values()))
                try:
                    submit.submit_run(
                        phase=phase,
                        user=member,
                        filename=f"{_slug(method)}.txt",
                        data=data,
                        method_name=method,
                    )
                except (submit.SubmissionInvalid, submit.SubmissionRefused) as exc:
                    log.warning(
                        "demo run %r of %s was not accepted: %s", method, task_slug, exc
                    )
        created.append(task)
    _lock_demo_members(organiser)
    return created


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
