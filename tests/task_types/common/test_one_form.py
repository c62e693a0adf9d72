"""A form of a figure drawn alone (``plotting.render``'s ``only``: a request that
asks for one form draws that one) is byte for byte the form drawn with the
others: the SVG, the PNG and the phone's SVG, for every figure of a task type's
demo run and of the comparison of two (the MT probe's: bars, a table, panels in
a row; sentence alignment's: bars and curves with a legend)."""

from __future__ import annotations

import pickle

import pytest

from tasks import registry
from tasks.common import plotting
from tasks.pages import RunDetail
from tests.task_types.common.demo_runs import demo_reports


@pytest.mark.parametrize("slug", ["mt_lexicon_probe", "sentence_alignment"])
def test_a_form_drawn_alone_is_the_form_drawn_with_the_others(slug, monkeypatch):  # noqa: ANN001
    render = plotting.render
    compared: list[tuple[str, str]] = []

    def each_form_alone(key, title, fig, **options):  # noqa: ANN001, ANN003, ANN202
        copies = {form: pickle.loads(pickle.dumps(fig)) for form in plotting.FORMS}
        whole = render(key, title, fig, **options)
        drawn = {"svg": whole.svg, "png": whole.png, "narrow.svg": whole.svg_narrow}
        for form, copy in copies.items():
            one = render(key, title, copy, only=form, **options)
            alone = {"svg": one.svg, "png": one.png, "narrow.svg": one.svg_narrow}
            assert alone[form] == drawn[form], (key, form)
            assert not any(v for f, v in alone.items() if f != form), (key, form)
            compared.append((key, form))
        return whole

    monkeypatch.setattr(plotting, "render", each_form_alone)
    tt = registry.get(slug)
    settings = tt.parse_settings(tt.demo(seed=0).settings)
    reports = demo_reports(slug)[:2]
    tt.plots(reports[0][2], settings)
    runs = [
        RunDetail(f"{method} (run #{i})", r.detail, r.curves, r.metrics)
        for i, (_, method, r) in enumerate(reports)
    ]
    tt.comparison_plots(runs, settings)
    assert len({key for key, _ in compared}) >= 3, compared
