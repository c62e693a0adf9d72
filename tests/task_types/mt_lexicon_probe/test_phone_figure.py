"""The MT-probe figures on a phone (issue 43 item 10): the run figure's four
panels, one row wide, left each panel too narrow for the high / medium / low
labels, which printed on top of each other; the comparison's bar charts slanted
the runs' long names under their bars, on top of each other too (now numbered,
the names in a key below). Drawn through the task's figures and the common
rendering (``plotting.render`` draws the phone version last)."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from tasks.base import RunDetail
from tasks.common import narrow
from tasks.mt_lexicon_probe import plots
from tasks.mt_lexicon_probe.probes import FreqClass
from tasks.mt_lexicon_probe.scoring import GROUPS, MEASURES

#: Two runs named as the demo's are on its compare page.
RUNS = [
    RunDetail(
        f"Demo team {team} 4: {size} lexicon (run #{n})",
        {},
        (),
        {f"{m}_{fc.value}_mean": 0.5 for m in MEASURES for fc in FreqClass},
    )
    for team, size, n in (("A", "wide", 10), ("B", "small", 11))
]


@pytest.fixture(params=["run", "systems", "gap"])
def phone_figure(request, monkeypatch):  # noqa: ANN001, ANN201
    """A figure as ``narrow_svg`` left it (the phone version's layout): the run
    figure, the comparison's first chart per frequency class, its gap chart."""
    drawn: list[Figure] = []
    real = narrow.narrow_svg

    def keep(fig: Figure) -> bytes:
        svg = real(fig)
        drawn.append(fig)
        return svg

    monkeypatch.setattr(narrow, "narrow_svg", keep)
    payload = {
        m: {g: {fc.value: 0.5 for fc in FreqClass} for g in GROUPS} for m in MEASURES
    }
    if request.param == "run":
        made = (plots.run_bars(payload),)
    elif request.param == "systems":
        made = plots.systems_by_frequency(RUNS)
    else:
        made = (plots.gap(RUNS),)
    assert all(plot.svg_narrow for plot in made)
    return drawn[0]


def test_phone_figure_tick_labels_do_not_overlap(phone_figure: Figure) -> None:
    fig = phone_figure
    FigureCanvasAgg(fig)
    fig.draw_without_rendering()  # as saved: laid out again by its layout engine
    renderer = fig.canvas.get_renderer()
    boxes = [
        label.get_window_extent(renderer)
        for ax in fig.axes
        for label in ax.get_xticklabels()
        if label.get_text() and label.get_visible()
    ]
    assert len(boxes) == len(fig.axes[0].get_xticks()) * len(fig.axes)
    assert len(boxes) > 1
    overlapping = [
        (a, b)
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a.overlaps(b) and a.width > 0 and b.width > 0
    ]
    assert not overlapping, overlapping
    # Everything inside the phone's figure.
    assert all(box.x0 >= 0 and box.x1 <= fig.bbox.x1 + 0.5 for box in boxes)
    # Every text as large as a phone needs, and inside the figure; a run's
    # name is shown whole (under its bar, or in the key beside its number).
    # (tick labels apart: some of them are out of the axes' view, never drawn)
    ticks = {
        id(t) for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()
    }
    texts = [
        t
        for t in fig.findobj(Text)
        if t.get_text() and t.get_visible() and id(t) not in ticks
    ]
    assert all(t.get_fontsize() >= narrow.MIN_FONT for t in texts)
    for t in texts:
        box = t.get_window_extent(renderer)
        assert box.x0 >= -0.5 and box.x1 <= fig.bbox.x1 + 0.5, t.get_text()
        assert box.y0 >= -0.5 and box.y1 <= fig.bbox.y1 + 0.5, t.get_text()
    shown = " ".join(t.get_text().replace("\n", " ") for t in texts)
    if len(fig.axes) == 1:
        for run in RUNS:
            assert run.label in shown
