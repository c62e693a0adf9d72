"""Template tags of the public pages: what a page says about itself to search
engines and link previews (meta description, Open Graph: plain text only, never
markup) and the home page's task cards. Each tag is one service call
(``services/boards/home.py``)."""

from __future__ import annotations

from django import template
from django.utils.text import Truncator

from evalhub.competitions import markdown
from evalhub.competitions.services.boards import board_layout as layout
from evalhub.competitions.services.boards import figures, home, own_rows

register = template.Library()

#: Characters of a meta description (search engines show about 155).
DESCRIPTION_CHARS = 160


@register.filter
def plain_summary(stored_html: str, chars: int = DESCRIPTION_CHARS) -> str:
    """Stored, rendered Markdown (``description_html``) as one line of plain text,
    cut at a word boundary (see ``markdown.plain_text``; the template escapes the
    result again)."""
    return Truncator(markdown.plain_text(stored_html or "")).chars(int(chars))


@register.simple_tag
def home_cards(tasks):  # noqa: ANN001, ANN201
    """The home page's cards for ``tasks`` (see ``home.task_cards``)."""
    return home.task_cards(tasks=tasks)


@register.simple_tag
def board_layout(test_set, board):  # noqa: ANN001, ANN201
    """The table layout of ``board`` (see ``board_layout.layout``)."""
    return layout.layout(task_type=test_set.phase.task.type, board=board)


@register.filter
def analysis_templates(test_set) -> list[str]:  # noqa: ANN001
    """The templates that may render ``test_set``'s analysis, the task type's own
    first (``competitions/analyses/<slug>.html``), then the generic one."""
    slug = test_set.phase.task.task_type
    return [f"competitions/analyses/{slug}.html", "competitions/analyses/generic.html"]


@register.filter
def figure_groups(plots):  # noqa: ANN001, ANN201
    """The figure area's entries (see ``figures.groups``)."""
    return figures.groups(plots)


@register.filter
def system_cells(view, row):  # noqa: ANN001, ANN201
    """The row's cells of the board's per-system columns (``BoardView.cells``)."""
    return view.cells.get(row.submission_id, ())


@register.filter
def column_totals(rows, key: str) -> list[int]:  # noqa: ANN001
    """Column sums of the lists ``row[key]`` of ``rows`` (an analysis table's
    footer, e.g. the gold pairs each run retrieved across the difficulty bins)."""
    lists = [row.get(key) or [] for row in rows]
    return [sum(column) for column in zip(*lists, strict=False)] if lists else []


@register.filter
def you_placeholder(team_id: int) -> str:
    """Where the page marks a board row as the viewer's own (``own_rows``)."""
    return own_rows.placeholder(team_id)
