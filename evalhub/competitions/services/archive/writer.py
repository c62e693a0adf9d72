"""Writing a task's archive (``manage.py archive export``, the console's button):
every row of every part (``parts``), the user accounts they name reduced to a user
name, and every file a row names. Gold included: organisers and site staff only."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterable
from typing import IO

from django.contrib.auth import get_user_model
from django.core import serializers
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import FileField, Model
from django.utils import timezone

from evalhub.competitions.models import SharedTask
from evalhub.competitions.services.archive import format as fmt
from evalhub.competitions.services.archive.parts import parts
from evalhub.competitions.services.runs import run_figures

#: ``progress(stage, done, total)``: the writer reads the rows part by part
#: (``ROWS``), then copies the files they name one by one (``FILES``).
Progress = Callable[[str, int, int], None]
ROWS, FILES = "rows", "files"


def write_archive(
    *, task: SharedTask, target: str | IO[bytes], progress: Progress | None = None
) -> dict[str, object]:
    """Write the archive of ``task`` to ``target`` (a path or a binary file);
    returns its manifest. ``progress`` is told each step done (the console's
    export shows it)."""
    report = progress or (lambda stage, done, total: None)
    # A run's own figures are drawn after its score by their own job: those still
    # pending are drawn here (a worker, or the command), so the archive has them.
    run_figures.draw_pending(task=task)
    rows: list[dict[str, object]] = []
    files: dict[str, tuple[FileField, str]] = {}
    user_ids: set[int] = set()
    every_part = parts()
    for done, part in enumerate(every_part):
        report(ROWS, done, len(every_part))
        for obj in part.rows(task):
            row = _serialise(obj)
            rows.append(row)
            user_ids |= _users_named(obj, row)
            for field in obj._meta.concrete_fields:
                name = (
                    getattr(obj, field.attname) if isinstance(field, FileField) else ""
                )
                if name:
                    files[str(name)] = (field, str(name))
    people = [
        {"model": _label(get_user_model()), "pk": pk, "fields": {"username": name}}
        for pk, name in get_user_model()
        .objects.filter(pk__in=user_ids)
        .order_by("pk")
        .values_list("pk", "username")
    ]
    manifest: dict[str, object] = {
        "format": fmt.FORMAT,
        "version": fmt.VERSION,
        "task": task.slug,
        "task_type": task.task_type,
        "scorer_version": task.type.version,
        "exported_at": timezone.now(),
        "schema": _schema(),
        "parts": [part.name for part in parts()],
        "rows": len(people) + len(rows),
        "files": len(files),
    }
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            fmt.MANIFEST, json.dumps(manifest, cls=fmt.Encoder, indent=2) + "\n"
        )
        archive.writestr(
            fmt.ROWS, "".join(fmt.dumps(row) + "\n" for row in [*people, *rows])
        )
        for done, (name, (field, _)) in enumerate(sorted(files.items())):
            report(FILES, done, len(files))
            with field.storage.open(name, "rb") as handle:
                with archive.open(fmt.FILES + name, "w", force_zip64=True) as out:
                    while chunk := handle.read(1 << 20):
                        out.write(chunk)
        report(FILES, len(files), len(files))
    return manifest


def _label(model: type[Model]) -> str:
    return model._meta.label_lower


def _serialise(obj: Model) -> dict[str, object]:
    (row,) = serializers.serialize("python", [obj])
    return {"model": row["model"], "pk": row["pk"], "fields": row["fields"]}


def _users_named(obj: Model, row: dict[str, object]) -> set[int]:
    """The accounts a row names (its references and lists of references)."""
    user_model = get_user_model()
    fields: dict[str, object] = row["fields"]  # type: ignore[assignment]
    found: set[int] = set()
    for field in obj._meta.get_fields():
        if getattr(field, "related_model", None) is not user_model:
            continue
        if not field.concrete or field.name not in fields:
            continue
        value = fields[field.name]
        values: Iterable[object] = value if isinstance(value, list) else [value]
        found.update(v for v in values if isinstance(v, int))
    return found


def _schema() -> dict[str, str]:
    """Each app's latest migration applied here (what the rows' fields match)."""
    latest: dict[str, str] = {}
    for app, name in MigrationRecorder(connection).applied_migrations():
        latest[app] = max(latest.get(app, name), name)
    return dict(sorted(latest.items()))
