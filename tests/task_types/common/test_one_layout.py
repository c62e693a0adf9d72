"""A figure is laid out once for its SVG, PNG and PDF (``figure_text.laid_out``):
``savefig`` would lay it out again for each format, a draw of its own each time.
The phone's figure, drawn at its own size, is laid out once more."""

from __future__ import annotations

import uuid

import pytest
from matplotlib.layout_engine import ConstrainedLayoutEngine

from tasks import registry
from tasks.common import plotting
from tasks.common.narrow import NARROW_WIDTH
from tests.task_types.common.demo_runs import demo_reports


def _sizes(monkeypatch, cls: type, name: str, figure) -> list[tuple[float, float]]:  # noqa: ANN001
    """The figure's size at each call of ``cls.name`` (``figure(args)`` finds the
    figure among the call's arguments)."""
    done: list[tuple[float, float]] = []
    method = getattr(cls, name)

    def counted(*args):  # noqa: ANN002, ANN202
        done.append(tuple(figure(args).get_size_inches()))
        return method(*args)

    monkeypatch.setattr(cls, name, counted)
    return done


@pytest.fixture
def layouts(monkeypatch):  # noqa: ANN001, ANN201
    """The size of the figure at each run of its layout engine."""
    return _sizes(monkeypatch, ConstrainedLayoutEngine, "execute", lambda a: a[1])


@pytest.fixture
def draws(monkeypatch):  # noqa: ANN001, ANN201
    """The size of the figure at each draw (each save, each draw without rendering)."""
    from matplotlib.figure import Figure

    return _sizes(monkeypatch, Figure, "draw", lambda a: a[0])


def test_the_svg_png_and_pdf_share_one_layout_and_the_phone_figure_has_its_own(
    layouts,  # noqa: ANN001
):
    fig = plotting.new_figure()
    ax = fig.add_subplot()
    ax.plot([1, 10, 100], [0.2, 0.5, 0.9], label="a team")
    ax.set_xscale("log")
    ax.set_title(f"F{uuid.uuid4().hex[:8]}")  # drawn anew, not handed out again
    ax.legend()
    with plotting.collecting_pdfs() as pdfs:
        plot = plotting.render("curve", "Curve", fig)
    assert plot.svg.startswith(b"<?xml") and plot.png.startswith(b"\x89PNG")
    assert plot.svg_narrow and next(iter(pdfs.values())).startswith(b"%PDF")
    wide = [size for size in layouts if size[0] > NARROW_WIDTH]
    narrow = [size for size in layouts if size[0] <= NARROW_WIDTH]
    assert len(wide) == 1, layouts  # was one per format: PDF, SVG and PNG
    assert len(narrow) == 1, layouts
    # The layout engine is back: the figure lays itself out if drawn again.
    assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)


def test_a_pdf_is_not_laid_out_again_after_the_text_was_fitted(layouts):  # noqa: ANN001
    """A title too long for the figure is wrapped to fit, measured on the laid-out
    figure (``fit``); the PDF is saved with that layout, not laid out once more."""
    from tasks.common.figure_text import protect

    def figure():  # noqa: ANN202
        fig = plotting.new_figure()
        ax = fig.add_subplot()
        ax.plot([1, 2, 3], [0.2, 0.5, 0.9])
        ax.set_title("A very long title of a figure " * 4 + uuid.uuid4().hex[:8])
        return fig

    protect(figure())
    fitting = len(layouts)
    assert fitting >= 1  # the title does not surely fit: it was measured
    layouts.clear()
    assert plotting.render_pdf(figure()).startswith(b"%PDF")
    assert len(layouts) == fitting, layouts  # was one more, the save's own


def test_a_figure_whose_text_fits_is_drawn_once_per_file(draws):  # noqa: ANN001
    """Its layout is the engine's alone: the SVG, the PNG and the phone's SVG are
    three draws (laying out by drawing without rendering was one more draw for the
    wide figure and one for the phone's, each as dear as a save)."""
    fig = plotting.new_figure()
    ax = fig.add_subplot()
    ax.plot([1, 10, 100], [0.2, 0.5, 0.9], label="a team")
    ax.set_xscale("log")
    ax.set_title(f"F{uuid.uuid4().hex[:8]}")  # drawn anew, not handed out again
    ax.legend()
    plot = plotting.render("curve", "Curve", fig)
    assert plot.svg and plot.png and plot.svg_narrow
    assert len([s for s in draws if s[0] > NARROW_WIDTH]) == 2, draws  # SVG, PNG
    assert len([s for s in draws if s[0] <= NARROW_WIDTH]) == 1, draws


def test_a_title_too_long_is_wrapped_to_fit_without_drawing_the_figure(draws):  # noqa: ANN001
    """``fit`` measures the title on the engine's layout with titles and labels
    placed as a draw places them; the wrapped title lies inside the figure when it
    is drawn."""
    from tasks.common.figure_text import protect

    fig = plotting.new_figure()
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], [0.2, 0.5, 0.9])
    ax.set_title("A very long title of a figure " * 4 + uuid.uuid4().hex[:8])
    protect(fig)
    assert draws == [], draws  # measured without a draw (was one per measure)
    assert "\n" in ax.get_title()
    fig.canvas.draw()
    extent, box = ax.title.get_window_extent(), fig.bbox
    assert box.x0 <= extent.x0 and extent.x1 <= box.x1


def test_the_phone_figure_is_measured_for_crowded_ticks_on_the_layout_fit_left(
    layouts,  # noqa: ANN001
):
    """A bar chart of named runs with a title too long for a phone: ``fit`` lays
    the phone's figure out to wrap the title (and once more to check it) and says
    the figure is laid out as it is; the crowded-ticks check and the save use that
    layout (laying out again for the check was one more layout, and the save one
    more). A change after it (the ticks numbered) still lays it out anew."""
    fig = plotting.new_figure()
    ax = fig.add_subplot()
    ax.bar(["run a", "run b"], [0.4, 0.6])
    ax.set_title("A long title over the bars of two runs " + uuid.uuid4().hex[:8])
    plot = plotting.render("bars", "Bars", fig)
    assert plot.svg_narrow
    narrow = [size for size in layouts if size[0] <= NARROW_WIDTH]
    assert len(narrow) == 2, layouts  # fit's layout and its check; was 4

    crowded = plotting.new_figure()
    ax = crowded.add_subplot()
    names = [f"a long run name number {i} {uuid.uuid4().hex[:6]}" for i in range(6)]
    ax.bar(names, range(6))
    ax.tick_params(axis="x", labelrotation=30)
    layouts.clear()
    plotting.render("many", "Many bars", crowded)
    numbered = [t.get_text() for t in crowded.axes[0].get_xticklabels()]
    assert numbered == ["1", "2", "3", "4", "5", "6"]  # crowded: named in a key
    narrow = [size for size in layouts if size[0] <= NARROW_WIDTH]
    # Measured for crowding on one layout, then laid out anew once numbered (the
    # key under the panel makes the figure taller).
    assert len(narrow) == 2, layouts
    assert narrow[1][1] > narrow[0][1], layouts


def test_panels_placed_in_rows_for_a_phone_are_not_laid_out_again(
    layouts,  # noqa: ANN001
    monkeypatch,  # noqa: ANN001
):
    """The MT probe's run figure (its panels in one row) drawn for a phone: the
    panels are placed two to a row and laid out to look for labels printed on top
    of each other; that layout is the one the labels are numbered on (when they
    are) and the figure is saved with, not laid out once more. Two layouts at the
    phone's width: ``fit``'s and the placing's (three before)."""
    real = getattr(plotting.render, "__wrapped__", plotting.render)
    monkeypatch.setattr(plotting, "render", real)  # drawn here, not handed out
    tt = registry.get("mt_lexicon_probe")
    settings = tt.parse_settings(tt.demo(seed=0).settings)
    plots = tt.plots(demo_reports("mt_lexicon_probe")[0][2], settings)
    assert len(plots) == 1 and plots[0].svg_narrow
    narrow = [size for size in layouts if size[0] <= NARROW_WIDTH]
    assert len(narrow) == 2, layouts
