"""Reading a task's archive (``manage.py archive import``): the task comes back
with the ids it had, so every page, export, figure and API answer reads as it did.

Checked before anything is written, like a bundle: the zip under the archive's
limits (``archives.py``: names, sizes a member and in all, the inflation ratio,
counted while inflating), the manifest's format and version, then every line of
``rows.jsonl`` (a model the archive may hold, its fields, finite numbers, each
reference to a row of the archive, each file present) and what is already on the
site: an account or team of the same id is reused when its name is the same, any
other row's id or the task's slug must be free (a fresh install, or the task
deleted first). Every problem is reported with its member and line; with any,
nothing is created.

Accounts come back with their user name only: no address, no usable password.
Runs enter through ``lifecycle.imported`` (the one writer of a run's status)."""

from __future__ import annotations

import json
import math
import zipfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.management.color import no_style
from django.core.serializers.base import DeserializationError, DeserializedObject
from django.db import DatabaseError, connection, transaction
from django.db.models import FileField, Model

from evalhub.competitions import archives, markdown
from evalhub.competitions.models import SharedTask, Submission, TestSet
from evalhub.competitions.services.archive import format as fmt
from evalhub.competitions.services.archive import rules, svg
from evalhub.competitions.services.archive.parts import SHARED, parts
from evalhub.competitions.services.boards import boardcache
from evalhub.competitions.services.runs import lifecycle
from tasks.base import Problem

#: version -> the step that turns a row of that version into one of the next.
UPGRADES: dict[int, Callable[[dict[str, object]], dict[str, object]]] = {}


class ArchiveRefused(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems[:5]))


@dataclass
class _Row:
    line: int
    model: type[Model]
    pk: int
    fields: dict[str, object]
    obj: DeserializedObject | None = None
    recorded: str = ""  # a run's status as the archive recorded it
    reuse: bool = False


@dataclass
class _Plan:
    rows: list[_Row] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def refuse(self, line: int | None, message: str, member: str = fmt.ROWS) -> None:
        self.problems.append(Problem(member, line, message))


def limits() -> archives.ZipLimits:
    return archives.ZipLimits(
        max_members=settings.ARCHIVE_MAX_MEMBERS,
        max_member_bytes=settings.ARCHIVE_MAX_MEMBER_BYTES,
        max_total_bytes=settings.ARCHIVE_MAX_TOTAL_BYTES,
        max_ratio=settings.ZIP_MAX_RATIO,
        ratio_floor=settings.ZIP_RATIO_FLOOR,
    )


def _read(opened: archives.OpenedZip, info: zipfile.ZipInfo) -> bytes:
    return archives.read_member(
        opened, info, max_bytes=settings.ARCHIVE_MAX_MEMBER_BYTES
    )


def import_archive(*, data: bytes) -> SharedTask:
    """Recreate the archived task; ArchiveRefused lists every problem found."""
    try:
        opened = archives.open_zip(data, limits())
        members = {info.filename: info for info in opened.members}
        manifest = _manifest(opened, members)
        text = _read(opened, members[fmt.ROWS])
    except archives.ArchiveError as exc:
        raise ArchiveRefused([Problem("archive", None, str(exc))]) from None
    except KeyError:
        raise ArchiveRefused([Problem("archive", None, f"has no {fmt.ROWS}")]) from None
    plan = _Plan()
    _parse(plan, text, int(manifest["version"]))  # type: ignore[call-overload]
    if not plan.problems:
        _check(plan, opened, members)
    if plan.problems:
        raise ArchiveRefused(plan.problems)
    return _load(plan, opened, members)


def _manifest(opened: archives.OpenedZip, members: dict) -> dict[str, object]:
    if fmt.MANIFEST not in members:
        raise ArchiveRefused([Problem("archive", None, f"has no {fmt.MANIFEST}")])
    raw = archives.read_member(opened, members[fmt.MANIFEST], max_bytes=1 << 20)
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        problem = Problem(fmt.MANIFEST, None, f"is not JSON ({exc})")
        raise ArchiveRefused([problem]) from None
    version = manifest.get("version") if isinstance(manifest, dict) else None
    if not isinstance(manifest, dict) or manifest.get("format") != fmt.FORMAT:
        raise ArchiveRefused(
            [Problem(fmt.MANIFEST, None, f"is not an {fmt.FORMAT} manifest")]
        )
    if not isinstance(version, int) or not 1 <= version <= fmt.VERSION:
        raise ArchiveRefused(
            [
                Problem(
                    fmt.MANIFEST,
                    None,
                    f"format version {version!r}: this site reads versions 1 to "
                    f"{fmt.VERSION} (an archive from a newer evalhub needs it)",
                )
            ]
        )
    return manifest


def _models() -> dict[str, type[Model]]:
    found = {get_user_model()._meta.label_lower: get_user_model()}
    for part in parts():
        found.update({m._meta.label_lower: m for m in part.models})
    return found


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is not a finite number")
    return value


def _constant(text: str) -> object:
    raise ValueError(f"{text} is not a number")


def _parse(plan: _Plan, text: bytes, version: int) -> None:
    """Each line: JSON, a known model, an id, fields; upgraded to this version."""
    models = _models()
    user_label = get_user_model()._meta.label_lower
    seen: set[tuple[str, int]] = set()
    for number, line in enumerate(text.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line, parse_float=_finite, parse_constant=_constant)
        except ValueError as exc:  # also UnicodeDecodeError
            plan.refuse(number, f"is not a JSON row ({exc})")
            continue
        except RecursionError:
            row = None  # deeper than the parser goes: deeper than MAX_NESTING
        if row is None or rules.depth(row) > rules.MAX_NESTING:
            plan.refuse(number, f"nests deeper than {rules.MAX_NESTING} levels")
            continue
        if not isinstance(row, dict):
            plan.refuse(number, "a row is a JSON object (model, pk, fields)")
            continue
        for step in range(version, fmt.VERSION):
            row = UPGRADES[step](row)
        label, pk, fields = row.get("model"), row.get("pk"), row.get("fields")
        if label not in models:
            plan.refuse(number, f"model {label!r} is not one an archive holds")
            continue
        if not isinstance(pk, int) or pk < 1 or not isinstance(fields, dict):
            plan.refuse(number, "a row needs an id (a positive integer) and fields")
            continue
        if (label, pk) in seen:
            plan.refuse(number, f"{label} {pk} appears twice")
            continue
        seen.add((label, pk))
        if label == user_label and set(fields) != {"username"}:
            plan.refuse(number, "an account holds its user name and nothing else")
            continue
        plan.rows.append(_Row(number, models[label], pk, dict(fields)))


def _check(plan: _Plan, opened: archives.OpenedZip, members: dict) -> None:
    """Fields, references, files, and what the site holds already."""
    held: dict[type[Model], set[int]] = defaultdict(set)
    for row in plan.rows:
        held[row.model].add(row.pk)
    for row in plan.rows:
        known = {f.name for f in row.model._meta.concrete_fields}
        known |= {f.name for f in row.model._meta.many_to_many}
        unknown = sorted(set(row.fields) - known)
        if unknown:
            plan.refuse(
                row.line,
                f"{row.model._meta.label_lower}: no field {', '.join(unknown)} on "
                "this site (an archive of a newer evalhub needs it)",
            )
            continue
        if row.model is Submission:
            row.recorded = str(row.fields.pop("status", ""))
        try:
            row.obj = next(
                serializers.deserialize(
                    "python",
                    [{"model": row.model._meta.label_lower, "pk": row.pk, "fields": row.fields}],
                )
            )  # fmt: skip
        except (DeserializationError, ValidationError, ValueError) as exc:
            plan.refuse(row.line, f"{row.model._meta.label_lower}: {exc}")
            continue
        obj = row.obj.object
        if row.model is Submission and row.recorded not in Submission.Status.values:
            plan.refuse(row.line, f"a run's status {row.recorded!r} is unknown")
        relations = [f for f in obj._meta.concrete_fields if f.is_relation]
        files = [f for f in obj._meta.concrete_fields if isinstance(f, FileField)]
        _validate(plan, row, skip={*relations, *files})
        for f in relations:
            target = getattr(obj, f.attname)
            if target is not None and target not in held[f.related_model]:
                plan.refuse(
                    row.line,
                    f"{f.name} refers to {f.related_model._meta.label_lower} "
                    f"{target}, which the archive does not hold",
                )
        for name, targets in (row.obj.m2m_data or {}).items():
            related = obj._meta.get_field(name).related_model
            for target in targets:
                if int(target) not in held[related]:
                    plan.refuse(row.line, f"{name} names {target}, not in the archive")
        for f in files:
            name = str(getattr(obj, f.attname) or "")
            if name and fmt.FILES + name not in members:
                plan.refuse(row.line, f"{f.name}: {fmt.FILES}{name} is not in the zip")
            elif name and ("svg" in f.name or name.lower().endswith(".svg")):
                _check_svg(plan, row, opened, members[fmt.FILES + name])
    if len(held[SharedTask]) != 1:
        plan.refuse(None, "an archive holds exactly one task")
    for row, message in rules.repeated(r for r in plan.rows if r.obj):
        plan.refuse(row.line, message)
    _against_the_site(plan, held)


def _check_svg(
    plan: _Plan, row: _Row, opened: archives.OpenedZip, info: zipfile.ZipInfo
) -> None:
    """A file the site serves as SVG (a field for SVG, or a name ending in .svg)
    must be a figure as matplotlib draws it: the site and the static snapshot
    serve it as a document of their own origin (``svg.problem``)."""
    try:
        data = _read(opened, info)
    except archives.ArchiveError as exc:
        plan.refuse(row.line, str(exc))
        return
    if why := svg.problem(data):
        plan.refuse(row.line, f"{info.filename}: not an SVG figure of ours: {why}")


def _validate(plan: _Plan, row: _Row, skip: set[object]) -> None:
    """Each field's own rules (lengths, choices, validators) on what it holds; empty
    values as the services store them (a run without warnings)."""
    obj = row.obj.object  # type: ignore[union-attr]
    for f in obj._meta.concrete_fields:
        value = getattr(obj, f.attname)
        if f in skip or f.primary_key or value in f.empty_values:
            if value is None and not f.null and not f.primary_key and f not in skip:
                plan.refuse(row.line, f"{f.name} cannot be empty")
            continue
        try:
            f.clean(value, obj)
        except ValidationError as exc:
            plan.refuse(row.line, f"{f.name}: {' '.join(exc.messages)}")
    if row.model is not get_user_model():
        try:
            obj.clean()
        except ValidationError as exc:
            plan.refuse(row.line, f"{row.model._meta.label_lower}: {exc}")


def _against_the_site(plan: _Plan, held: dict[type[Model], set[int]]) -> None:
    user_model = get_user_model()
    for model, pks in held.items():
        name = "username" if model is user_model else "name" if model in SHARED else ""
        if name:
            here = dict(model.objects.filter(pk__in=pks).values_list("pk", name))
            for row in (r for r in plan.rows if r.model is model):
                theirs = row.obj.object if row.obj else None
                wanted = getattr(theirs, name, None)
                if row.pk in here and here[row.pk] == wanted:
                    row.reuse = True
                elif row.pk in here:
                    plan.refuse(
                        row.line,
                        f"{model._meta.label_lower} {row.pk} is {here[row.pk]!r} on "
                        f"this site, not {wanted!r}",
                    )
                elif model.objects.filter(**{name: wanted}).exists():
                    plan.refuse(
                        row.line, f"a {model._meta.label_lower} {wanted!r} exists here"
                    )
            continue
        taken = set(model.objects.filter(pk__in=pks).values_list("pk", flat=True))
        for row in (r for r in plan.rows if r.model is model and r.pk in taken):
            plan.refuse(
                row.line,
                f"{model._meta.label_lower} {row.pk} exists on this site: import into "
                "a fresh install, or delete the task there first",
            )
    for row in (r for r in plan.rows if r.model is SharedTask and r.obj):
        slug = row.obj.object.slug
        if SharedTask.objects.filter(slug=slug).exclude(pk=row.pk).exists():
            plan.refuse(row.line, f"a task {slug!r} exists on this site")


def _load(plan: _Plan, opened: archives.OpenedZip, members: dict) -> SharedTask:
    stored: list[tuple[object, str]] = []
    user_model = get_user_model()
    try:
        with transaction.atomic():
            for row in plan.rows:
                if row.reuse or row.obj is None:
                    continue
                obj = row.obj.object
                if row.model is user_model:
                    obj.email = ""
                    obj.set_unusable_password()
                    obj.save(force_insert=True)
                    continue
                for f in obj._meta.concrete_fields:
                    name = str(getattr(obj, f.attname) or "")
                    if isinstance(f, FileField) and name:
                        data = _read(opened, members[fmt.FILES + name])
                        saved = f.storage.save(name, ContentFile(data))
                        stored.append((f.storage, saved))
                        setattr(obj, f.attname, saved)
                if row.model is SharedTask:
                    obj.description_html = markdown.render(obj.description)
                if row.model is Submission:
                    lifecycle.imported(obj, status=row.recorded)
                try:
                    row.obj.save()
                except DatabaseError as exc:  # a rule the checks do not know
                    raise ArchiveRefused([_broken(row, exc)]) from None
            models = sorted({row.model for row in plan.rows}, key=str)
            with connection.cursor() as cursor:
                for sql in connection.ops.sequence_reset_sql(no_style(), models):
                    cursor.execute(sql)
            test_sets = [r.pk for r in plan.rows if r.model is TestSet]
            transaction.on_commit(lambda: boardcache.bump(test_sets, retract=True))
    except archives.ArchiveError as exc:
        _delete(stored)
        raise ArchiveRefused([Problem("archive", None, str(exc))]) from None
    except BaseException:
        _delete(stored)
        raise
    task_pk = next(r.pk for r in plan.rows if r.model is SharedTask)
    return SharedTask.objects.get(pk=task_pk)


def _broken(row: _Row, exc: DatabaseError) -> Problem:
    """The database refused a row (a unique or check rule): the import stops, the
    transaction rolls back, the message names the row's line."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return Problem(
        fmt.ROWS,
        row.line,
        f"{row.model._meta.label_lower} {row.pk} breaks a rule of the database "
        f"({first}); nothing was imported",
    )


def _delete(stored: list[tuple[object, str]]) -> None:
    for storage, name in stored:
        storage.delete(name)  # type: ignore[attr-defined]
