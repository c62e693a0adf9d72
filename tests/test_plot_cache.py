"""The test run's memo of figures (``tests/plot_cache.py``) is shared by its
processes: a figure another process of the run drew is handed out, not drawn again,
and a figure that differs is drawn."""

from __future__ import annotations

import subprocess
import sys
import uuid

from matplotlib.figure import Figure

from tasks.common import plotting
from tests import plot_cache

DRAW = """
import sys
from tests import plot_cache
plot_cache.install()
from tests.test_plot_cache import figure
from tasks.common import plotting
plotting.render("bars", "Bars", figure(sys.argv[1]))
"""


def figure(title: str) -> Figure:
    fig = plotting.new_figure()
    ax = fig.add_subplot()
    ax.bar(["a team", "another"], [0.25, 0.5])
    ax.set_title(title)
    return fig


def test_a_figure_another_process_drew_is_handed_out(
    tmp_path, monkeypatch, figure_saves
):  # noqa: ANN001
    monkeypatch.setenv(plot_cache.SHARED, str(tmp_path))  # the child inherits it
    title = f"Drawn elsewhere {uuid.uuid4().hex[:8]}"  # by no other test
    subprocess.run([sys.executable, "-c", DRAW, title], check=True)  # noqa: S603
    assert len(list(tmp_path.iterdir())) == 1
    plot = plotting.render("bars", "Bars", figure(title))
    assert figure_saves == []
    assert plot.svg.startswith(b"<?xml") and title.encode() in plot.svg
    assert plot.png.startswith(b"\x89PNG") and plot.svg_narrow
    # Another title is another figure: drawn here, and kept for the others.
    plotting.render("bars", "Bars", figure(title + "!"))
    assert figure_saves == ["svg", "png", "svg"]
    assert len(list(tmp_path.iterdir())) == 2
