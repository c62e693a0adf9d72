"""Legends never cover data (issue 43): every figure kind with a legend, drawn on
the demo tasks' data through the production path — the scoring job draws each
run page's figures, the analyses refresh the boards' comparison figures, the
compare page's job its overlaid ones — has each legend's box clear of every
bar, line and marker the figure draws. Measured on the figure as it is saved:
laid out, its text protected, from the artists' window extents (the part of
each inside its axes, where it is drawn)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.transforms import Bbox

from evalhub.competitions.models import Submission
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import analyses, compare_figures
from evalhub.competitions.services.data import demo
from tasks.common import figure_text, plotting
from tasks.common.figure_text import lay_out, protect
from tests.rankings.helpers import scored

pytestmark = pytest.mark.django_db

#: The kinds of figure with a legend the demo tasks draw, on each path: a kind
#: that loses its legend, or is no longer drawn, fails here too.
RUN_PAGE = {"prf_by_level", "shares", "termometer"}
COMPARISON = {
    "f1_by_level",
    "f1_by_level_log",
    "systems_high",
    "systems_medium",
    "systems_low",
    "translated_minus_correct",
    "termometer_tf",
}


def _legends(fig: Figure) -> list[Legend]:
    return [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]


def _covered(fig: Figure) -> list[str]:
    """What a legend of ``fig`` covers, ``fig`` protected and laid out here."""
    protect(fig)
    lay_out(fig)
    return _overlaps(fig)


def _overlaps(fig: Figure) -> list[str]:
    """What a legend of ``fig`` (laid out) covers: each data artist (bar, line with
    its markers, collection) whose drawn extent overlaps a legend's box."""
    renderer = fig._get_renderer()  # noqa: SLF001
    boxes = [legend.get_window_extent(renderer) for legend in _legends(fig)]
    found = []
    for ax in fig.axes:
        inside = ax.get_window_extent(renderer)
        for artist in [*ax.patches, *ax.get_lines(), *ax.collections]:
            if not artist.get_visible():
                continue
            drawn = Bbox.intersection(artist.get_window_extent(renderer), inside)
            if drawn is not None and any(drawn.overlaps(box) for box in boxes):
                found.append(f"{ax.get_title()!r}: {artist.get_label()!r}")
    return found


@pytest.fixture
def measured(monkeypatch):  # noqa: ANN001, ANN201
    """Every figure with a legend that ``plotting.render`` saves while the test
    runs: (path, figure key) -> the data its legends cover (none, if right).
    Measured with the layout ``render`` saves it with (``figure_text.laid_out``:
    protected, laid out once, as the saves see it); a figure this process drew
    before (``tests/plot_cache.py`` hands out that drawing) is protected and laid
    out for the measure alone."""
    found: dict[tuple[str, str], list[str]] = {}
    path = ["run page"]
    drawing: dict[int, tuple[str, str]] = {}  # the figure being saved -> its name
    real_render, real_laid_out = plotting.render, figure_text.laid_out

    @contextlib.contextmanager
    def laid_out(fig: Figure) -> Iterator[Figure]:
        with real_laid_out(fig) as same:
            name = drawing.pop(id(fig), None)
            if name is not None:
                found[name] = _overlaps(fig)
            yield same

    def render(key: str, title: str, fig: Figure, **options: object) -> object:
        if _legends(fig):
            drawing[id(fig)] = (path[0], key)
        try:
            return real_render(key, title, fig, **options)
        finally:
            name = drawing.pop(id(fig), None)
            if name is not None:  # not drawn here: an equal figure's drawing
                found[name] = _covered(fig)

    monkeypatch.setattr(plotting, "render", render)
    monkeypatch.setattr(figure_text, "laid_out", laid_out)
    return found, path


def test_no_legend_covers_data(isolated_storage, django_user_model, measured):  # noqa: ANN001
    found, path = measured
    tasks = demo.seed_demo(with_runs=False)
    phases = []
    for task in tasks:
        phase = task.phases.get()
        phases.append(phase)
        for i, (team_name, method, files) in enumerate(task.type.demo(seed=0).runs):
            user = django_user_model.objects.create_user(f"{task.pk}-{i}")
            teams.register(task=task, user=user, new_team_name=f"{team_name} {i}")
            scored(phase, user, next(iter(files.values())), method)
    path[0] = "board"
    for phase in phases:
        for test_set in phase.test_sets.all():
            analyses.refresh(test_set_id=test_set.pk)
    path[0] = "compare page"
    for phase in phases:
        runs = list(Submission.objects.filter(phase=phase).values_list("pk", flat=True))
        test_set = phase.test_sets.order_by("pk").first()
        assert compare_figures.draw(test_set_id=test_set.pk, run_ids=runs) > 0

    drawn = {(where, key) for where, key in found}
    expected = {("run page", key) for key in RUN_PAGE} | {
        (where, key) for where in ("board", "compare page") for key in COMPARISON
    }
    assert expected <= drawn, sorted(expected - drawn)
    covering = {figure: what for figure, what in found.items() if what}
    assert not covering, covering
