"""matplotlib's font lookup kept per process (``tasks/common/font_lookup.py``): the
same answers as matplotlib's own, found anew when a ``font.*`` setting changes,
and drawn figures asking it far fewer times."""

from __future__ import annotations

import matplotlib
from matplotlib import font_manager

from tasks.common import font_lookup, plotting


def _fresh_lookup():  # noqa: ANN202
    plotting.new_figure()  # sets matplotlib up as the figures do (installs the keeping)
    manager = font_manager.fontManager
    assert getattr(manager.findfont, "kept", False)
    # matplotlib's own lookup, unkept: the method of the class.
    return manager.findfont, lambda *a, **k: type(manager).findfont(manager, *a, **k)


def test_the_kept_lookup_answers_as_matplotlib_does() -> None:
    kept, own = _fresh_lookup()
    asked = [
        font_manager.FontProperties(family="DejaVu Sans"),
        font_manager.FontProperties(family="DejaVu Sans", weight="bold"),
        font_manager.FontProperties(family="serif", style="italic"),
        font_manager.FontProperties(family="monospace", size=20),
        "sans\\-serif:bold",
    ]
    for prop in asked:
        assert kept(prop) == own(prop)
        assert kept(prop) == own(prop)  # the kept answer, the second time
        assert kept(prop, fallback_to_default=False) == own(
            prop, fallback_to_default=False
        )


def test_a_changed_setting_or_changed_properties_are_looked_up_anew() -> None:
    kept, own = _fresh_lookup()
    prop = font_manager.FontProperties(family="monospace")
    before = kept(prop)
    with matplotlib.rc_context({"font.monospace": ["DejaVu Serif"]}):
        assert own(prop).endswith("DejaVuSerif.ttf")
        assert kept(prop) == own(prop)  # not the answer kept for the old setting
    assert kept(prop) == before
    prop.set_family("serif")  # the same object, changed: not the kept answer
    assert kept(prop) == own(prop) != before


def test_drawing_a_figure_asks_matplotlib_far_fewer_times(monkeypatch) -> None:  # noqa: ANN001
    _fresh_lookup()
    manager = font_manager.fontManager
    asked = []

    def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        asked.append(args[0])
        return type(manager).findfont(manager, *args, **kwargs)  # matplotlib's

    monkeypatch.setattr(manager, "findfont", font_lookup.kept(counted))

    def draw() -> None:
        fig = plotting.new_figure()
        ax = fig.add_subplot()
        ax.plot([1, 2, 3], [0.2, 0.5, 0.9], label="a run")
        ax.set_title("A title")
        ax.legend()
        plotting.render("curve", "Curve", fig)

    draw()
    first = len(asked)
    assert first > 0
    draw()  # the same texts in the same fonts: every answer is kept
    assert len(asked) == first, asked[first:]
