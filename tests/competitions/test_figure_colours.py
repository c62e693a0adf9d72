"""One colour per team in every figure of a phase: the comparison figures of two
test sets give each team the same colour, from the colour-blind-safe palette, in
the order the teams registered for the task."""

from __future__ import annotations

import re

import pytest

from evalhub.competitions.models import Submission, TaskArtefact
from evalhub.competitions.services import teams
from evalhub.competitions.services.boards import analyses, leaderboard, team_colours
from tasks import registry
from tasks.common.plotting import PALETTE
from tests.rankings.helpers import scored


def _run_colours(svg: bytes) -> list[str]:
    """The palette colours the figure fills with, in drawing order (one per run:
    each run's bars are drawn together)."""
    palette = {c.lower() for c in PALETTE}
    order: list[str] = []
    for found in re.findall(r"fill: ?(#[0-9a-fA-F]{6})", svg.decode()):
        if found.lower() in palette and found.lower() not in order:
            order.append(found.lower())
    return order


@pytest.mark.django_db
def test_a_team_has_one_palette_colour_in_the_figures_of_every_test_set(
    alignment_phase, django_user_model
):  # noqa: ANN001
    phase, first_user, first_team = alignment_phase
    second_user = django_user_model.objects.create_user("second")
    second_team = teams.register(
        task=phase.task, user=second_user, new_team_name="second team"
    ).team
    demo = registry.get("sentence_alignment").demo(seed=0)
    for user, (_, method, files) in zip(
        (second_user, first_user, second_user), demo.runs, strict=True
    ):
        scored(phase, user, next(iter(files.values())), method)

    expected = {first_team.pk: PALETTE[0].lower(), second_team.pk: PALETTE[1].lower()}
    assert {
        k: v.colour.lower()
        for k, v in team_colours.team_styles(task=phase.task).items()
    } == expected
    test_sets = list(phase.test_sets.all())
    assert len(test_sets) == 2
    for test_set in test_sets:
        analyses.refresh(test_set_id=test_set.pk)
        figure = TaskArtefact.objects.get(
            test_set=test_set, key=f"{analyses.COMPARE_PREFIX}f1_by_level"
        )
        with figure.svg.open("rb") as fh:
            drawn = _run_colours(fh.read())
        board = leaderboard.compute(test_set=test_set)
        team_of = dict(
            Submission.objects.filter(phase=phase).values_list("pk", "team_id")
        )
        ranked_teams = [team_of[row.submission_id] for row in board.rows]
        assert drawn, "the figure draws its runs in palette colours"
        expected_order = []
        for team in ranked_teams:
            colour = expected[team]
            if colour not in expected_order:
                expected_order.append(colour)
        assert drawn == expected_order

    # The overall chart colours each team's bar with the same colour.
    from django.contrib.auth.models import AnonymousUser

    from evalhub.competitions.services.boards import overall, overall_figure

    svg = overall_figure.overall_plot(phase=phase, user=AnonymousUser(), ext="svg")
    rows = overall.overall(phase=phase, user=AnonymousUser()).rows
    drawn_order = [expected[team_of[r.submission_id]] for r in reversed(rows)]
    assert len(drawn_order) == 2
    assert _run_colours(svg) == drawn_order


@pytest.mark.django_db
def test_more_teams_than_colours_still_gives_every_team_a_style_of_its_own(
    alignment_phase, django_user_model
):  # noqa: ANN001
    phase, _, first_team = alignment_phase
    for i in range(len(PALETTE) + 2):
        user = django_user_model.objects.create_user(f"member{i}")
        teams.register(task=phase.task, user=user, new_team_name=f"team {i}")
    styles = team_colours.team_styles(task=phase.task)
    assert len(styles) == len(PALETTE) + 3
    assert len(set(styles.values())) == len(styles)
    assert styles[first_team.pk].colour == PALETTE[0]
    assert styles[first_team.pk].hatch == ""
