"""More teams than palette colours: the palette's second round draws dashed lines,
square markers and hatched bars, so no two series of a figure look alike."""

from __future__ import annotations

import re

from tasks.common import plotting
from tasks.pages import RunDetail
from tasks.reports import Curve
from tasks.sentence_alignment.plots import comparison_bars

N = len(plotting.PALETTE) + 2


def _runs(n: int) -> list[RunDetail]:
    curve = Curve(
        key="pr", title="P/R", x_label="rank", y_label="value",
        x=(1.0, 2.0, 3.0), series=(("precision", (1.0, 0.5, 0.4)),),
    )  # fmt: skip
    metrics = {"alignment_f1": 0.5, "mean_f1": 0.4}
    return [RunDetail(f"team {i}", {}, (curve,), metrics) for i in range(n)]


def test_the_first_styles_are_all_distinct_and_start_with_the_plain_palette():
    styles = [plotting.nth_style(i) for i in range(len(plotting.PALETTE) * 4)]
    assert len(set(styles)) == len(styles)
    assert {
        (s.linestyle, s.marker, s.hatch) for s in styles[: len(plotting.PALETTE)]
    } == {("-", "o", "")}
    second = styles[len(plotting.PALETTE)]
    assert second.colour == plotting.PALETTE[0]
    assert (second.linestyle, second.marker, second.hatch) == ("--", "s", "//")


def test_a_line_of_the_second_round_is_dashed():
    (plot,) = plotting.overlay_plots(_runs(N))
    svg = plot.svg.decode()
    # One solid line per run of the first round, dashes for the others.
    assert len(re.findall(r"stroke-dasharray", svg)) >= N - len(plotting.PALETTE)


def test_a_bar_of_the_second_round_is_hatched():
    plain = comparison_bars(_runs(len(plotting.PALETTE))).svg.decode()
    more = comparison_bars(_runs(N)).svg.decode()
    assert "<pattern" not in plain
    assert "<pattern" in more


def test_the_platform_styles_win_over_the_drawing_order():
    runs = _runs(2)
    chosen = plotting.nth_style(len(plotting.PALETTE) + 3)
    with plotting.series_styles({"team 0": chosen}):
        assert plotting.style("team 0", 0) == chosen
        assert plotting.style("team 1", 1) == plotting.nth_style(1)
    assert plotting.style(runs[0].label, 0) == plotting.nth_style(0)
