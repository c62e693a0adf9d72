from __future__ import annotations

from django.core.management.base import BaseCommand

from evalhub.competitions.services.data.demo import (
    DEMO_PASSWORD,
    seed_demo,
    seed_tracks_demo,
)


class Command(BaseCommand):
    help = (
        "Create the demo tasks (one per task type, and a term-extraction task "
        "ranked in two tracks) with generated data and demo runs."
    )

    def add_arguments(self, parser):  # noqa: ANN001, ANN201
        parser.add_argument(
            "--task-type",
            action="append",
            dest="slugs",
            help="only this task type (repeatable)",
        )
        parser.add_argument(
            "--no-runs", action="store_true", help="do not submit demo runs"
        )

    def handle(self, *args, slugs=None, no_runs=False, **options):  # noqa: ANN001, ANN002, ANN003, ANN201
        created = seed_demo(slugs=slugs, with_runs=not no_runs)
        if not slugs:  # the tracks demo with the full set only
            tracks_demo = seed_tracks_demo(with_runs=not no_runs)
            if tracks_demo is not None:
                created.append(tracks_demo)
        for task in created:
            self.stdout.write(f"created {task.slug}")
        if not created:
            self.stdout.write("demo tasks already present")
        self.stdout.write(f"organiser login: organiser / {DEMO_PASSWORD}")
