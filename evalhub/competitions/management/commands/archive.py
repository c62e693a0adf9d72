from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services.archive import reader, site, writer


class Command(BaseCommand):
    help = (
        "A task kept whole beyond its server: 'export SLUG out.zip' writes its "
        "archive (gold and every run included: keep it private), 'import out.zip' "
        "recreates it on this site with the ids it had (a fresh install), 'site SLUG "
        "folder/' writes what an anonymous visitor sees of it as a static site."
    )

    def add_arguments(self, parser):  # noqa: ANN001, ANN201
        sub = parser.add_subparsers(dest="action", required=True)
        export = sub.add_parser("export", help="write a task's archive")
        export.add_argument("slug")
        export.add_argument("path")
        load = sub.add_parser("import", help="recreate a task from its archive")
        load.add_argument("path")
        site = sub.add_parser(
            "site", help="write the task's public face as plain files (static site)"
        )
        site.add_argument("slug")
        site.add_argument("folder")

    def handle(self, *args, action: str, **options):  # noqa: ANN002, ANN003, ANN201
        if action in ("export", "site"):
            task = SharedTask.objects.filter(slug=options["slug"]).first()
            if task is None:
                raise CommandError(f"no task {options['slug']!r}")
        if action == "site":
            folder = Path(options["folder"])
            if folder.exists() and any(folder.iterdir()):
                raise CommandError(f"{folder} is not empty")
            try:
                snapshot = site.write_site(task=task, folder=folder)
            except site.NothingPublic as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(
                f"wrote {len(snapshot.files)} files to {folder}: open "
                f"{folder / 'index.html'}, or serve it: python -m http.server -d {folder}"
            )
            return
        if action == "export":
            manifest = writer.write_archive(task=task, target=options["path"])
            self.stdout.write(
                f"wrote {options['path']}: {manifest['rows']} rows, "
                f"{manifest['files']} files (format version {manifest['version']})"
            )
            return
        path = Path(options["path"])
        if not path.is_file():
            raise CommandError(f"no file {path}")
        try:
            task = reader.import_archive(data=path.read_bytes())
        except reader.ArchiveRefused as exc:
            raise CommandError(
                "the archive was not imported:\n"
                + "\n".join(f"  {problem}" for problem in exc.problems)
            ) from None
        self.stdout.write(f"imported {task.slug}: {task.get_absolute_url()}")
