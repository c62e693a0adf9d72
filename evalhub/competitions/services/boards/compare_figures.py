"""The compare page's figures: on each test set, the task type's comparison figures
(one per kind, as on the board) drawn over the compared runs whose scores the viewer
may see, every run in the same axes with a colour, dash and marker of its own and
named by its public label (``analyses.run_label``).

Which runs a figure draws is decided by the caller (``compare``, through
``visibility.visible``); a figure is cached under those runs and their
evaluations, so it is served only to a viewer who may see exactly those scores, and
drawn again when a run is rescored or renamed. A worker draws it
(``jobs.draw_compare_figures``): the web request only reads the cache and asks for a
drawing at most once a minute per set of runs, like the package's figures."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass

import kombu.exceptions
import redis.exceptions
from django.core.cache import cache

from evalhub.competitions.models import Evaluation, TestSet
from evalhub.competitions.services.boards import analyses
from evalhub.competitions.services.boards import figures as figures_area
from tasks.common import plotting

log = logging.getLogger(__name__)
DRAW_JOB = "evalhub.competitions.jobs.draw_compare_figures"
TIMEOUT = 7 * 24 * 3600
ASK_AGAIN_AFTER = 60  # seconds between two requests for the same drawing


@dataclass(frozen=True, slots=True)
class CompareFigure:
    key: str
    title: str
    has_narrow: bool
    #: Its logarithmic twin's key ("" if none): linked, not shown as well.
    log_key: str = ""


@dataclass(frozen=True, slots=True)
class Figures:
    #: The runs drawn, in the page's order.
    runs: tuple[int, ...]
    #: None while a worker draws them.
    figures: tuple[CompareFigure, ...] | None

    @property
    def pending(self) -> bool:
        return self.figures is None


def styles(evaluations: list[Evaluation]) -> dict[str, plotting.SeriesStyle]:
    """Run label -> its style: the n-th compared run takes the n-th colour and the
    n-th dash and marker, so two runs of one team never look alike."""
    return {
        analyses.run_label(ev.submission): plotting.SeriesStyle(
            plotting.PALETTE[i % len(plotting.PALETTE)], i
        )
        for i, ev in enumerate(evaluations)
    }


def _cache_key(test_set: TestSet, evaluations: list[Evaluation]) -> str:
    """What the figures rest on: the test set's data and settings, and each run's
    evaluation (a rescore writes a new one) and label, in order."""
    stamp = json.dumps(
        [
            test_set.pk,
            test_set.gold_version,
            test_set.phase.task.task_settings,
            [
                [ev.pk, ev.created_at.isoformat(), analyses.run_label(ev.submission)]
                for ev in evaluations
            ],
        ],
        sort_keys=True,
        default=str,
    )
    return "compare-figures:" + hashlib.sha256(stamp.encode()).hexdigest()


def _stored(test_set: TestSet, run_ids: list[int]) -> tuple[str, dict | None]:  # type: ignore[type-arg]
    """The cache key of these runs' figures and what it holds; reads the rows the
    key rests on, not the evaluations' outcomes (a web request's share)."""
    by_run = {
        ev.submission_id: ev
        for ev in Evaluation.objects.filter(
            test_set=test_set, submission_id__in=run_ids
        )
        .select_related("submission__team")
        .defer("payload", "curves", "warnings", "detail")
    }
    evaluations = [by_run[pk] for pk in run_ids if pk in by_run]
    key = _cache_key(test_set, evaluations)
    return key, cache.get(key)


def figures(*, test_set: TestSet, run_ids: list[int]) -> Figures:
    """The figures of ``run_ids`` (runs whose scores on the test set the viewer may
    see), or pending, a worker asked to draw them."""
    key, entry = _stored(test_set, run_ids)
    if entry is None:
        _request(key, test_set.pk, run_ids)
        return Figures(tuple(run_ids), None)
    return Figures(tuple(run_ids), _paired(entry["figures"]))


def _paired(drawn: dict) -> tuple[CompareFigure, ...]:  # type: ignore[type-arg]
    """The drawn figures in order, a log twin joined to its linear figure (as the
    board's figure area pairs them, ``figures.base_title``)."""
    linear: dict[str, str] = {}
    logs: dict[str, str] = {}
    for key, fig in drawn.items():
        title, log = figures_area.base_title(fig["title"])
        (logs if log else linear).setdefault(title, key)
    out = []
    for key, fig in drawn.items():
        title, log = figures_area.base_title(fig["title"])
        if log and title in linear:
            continue  # linked from its linear figure
        twin = "" if log else logs.get(title, "")
        out.append(CompareFigure(key, fig["title"], bool(fig["svg_narrow"]), twin))
    return tuple(out)


def figure(*, test_set: TestSet, run_ids: list[int], key: str) -> dict | None:  # type: ignore[type-arg]
    """One drawn figure (``title``, ``svg``, ``svg_narrow``, ``points``), None if it
    is not drawn (yet)."""
    _, entry = _stored(test_set, run_ids)
    return None if entry is None else entry["figures"].get(key)


def _request(key: str, test_set_id: int, run_ids: list[int]) -> None:
    if not cache.add(f"{key}:asked", 1, ASK_AGAIN_AFTER):
        return
    from evalhub.competitions import queue

    try:
        queue.job(DRAW_JOB).delay(test_set_id, run_ids)
    except (kombu.exceptions.OperationalError, redis.exceptions.RedisError, OSError):
        log.warning("broker unavailable; compare figures asked again on next view")
        cache.delete(f"{key}:asked")


def draw(*, test_set_id: int, run_ids: list[int]) -> int:
    """Draw and cache the figures of these runs on the test set (a worker job; the
    caller chose the runs). Returns how many figures were drawn."""
    test_set = (
        TestSet.objects.select_related("phase__task").filter(pk=test_set_id).first()
    )
    if test_set is None:
        return 0
    evaluations = analyses.evaluations_of(test_set, run_ids)
    key = _cache_key(test_set, evaluations)
    task = test_set.phase.task
    with (
        plotting.series_styles(styles(evaluations)),
        plotting.collecting_points() as points,
    ):
        drawn = analyses._isolated(  # noqa: SLF001 - the board's own guard
            lambda runs: task.type.comparison_plots(runs, task.parsed_settings()),
            evaluations,
            f"compare figures of test set {test_set_id}",
        )
    plots = drawn[0] if drawn is not None else ()
    entry = {
        "figures": {
            plot.key: {
                "title": plot.title,
                "svg": plot.svg,
                "svg_narrow": plot.svg_narrow or b"",
                "points": [list(p) for p in points.get(plot.key, [])],
            }
            for plot in plots
        }
    }
    cache.set(key, entry, TIMEOUT)
    return len(plots)
