"""Every figure kind of every task type (a run's figures, the leaderboard's
comparison figures, the task-level analysis' figures; every curve with a linear
and with a log x axis; as drawn for a desktop and for a phone), drawn from the demo
runs under a team name that mathtext would read: every tick label is a number (or a category's name), no mathtext
appears outside the user's text, and the user's text is drawn as written."""

from __future__ import annotations

import pytest

from tasks import registry
from tasks.common import plotting
from tasks.pages import Plot, RunDetail
from tests.figure_text import USER_NAME, problems, tick_labels
from tests.task_types.common.demo_runs import demo_reports

SLUGS = sorted(registry.REGISTRY)


def _figures(slug: str) -> list[Plot]:
    tt = registry.get(slug)
    demo = tt.demo(seed=0)
    settings = tt.parse_settings(demo.settings)
    reports = demo_reports(slug)
    first_set = reports[0][0]
    runs = [
        RunDetail(
            label=f"{USER_NAME} {i} {method}" if i % 2 == 0 else f"_{method} {i}",
            detail=report.detail,
            curves=report.curves,
            metrics=report.metrics,
        )
        for i, (test_set, method, report) in enumerate(reports)
        if test_set == first_set
    ]
    figures: list[Plot] = []
    for _, _, report in reports:
        figures += tt.plots(report, settings)
        for curve in report.curves:
            figures += [plotting.curve_plot(curve, log_x=log) for log in (False, True)]
    figures += tt.comparison_plots(runs, settings)
    inputs = tt.parse_inputs(demo.test_sets[0].inputs, settings)
    gold = tt.parse_gold(demo.test_sets[0].gold, inputs, settings)
    analysis = tt.analyse(runs, gold, settings)
    if analysis is not None:
        figures += analysis.plots
    return figures


@pytest.mark.parametrize("slug", SLUGS)
def test_every_figure_has_numbers_as_ticks_and_user_text_as_written(slug):  # noqa: ANN001
    figures = _figures(slug)
    assert figures
    found = [
        f"{p.key}{' (narrow)' if svg is p.svg_narrow else ''}: {problem}"
        for p in figures
        for svg in (p.svg, p.svg_narrow)
        for problem in problems(svg)
    ]
    assert not found, "\n".join(found)
    assert all(p.svg_narrow for p in figures)  # every figure, also for phones


def test_a_log_axis_is_labelled_with_plain_numbers():
    (_, _, report), *_ = demo_reports("bilingual_term_alignment")
    curve = report.curves[0]
    plot = plotting.curve_plot(curve, log_x=True)
    labels = tick_labels(plot.svg)
    assert "1" in labels and "10" in labels and "100" in labels, labels
    assert not problems(plot.svg)


def test_the_user_text_is_drawn_and_listed_as_written():
    (_, _, report), *_ = demo_reports("bilingual_term_alignment")
    runs = [
        RunDetail(USER_NAME, report.detail, report.curves, report.metrics),
        RunDetail("other", report.detail, report.curves, report.metrics),
    ]
    with plotting.collecting_points() as points:
        plots = plotting.overlay_plots(runs)
    assert plots and not problems(plots[0].svg)
    assert USER_NAME.encode() in plots[0].svg  # the string matplotlib drew
    series = {label for rows in points.values() for _, label, _, _ in rows}
    assert USER_NAME in series
