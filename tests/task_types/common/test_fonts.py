"""Names in any script are drawn with their glyphs, not as empty boxes: matplotlib
takes what DejaVu Sans lacks from the fallback fonts (``tasks/common/fonts.py``).
Needs Debian's fonts-droid-fallback and fonts-symbola (CI installs them; without
them the test is skipped, and fails under CI)."""

from __future__ import annotations

import os
import warnings

import pytest

from tasks.common import fonts, plotting

NAMES = ["日本語", "Ελληνικά", "✓ done", "rocket 🚀"]


def test_japanese_greek_symbols_and_emoji_have_glyphs_in_every_format():
    found = fonts.installed_fallbacks()
    if not {"Droid Sans Fallback", "Symbola"} <= set(found):
        message = "fallback fonts missing (apt-get install fonts-droid-fallback fonts-symbola)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with plotting.collecting_pdfs() as pdfs:
            fig = plotting.new_figure(6.4, 3)
            ax = fig.add_subplot()
            ax.bar(NAMES, [1, 2, 3, 4])
            ax.set_title(" · ".join(NAMES))
            plot = plotting.render("names", "names", fig)
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert missing == []
    assert plot.svg and plot.png and plot.svg_narrow and pdfs["names"]


def test_without_fallbacks_the_glyphs_are_reported_missing(monkeypatch):
    """The check above can fail: DejaVu Sans alone has no CJK glyph."""
    import matplotlib

    plotting.new_figure()  # matplotlib set up (with the fallbacks) before the change
    monkeypatch.setitem(matplotlib.rcParams, "font.family", ["DejaVu Sans"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = plotting.new_figure(3, 2)
        fig.add_subplot().set_title("日本語")
        plotting.render("cjk", "cjk", fig)
    assert any("missing from font" in str(w.message) for w in caught)
