"""How the test processes share the suite (a plugin of ``tests/conftest.py``): how
many there are for ``-n auto``, and in which order they take the modules."""

from __future__ import annotations

import os
import re

import pytest


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


#: The fixtures that drive Chromium.
BROWSER_FIXTURES = frozenset(("browser", "page"))

#: Fixtures that start real processes (a Celery worker, a live server, Chromium, the
#: sign-in tests' OpenID Connect provider).
_PROCESSES = BROWSER_FIXTURES | {"worker", "own_worker", "live_server", "oidc_provider"}


#: The modules that start no process but whose tests take more than a few seconds
#: of CPU all together (five or more on a 2-core machine running the quick tier:
#: they draw the figures of finished campaigns, crawl every address for every role,
#: search many random cases or compare with a reference library on real data).
#: Marked ``slow``: the quick tier leaves them out with the tests that start
#: processes. The whole suite runs them.
SLOW = frozenset(
    (
        "tests/annotations/test_done_when.py",
        "tests/annotations/test_finite_numbers.py",
        "tests/annotations/test_probe_sets.py",
        "tests/annotations/test_services.py",
        "tests/api/test_exports.py",
        "tests/api/test_user_text.py",
        "tests/competitions/test_after_campaign.py",
        "tests/competitions/test_after_campaign_ladder.py",
        "tests/competitions/test_analyses_redrawn.py",
        "tests/competitions/test_archive.py",
        "tests/competitions/test_archive_checks.py",
        "tests/competitions/test_archive_site.py",
        "tests/competitions/test_big_boards.py",
        "tests/competitions/test_board_herds.py",
        "tests/competitions/test_board_layout.py",
        "tests/competitions/test_boards_rendered_ahead.py",
        "tests/competitions/test_bombs_live.py",
        "tests/competitions/test_compare_figures.py",
        "tests/competitions/test_figure_colours.py",
        "tests/competitions/test_figure_data.py",
        "tests/competitions/test_figure_legends.py",
        "tests/competitions/test_leaderboard_page_cache.py",
        "tests/competitions/test_leaks.py",
        "tests/competitions/test_markdown_migration.py",
        "tests/competitions/test_offline_commands.py",
        "tests/competitions/test_queue_threads.py",
        "tests/competitions/test_where_am_i.py",
        "tests/console/test_runs_page.py",
        "tests/deploy/test_email_settings.py",
        "tests/deploy/test_storage_settings.py",
        "tests/participation/test_archive.py",
        "tests/participation/test_permissions.py",
        "tests/participation/test_roster.py",
        "tests/rankings/test_commit_races.py",
        "tests/rankings/test_figure_data.py",
        "tests/rankings/test_incremental_board.py",
        "tests/rankings/test_incremental_statistics.py",
        "tests/rankings/test_ladder_guarantees.py",
        "tests/rankings/test_ladder_property.py",
        "tests/rankings/test_package.py",
        "tests/rankings/test_package_latex.py",
        "tests/rankings/test_package_tracks.py",
        "tests/rankings/test_predicates_answer.py",
        "tests/rankings/test_statistics.py",
        "tests/rankings/test_statistics_units.py",
        "tests/rankings/test_track_figures.py",
        "tests/rankings/test_tracks_pipeline.py",
        "tests/rankings/test_visibility_rule.py",
        "tests/reliability/test_heartbeat.py",
        "tests/reliability/test_security.py",
        "tests/task_types/bilingual_term_alignment/test_task.py",
        "tests/task_types/common/test_figure_text.py",
        "tests/task_types/common/test_one_form.py",
        "tests/task_types/common/test_resampling_references.py",
        "tests/task_types/common/test_sacrebleu_reference.py",
        "tests/task_types/mt_lexicon_probe/test_builder.py",
        "tests/task_types/mt_lexicon_probe/test_fuzz.py",
        "tests/task_types/mt_lexicon_probe/test_phone_figure.py",
        "tests/task_types/mt_lexicon_probe/test_probes.py",
        "tests/task_types/mt_lexicon_probe/test_task.py",
        "tests/task_types/sentence_alignment/test_fuzz.py",
        "tests/task_types/term_extraction/test_exact.py",
        "tests/task_types/term_extraction/test_fuzz.py",
        "tests/test_architecture.py",
        "tests/test_permission_matrix.py",
        "tests/test_permission_matrix_annotations.py",
        "tests/test_permission_matrix_posts.py",
    )
)


#: The modules whose tests start real processes (Celery workers, a private Redis,
#: a second node; no browser) and then mostly wait on them: a scorer that sleeps or
#: hangs until its time limit, a heartbeat going stale, a service restarted. Alone,
#: each took 1.7 to 5 times as long as its CPU (``bench/README.md``). With ``--dist loadfile``
#: they run one after the other in one test process of their own, one more than
#: the cores (``-n auto``), while the others keep the cores busy; spread over the
#: others, the cores idled while they waited. No BROWSER_FIXTURES: that process
#: would start a Chromium of its own (``tests/test_quick_tier.py`` checks).
WAITING = frozenset(
    (
        "tests/api/test_cli.py",
        "tests/api/test_organiser_cli.py",
        "tests/competitions/test_upload_bounds.py",
        "tests/deploy/test_two_nodes.py",
        "tests/e2e/test_archive_export.py",
        "tests/e2e/test_fifth_task_type.py",
        "tests/e2e/test_pipeline.py",
        "tests/reliability/test_archive_export_killed.py",
        "tests/reliability/test_broker_restart.py",
        "tests/reliability/test_figure_priority.py",
        "tests/reliability/test_queues.py",
        "tests/reliability/test_redis_outage.py",
        "tests/reliability/test_supervised_worker.py",
        "tests/reliability/test_worker_faults.py",
        "tests/reliability/test_worker_priority.py",
    )
)

#: The name of the unit of work (pytest-xdist's "scope") the WAITING modules make.
WAITING_SCOPE = "the modules waiting on their processes"


def _starts_processes(item: pytest.Item) -> bool:
    return bool(
        item.get_closest_marker("e2e")
        or _PROCESSES.intersection(getattr(item, "fixturenames", ()))
    )


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(items: list[pytest.Item]):  # noqa: ANN201
    """Before ``-m`` deselects by marker: the tests that start real processes are
    marked ``processes``, those of the ``SLOW`` modules ``slow``, and every other
    test ``quick``: the quick tier, ``pytest -m quick``.

    Then, after every other plugin (pytest-django's own sorting included): the
    WAITING modules first (one unit of work, the first handed out), then the
    other modules whose tests start real processes, then the slow ones.
    pytest-xdist hands out whole modules (``--dist loadfile``) in this order, and
    those are the long ones: started first, the many short modules fill the
    other processes meanwhile and at the end, instead of one long module running
    alone while the other cores have nothing left to do."""
    for item in items:
        if _starts_processes(item):
            item.add_marker("processes")
        if _module(item) in SLOW:
            item.add_marker("slow")
        if not (
            item.get_closest_marker("processes") or item.get_closest_marker("slow")
        ):
            item.add_marker("quick")
    result = yield
    first = {_module(item) for item in items if item.get_closest_marker("processes")}
    slow = {_module(item) for item in items if item.get_closest_marker("slow")}
    # A stable sort: within each part the order stays as it was.
    items.sort(
        key=lambda item: (
            _module(item) not in WAITING,
            _module(item) not in first,
            _module(item) not in slow,
        )
    )
    return result


def pytest_xdist_make_scheduler(config: pytest.Config, log):  # noqa: ANN001, ANN201
    """With ``--dist loadfile`` (the suite's): whole modules as before, but the
    ``WAITING`` modules together, as one unit of work, the first one handed out."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            return WAITING_SCOPE if module in WAITING else module

    return Scheduling(config, log)


def _may_wait(config: pytest.Config) -> bool:
    """Whether the run may hold the WAITING modules: no ``-m`` (the whole suite), or
    one that asks for the tests that start processes (not the quick tier, nor
    ``-m slow`` or ``-m "not processes"``)."""
    expr = (config.getoption("markexpr", "") or "").strip()
    return not expr or any(
        re.search(rf"(?<!not )\b{marker}\b", expr) for marker in ("processes", "e2e")
    )


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one test process per core, and one more for the WAITING modules
    when the run may hold them.

    Each test process pays its own start, collection, test database, Celery
    worker, seeded demo site and Chromium: a third process on two cores taking
    modules like the others cost more than it filled, two processes taking 4 % to
    18 % less CPU than three, by machine. The process of the WAITING modules runs
    no browser and seeds no demo site; it mostly waits, on cores the others keep
    busy meanwhile (``bench/README.md``)."""
    cores = os.cpu_count() or 1
    return cores + 1 if _may_wait(config) else cores
