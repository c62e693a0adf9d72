"""Template filters: safe Markdown and number formatting (no logic in templates)."""

from __future__ import annotations

import markdown as md
import nh3
from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "em",
    "h2",
    "h3",
    "h4",
    "hr",
    "i",
    "li",
    "ol",
    "p",
    "pre",
    "strong",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
}


@register.filter
def markdown_safe(text: str) -> SafeString:
    """Markdown rendered to HTML and cleaned with an allow-list (no scripts, no
    event handlers, links get rel=noopener)."""
    html = md.markdown(text or "", extensions=["tables", "fenced_code"])
    return mark_safe(
        nh3.clean(html, tags=_TAGS, link_rel="noopener noreferrer nofollow")
    )  # noqa: S308


@register.filter
def score(value: float | None) -> str:
    if value is None:
        return "–"
    if float(value).is_integer() and abs(value) >= 1:
        return f"{int(value):,}"
    return f"{value:.4f}"
