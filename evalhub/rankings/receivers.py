"""How rankings plugs into the core's flows (connected in ``RankingsConfig.ready``):
the Ladder as the core's score gate, the board statistics source, the statistics
refresh after every change of a test set's scores (and of its copies' after the
campaign, whose Ladder continues it), the ranking settings carried over to the
evaluation after the campaign, the boards following a
change of the phase's ranking settings, the bundle's ``ranking:`` section, and the
overview-paper package (its figures drawn by a worker; a link per phase on the
organiser dashboard), and the progress of a statistics refresh that recomputes
every run (a panel on the dashboard)."""

from __future__ import annotations

from django.db.models.signals import post_delete, post_save
from django.urls import reverse

from evalhub.competitions import signals
from evalhub.competitions.models import Phase, SharedTask, TestSet
from evalhub.competitions.services import phase_settings as core_settings
from evalhub.competitions.services.archive import parts as archive_parts
from evalhub.competitions.services.boards import (
    boardcache,
    leaderboard,
    ranking,
    refreshes,
    visibility,
)
from evalhub.rankings.models import (
    PairStatistics,
    PhaseRanking,
    RunStatistics,
    TestSetStatistics,
    TrackChart,
)
from evalhub.rankings.services import ranking_settings


def _scores_changed(*, test_set_id: int, **_: object) -> None:
    refreshes.request(kind=refreshes.STATISTICS, test_set_id=test_set_id)
    # The copies after the campaign continue this test set's Ladder.
    for copy in TestSet.objects.filter(copied_from_id=test_set_id).values_list(
        "pk", flat=True
    ):
        refreshes.request(kind=refreshes.STATISTICS, test_set_id=copy)


def _after_campaign_opened(*, phase: Phase, source: Phase, **_: object) -> None:
    """The evaluation after the campaign keeps the last phase's ranking settings:
    its Ladder continues on the same test data (``services/ladder.py``)."""
    ranking = PhaseRanking.objects.filter(phase=source).first()
    if ranking is not None:
        PhaseRanking.objects.update_or_create(
            phase=phase,
            defaults={name: getattr(ranking, name) for name in ranking_settings.FIELDS},
        )


def _ranking_changed(*, instance: PhaseRanking, **_: object) -> None:
    # The Ladder switched or its margin changed: the decisions are replayed.
    boardcache.invalidate_phase(phase=instance.phase_id)


def _dashboard_links(*, task: SharedTask, **_: object) -> tuple[str, list] | None:  # type: ignore[type-arg]
    links = [
        (
            f"{phase.name}: overview-paper package (zip)",
            reverse("rankings:package", args=[task.slug, phase.slug]),
        )
        for phase in task.phases.all()
    ]
    return ("Overview paper", links) if links else None


def _settings_links(*, task: SharedTask, **_: object) -> tuple[str, list] | None:  # type: ignore[type-arg]
    links = [
        (phase.name, reverse("console:ranking", args=[task.slug, phase.slug]))
        for phase in task.phases.all()
    ]
    return ("Ranking settings (Ladder, intervals)", links) if links else None


def _statistics_progress(*, task: SharedTask, **_: object) -> tuple[str, dict] | None:  # type: ignore[type-arg]
    """Test sets whose statistics are being recomputed run by run (new gold or
    settings): how far the worker is."""
    from evalhub.rankings.services import progress

    busy = progress.progress(task=task)
    return ("rankings/statistics_progress.html", {"rows": busy}) if busy else None


def _bundle_export(*, task: SharedTask, **_: object) -> tuple[str, dict] | None:  # type: ignore[type-arg]
    section = ranking_settings.export_section(task=task)
    return None if section is None else (ranking_settings.SECTION, section)


def _bundle_import(
    *, task: SharedTask, sections: dict, **_: object
) -> list[tuple[int, str]] | None:  # type: ignore[type-arg]
    if ranking_settings.SECTION not in sections:
        return None
    return ranking_settings.import_section(
        task=task, section=sections[ranking_settings.SECTION]
    )


def connect() -> None:
    from evalhub.rankings import jobs
    from evalhub.rankings.services import ladder, package, statistics

    package.register_preparer(lambda pk: jobs.prepare_package.delay(pk))
    signals.dashboard_links.connect(_dashboard_links, dispatch_uid="rk-package")
    signals.dashboard_links.connect(_settings_links, dispatch_uid="rk-settings")
    signals.dashboard_panels.connect(_statistics_progress, dispatch_uid="rk-progress")
    visibility.register_score_gate(ladder.LadderGate())
    ranking.register(ranking_settings.choice)
    core_settings.register(
        ranking_settings.SECTION,
        core_settings.Section(
            read=lambda phase: ranking_settings.as_values(phase=phase),
            write=lambda phase, values: ranking_settings.update(
                phase=phase, values=values
            ),
        ),
    )
    leaderboard.register_statistics(
        lambda ts, track_id: statistics.cached(test_set=ts, track_id=track_id)
    )
    refreshes.register(refreshes.STATISTICS, jobs.refresh_statistics)
    signals.scores_changed.connect(_scores_changed, dispatch_uid="rankings-refresh")
    signals.after_campaign_opened.connect(
        _after_campaign_opened, dispatch_uid="rk-after-campaign"
    )
    signals.bundle_export.connect(_bundle_export, dispatch_uid="rk-bundle-export")
    signals.bundle_import.connect(_bundle_import, dispatch_uid="rk-bundle-import")
    post_save.connect(_ranking_changed, sender=PhaseRanking, dispatch_uid="rk-save")
    archive_parts.register(
        archive_parts.Part(
            name="rankings",
            models=(
                PhaseRanking,
                TestSetStatistics,
                TrackChart,
                RunStatistics,
                PairStatistics,
            ),
            rows=lambda task: [
                *PhaseRanking.objects.filter(phase__task=task).order_by("pk"),
                *TestSetStatistics.objects.filter(test_set__phase__task=task).order_by(
                    "pk"
                ),
                *TrackChart.objects.filter(
                    statistics__test_set__phase__task=task
                ).order_by("pk"),
                # Each run's share and the pairs: an imported board's significance
                # page reads them instead of recomputing them in the request.
                *RunStatistics.objects.filter(test_set__phase__task=task).order_by(
                    "pk"
                ),
                *PairStatistics.objects.filter(test_set__phase__task=task).order_by(
                    "pk"
                ),
            ],
        )
    )
    post_delete.connect(_ranking_changed, sender=PhaseRanking, dispatch_uid="rk-del")
