"""Task bundles: a whole shared task as one zip (``task.yaml`` + data files), to
create a task without a shell and to move or archive one.

``task.yaml``::

    slug: my-task
    title: My task
    description: |            # Markdown
      ...
    task_type: bilingual_term_alignment
    settings: {cap_policy: reject}
    requires_approval: false
    state: published          # draft (default), published or archived
    phases:
      - slug: evaluation
        name: Evaluation
        opens: 2026-01-01T00:00:00Z
        closes: 2026-02-01T00:00:00Z
        daily_limit: 5
        total_limit: 100
        failed_runs_count: false
        max_final_runs: 1         # final runs a team picks (0: every run counts)
        test_sets:
          - slug: test
            name: Test
            visibility: public    # or private
            counts_for_ranking: true
            files:                # role: path inside the zip
              source_terms: test/source_terms.txt
              gold: test/gold.tsv

Every problem is reported with ``task.yaml`` and its line, or with the data file's name
and line when the task type rejects the file; nothing is created unless all is valid.
The zip is opened and its members inflated under the same limits as a zipped run
(``evalhub/competitions/archives.py``: sizes a member and in all, the inflation ratio,
safe names), counted while reading.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from datetime import datetime

import yaml
from django.db import IntegrityError, transaction
from django.utils.dateparse import parse_datetime

from evalhub.competitions import archives
from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services import datasets
from tasks import registry
from tasks.base import FormatError, Problem, SettingsError

MANIFEST = "task.yaml"


class BundleError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems[:5]))


@dataclass(frozen=True, slots=True)
class _Value:
    value: object
    line: int


def _plain(node: yaml.Node) -> object:
    """A YAML node as Python values wrapped with their 1-based line numbers."""
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        return _Value({k.value: _plain(v) for k, v in node.value}, line)
    if isinstance(node, yaml.SequenceNode):
        return _Value([_plain(v) for v in node.value], line)
    loader = yaml.SafeLoader("")
    return _Value(loader.construct_object(node, deep=True), line)


_KINDS = {int: "a whole number", bool: "true or false", str: "text"}


class _Reader:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(MANIFEST, line, message))

    def get(
        self,
        mapping: _Value,
        key: str,
        kind: type | tuple[type, ...],
        default: object = ...,
    ) -> object:
        items = mapping.value
        if not isinstance(items, dict):
            self.error(mapping.line, "expected a mapping (key: value)")
            return None
        if key not in items:
            if default is ...:
                self.error(mapping.line, f"missing key {key!r}")
                return None
            return default
        item = items[key]
        value = item.value
        if kind is list:
            if not isinstance(value, list):
                self.error(item.line, f"{key!r} must be a list")
                return []
            return value
        if kind is dict:
            if not isinstance(value, dict):
                self.error(item.line, f"{key!r} must be a mapping")
                return {}
            return {k: v.value for k, v in value.items()}
        if kind is datetime:
            parsed = (
                value if isinstance(value, datetime) else parse_datetime(str(value))
            )
            if parsed is None or parsed.tzinfo is None:
                self.error(
                    item.line,
                    f"{key!r} must be a date and time with a time zone, e.g. 2026-01-31T23:59:00Z",
                )
                return None
            return parsed
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            wanted = _KINDS.get(kind, "another kind of value")  # type: ignore[arg-type]
            self.error(item.line, f"{key!r} must be {wanted}, got {value!r}")
            return None
        return value


def import_bundle(*, data: bytes, user: object) -> SharedTask:
    """Create a task from a bundle; BundleError lists every problem found."""
    try:
        opened = archives.open_zip(data)
        names = {i.filename: i for i in opened.members}
        manifest = (
            archives.read_member(opened, names[MANIFEST]) if MANIFEST in names else None
        )
    except archives.ArchiveError as exc:
        raise BundleError([Problem("bundle", None, str(exc))]) from None
    if manifest is None:
        raise BundleError(
            [Problem("bundle", None, f"has no {MANIFEST} at its top level")]
        )
    try:
        root = _plain(yaml.compose(manifest.decode("utf-8")))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else None
        raise BundleError(
            [
                Problem(
                    MANIFEST, line, f"is not valid YAML: {getattr(exc, 'problem', exc)}"
                )
            ]
        ) from None
    r = _Reader()
    slug = r.get(root, "slug", str)
    title = r.get(root, "title", str)
    type_slug = r.get(root, "task_type", str)
    settings = r.get(root, "settings", dict, {})
    task_type = None
    if isinstance(type_slug, str):
        if type_slug not in registry.slugs():
            r.error(
                root.value["task_type"].line,
                f"unknown task type {type_slug!r}; known: {', '.join(registry.slugs())}",
            )  # type: ignore[union-attr]
        else:
            task_type = registry.get(type_slug)
            try:
                task_type.parse_settings(settings)  # type: ignore[arg-type]
            except SettingsError as exc:
                r.error(root.value.get("settings", root).line, f"settings: {exc}")  # type: ignore[union-attr]
    state = r.get(root, "state", str, SharedTask.State.DRAFT)
    if state not in SharedTask.State.values:
        r.error(
            root.value["state"].line,
            f"state must be one of {', '.join(SharedTask.State.values)}",
        )  # type: ignore[union-attr]
    phases = []
    for p in r.get(root, "phases", list, []) or []:  # type: ignore[union-attr]
        phase = {
            "slug": r.get(p, "slug", str),
            "name": r.get(p, "name", str),
            "opens_at": r.get(p, "opens", datetime),
            "closes_at": r.get(p, "closes", datetime),
            "daily_limit": r.get(p, "daily_limit", int, 5),
            "total_limit": r.get(p, "total_limit", int, 100),
            "failed_runs_count": r.get(p, "failed_runs_count", bool, False),
            "max_final_runs": r.get(p, "max_final_runs", int, 1),
            "test_sets": [],
        }
        if (
            phase["opens_at"]
            and phase["closes_at"]
            and phase["opens_at"] >= phase["closes_at"]
        ):
            r.error(p.line, "a phase must open before it closes")
        for t in r.get(p, "test_sets", list, []) or []:  # type: ignore[union-attr]
            files = r.get(t, "files", dict, {}) or {}
            for role, path in files.items():  # type: ignore[union-attr]
                if path not in names:
                    r.error(
                        t.value["files"].line,
                        f"file {path!r} (role {role}) is not in the bundle",
                    )  # type: ignore[union-attr]
            visibility = r.get(t, "visibility", str, TestSet.Visibility.PUBLIC)
            if visibility not in TestSet.Visibility.values:
                r.error(t.line, "visibility must be public or private")
            phase["test_sets"].append(  # type: ignore[attr-defined]
                {
                    "slug": r.get(t, "slug", str),
                    "name": r.get(t, "name", str),
                    "visibility": visibility,
                    "counts_for_ranking": r.get(t, "counts_for_ranking", bool, True),
                    "files": files,
                    "line": t.line,
                }
            )
        phases.append(phase)
    if r.problems:
        raise BundleError(r.problems)
    stored: list = []  # files written so far: deleted again if the import fails
    try:
        with transaction.atomic():
            task = SharedTask.objects.create(
                slug=slug, title=title, task_type=type_slug, task_settings=settings,
                description=r.get(root, "description", str, ""), state=state,
                requires_approval=r.get(root, "requires_approval", bool, False),
            )  # fmt: skip
            task.organisers.add(user)  # type: ignore[arg-type]
            for order, p in enumerate(phases):
                test_sets = p.pop("test_sets")
                phase = Phase.objects.create(task=task, order=order, **p)
                for ts_order, t in enumerate(test_sets):  # type: ignore[arg-type]
                    files, line = t.pop("files"), t.pop("line")
                    test_set = TestSet.objects.create(phase=phase, order=ts_order, **t)
                    # Inputs first: gold is checked against them.
                    roles = sorted(
                        files,
                        key=lambda role: role in {g.key for g in task_type.gold_roles},
                    )  # type: ignore[union-attr]
                    for role in roles:
                        path = files[role]
                        try:
                            stored_file, _ = datasets.store_file(
                                test_set=test_set,
                                role=role,
                                filename=path.rsplit("/", 1)[-1],
                                data=archives.read_member(opened, names[path]),
                            )
                            stored.append(stored_file)
                        except archives.ArchiveError as exc:
                            raise BundleError([Problem(path, None, str(exc))]) from None
                        except FormatError as exc:
                            raise BundleError(
                                [
                                    Problem(path, p.line, f"({role}) {p.message}")
                                    for p in exc.problems
                                ]
                            ) from None
                        except datasets.UnknownRole as exc:
                            raise BundleError(
                                [Problem(MANIFEST, line, str(exc))]
                            ) from None
    except BaseException as exc:
        datasets.delete_stored(stored)
        if not isinstance(exc, IntegrityError):
            raise
        raise BundleError(
            [
                Problem(
                    MANIFEST,
                    root.value["slug"].line,
                    f"a task {slug!r} already exists (or a slug repeats)",
                )
            ]
        ) from None  # type: ignore[union-attr]
    return task


def export_bundle(*, task: SharedTask) -> bytes:
    """The task as a bundle that ``import_bundle`` accepts (gold included: organisers
    only)."""
    buffer = io.BytesIO()
    manifest: dict[str, object] = {
        "slug": task.slug,
        "title": task.title,
        "description": task.description,
        "task_type": task.task_type,
        "settings": task.task_settings,
        "requires_approval": task.requires_approval,
        "state": task.state,
        "phases": [],
    }
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for phase in task.phases.all():
            test_sets = []
            for ts in phase.test_sets.all():
                files = {}
                for f in ts.files.all():
                    path = f"{phase.slug}/{ts.slug}/{f.role}/{f.original_name.rsplit('/', 1)[-1]}"
                    with f.file.open("rb") as handle:
                        archive.writestr(path, handle.read())
                    files[f.role] = path
                test_sets.append(
                    {
                        "slug": ts.slug,
                        "name": ts.name,
                        "visibility": ts.visibility,
                        "counts_for_ranking": ts.counts_for_ranking,
                        "files": files,
                    }
                )
            manifest["phases"].append(  # type: ignore[attr-defined]
                {
                    "slug": phase.slug,
                    "name": phase.name,
                    "opens": phase.opens_at.isoformat(),
                    "closes": phase.closes_at.isoformat(),
                    "daily_limit": phase.daily_limit,
                    "total_limit": phase.total_limit,
                    "failed_runs_count": phase.failed_runs_count,
                    "max_final_runs": phase.max_final_runs,
                    "test_sets": test_sets,
                }
            )
        archive.writestr(
            MANIFEST, yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True)
        )
    return buffer.getvalue()
