"""Task bundles: a whole shared task as one zip (``task.yaml`` + data files), to
create a task without a shell and to move or archive one.

``task.yaml``::

    slug: my-task
    title: My task
    description: |            # Markdown, up to 50,000 characters
      ...
    task_type: bilingual_term_alignment
    settings: {cap_policy: reject}
    requires_approval: false
    state: published          # draft (default), published or archived
    gold_released: false      # per-item outcomes and gold files public (default false)
    phases:
      - slug: evaluation
        name: Evaluation
        opens: 2026-01-01T00:00:00Z
        closes: 2026-02-01T00:00:00Z
        daily_limit: 5
        total_limit: 100
        failed_runs_count: false
        max_final_runs: 1         # final runs a team picks (0: every run counts)
        order: 0                  # phases and test sets are listed by it (default:
                                  # their place in the list)
        limits_per_track: false   # limits per track (true) or shared (false)
        after_campaign: false     # evaluation after the campaign: ranked apart
        tracks:                   # optional; with tracks every run names one
          - slug: closed
            name: Closed
            description: only the provided training data   # plain text
        test_sets:
          - slug: test
            name: Test
            visibility: public    # or private
            revealed: false       # a private test set's scores shown to everyone
            counts_for_ranking: true
            order: 0
            files:                # role: path inside the zip
              source_terms: test/source_terms.txt
              gold: test/gold.tsv
    factsheet:                    # feature apps' sections (signals.bundle_import)
      - key: external-data
        question: External data used?
        kind: yes_no              # yes_no, choice, number, text, url
        required: true
        on_leaderboard: true
    ranking:                      # a phase's ranking settings (the rankings app)
      evaluation:                 # phase slug
        metric: f1                # one the task type ranks by; empty: its primary
        columns: [f1, ap]         # the board's columns in order; empty: the type's
        overall: mean             # mean or average_rank
        ladder: true
        ladder_margin: 1.0        # 0 to 10 standard errors
        bootstrap_samples: 1000   # 100 to 20,000
        seed: 0
        alpha: 0.05               # 0.001 to 0.5

Every problem is reported with ``task.yaml`` and its line, or with the data file's name
and line when the task type rejects the file; nothing is created unless all is valid.
The zip is opened and its members inflated under the same limits as a zipped run
(``evalhub/competitions/archives.py``: sizes a member and in all, the inflation ratio,
safe names), counted while reading.
"""

from __future__ import annotations

import io
import re
import zipfile
from datetime import datetime

import yaml
from django.db import IntegrityError, transaction

from evalhub.competitions import archives, markdown, signals
from evalhub.competitions.models import Phase, SharedTask, TestSet, Track
from evalhub.competitions.services.data import datasets
from evalhub.competitions.services.data.bundle_yaml import (
    MANIFEST,
    Reader,
    Value,
    plain,
)
from tasks import registry
from tasks.base import FormatError, Problem, SettingsError


class BundleError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems[:5]))


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
        root = plain(yaml.compose(manifest.decode("utf-8")))
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
    r = Reader()
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
    for p_index, p in enumerate(r.get(root, "phases", list, []) or []):  # type: ignore[union-attr]
        phase = {
            "order": r.get(p, "order", int, p_index),
            "slug": r.get(p, "slug", str),
            "name": r.get(p, "name", str),
            "opens_at": r.get(p, "opens", datetime),
            "closes_at": r.get(p, "closes", datetime),
            "daily_limit": r.get(p, "daily_limit", int, 5),
            "total_limit": r.get(p, "total_limit", int, 100),
            "failed_runs_count": r.get(p, "failed_runs_count", bool, False),
            "max_final_runs": r.get(p, "max_final_runs", int, 1),
            "limits_per_track": r.get(p, "limits_per_track", bool, False),
            "after_campaign": r.get(p, "after_campaign", bool, False),
            "tracks": _tracks(r, p),
            "test_sets": [],
        }
        if (
            phase["opens_at"]
            and phase["closes_at"]
            and phase["opens_at"] >= phase["closes_at"]
        ):
            r.error(p.line, "a phase must open before it closes")
        for t_index, t in enumerate(r.get(p, "test_sets", list, []) or []):  # type: ignore[union-attr]
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
                    "revealed": r.get(t, "revealed", bool, False),
                    "counts_for_ranking": r.get(t, "counts_for_ranking", bool, True),
                    "order": r.get(t, "order", int, t_index),
                    "files": files,
                    "line": t.line,
                }
            )
        phases.append(phase)
    description = r.get(root, "description", str, "")
    if isinstance(description, str):
        try:
            markdown.check(description, what="'description'")
        except markdown.MarkdownRefused as exc:
            r.error(root.value["description"].line, str(exc))  # type: ignore[union-attr]
    if r.problems:
        raise BundleError(r.problems)
    stored: list = []  # files written so far: deleted again if the import fails
    try:
        with transaction.atomic():
            task = SharedTask.objects.create(
                slug=slug, title=title, task_type=type_slug, task_settings=settings,
                description=description, state=state,
                requires_approval=r.get(root, "requires_approval", bool, False),
                gold_released=r.get(root, "gold_released", bool, False),
                owner=user,
            )  # fmt: skip
            task.organisers.add(user)  # type: ignore[arg-type]
            for p in phases:
                test_sets, phase_tracks = p.pop("test_sets"), p.pop("tracks")
                phase = Phase.objects.create(task=task, **p)
                for track_order, track in enumerate(phase_tracks):  # type: ignore[arg-type]
                    Track.objects.create(phase=phase, order=track_order, **track)
                for t in test_sets:  # type: ignore[attr-defined]
                    files, line = t.pop("files"), t.pop("line")
                    test_set = TestSet.objects.create(phase=phase, **t)
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
            # Feature apps' sections (e.g. the fact sheet): their problems undo it all.
            extra = [
                Problem(MANIFEST, line, message)
                for _, answer in signals.bundle_import.send(
                    sender=SharedTask, task=task, sections=root.value
                )
                for line, message in answer or ()
            ]
            if extra:
                raise BundleError(extra)
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


def _tracks(r: Reader, phase: Value) -> list[dict[str, object]]:
    """A phase's ``tracks``: slug (unique in the phase), name, description."""
    found: list[dict[str, object]] = []
    for t in r.get(phase, "tracks", list, []) or []:  # type: ignore[union-attr]
        slug = r.get(t, "slug", str)
        if isinstance(slug, str) and not _SLUG.fullmatch(slug):
            r.error(t.line, f"track slug {slug!r}: letters, digits, '-' and '_' only")
        elif slug is not None and slug in {f["slug"] for f in found}:
            r.error(t.line, f"track {slug!r} appears twice in the phase")
        found.append(
            {
                "slug": slug,
                "name": r.get(t, "name", str),
                "description": r.get(t, "description", str, ""),
            }
        )
    return found


_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,50}")


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
        "gold_released": task.gold_released,
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
                        "revealed": ts.revealed,
                        "counts_for_ranking": ts.counts_for_ranking,
                        "order": ts.order,
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
                    "limits_per_track": phase.limits_per_track,
                    "after_campaign": phase.after_campaign,
                    "tracks": [
                        {"slug": t.slug, "name": t.name, "description": t.description}
                        for t in phase.tracks.all()
                    ],
                    "order": phase.order,
                    "test_sets": test_sets,
                }
            )
        for _, answer in signals.bundle_export.send(sender=SharedTask, task=task):
            if answer is not None and answer[0] not in manifest:
                manifest[answer[0]] = answer[1]
        archive.writestr(
            MANIFEST, yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True)
        )
    return buffer.getvalue()
