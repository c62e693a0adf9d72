"""The MT-probe run figure on a phone (issue 43 item 10): its four panels, one
row wide, left each panel too narrow for the high / medium / low labels, which
printed on top of each other. Drawn through the task's figure and the common
rendering (``plotting.render`` draws the phone version last)."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from tasks.common import narrow
from tasks.mt_lexicon_probe import plots
from tasks.mt_lexicon_probe.probes import FreqClass
from tasks.mt_lexicon_probe.scoring import GROUPS, MEASURES


@pytest.fixture
def phone_figure(monkeypatch):  # noqa: ANN001, ANN201
    """The figure as ``narrow_svg`` left it (the phone version's layout)."""
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
    plot = plots.run_bars(payload)
    assert plot.svg_narrow
    (fig,) = drawn
    return fig


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
    assert len(boxes) == len(GROUPS) * len(FreqClass)
    overlapping = [
        (a, b)
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a.overlaps(b) and a.width > 0 and b.width > 0
    ]
    assert not overlapping, overlapping
    # Everything inside the phone's figure.
    assert all(box.x0 >= 0 and box.x1 <= fig.bbox.x1 + 0.5 for box in boxes)
