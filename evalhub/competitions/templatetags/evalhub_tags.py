"""Template filters: format help as HTML, data as tables and moments as every page
shows them (no logic in templates)."""

from __future__ import annotations

import json
import zoneinfo
from datetime import datetime

from django import template
from django.utils import dateformat
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from evalhub.competitions import account_links as links
from evalhub.competitions import markdown, public_url, signals
from evalhub.competitions.models import Phase, SharedTask

register = template.Library()

#: The one zone the server draws times in; browsers redraw them in theirs.
PAGE_ZONE = zoneinfo.ZoneInfo("UTC")


@register.filter
def format_help_html(text: str) -> SafeString:
    """A task type's format help (Markdown the code defines) as sanitised HTML,
    rendered once per process. User Markdown is stored rendered
    (``SharedTask.description_html``): pages print it, never this filter."""
    return mark_safe(markdown.render_code_text(text or ""))  # noqa: S308


@register.filter
def data_view(value: object) -> SafeString:
    """A task-level analysis (JSON) as readable HTML: lists of records become tables,
    scalars a definition list. Every string is escaped."""
    return mark_safe(_render(value, depth=0))  # noqa: S308 - built from escaped parts


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, dict) for v in value)
    ):
        # Small records (e.g. a term and its distance): "a (b)" per record.
        shown = "; ".join(_record(v) for v in value[:50])
        return escape(shown + ("; …" if len(value) > 50 else ""))
    if isinstance(value, (list, tuple)) and all(
        not isinstance(v, (list, dict)) for v in value
    ):
        return escape(", ".join(str(v) for v in value))
    if isinstance(value, (dict, list, tuple)):
        return escape(json.dumps(value, ensure_ascii=False)[:300])
    return escape(str(value))


def _record(record: dict) -> str:  # type: ignore[type-arg]
    parts = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in record.values()]
    return parts[0] + (f" ({', '.join(parts[1:])})" if len(parts) > 1 else "")


def _render(value: object, depth: int) -> str:
    if depth > 3:
        return _cell(value)
    if isinstance(value, dict):
        rows = "".join(
            f"<dt>{escape(str(k).replace('_', ' '))}</dt><dd>{_render(v, depth + 1)}</dd>"
            for k, v in value.items()
        )
        return f'<dl class="data">{rows}</dl>'
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, dict) for v in value)
    ):
        keys: list[str] = []
        for record in value:
            keys += [k for k in record if k not in keys]
        head = "".join(
            f'<th scope="col">{escape(k.replace("_", " "))}</th>' for k in keys
        )
        body = "".join(
            "<tr>" + "".join(f"<td>{_cell(r.get(k, ''))}</td>" for k in keys) + "</tr>"
            for r in value[:200]
        )
        more = (
            f'<p class="meta">First 200 of {len(value):,} rows; the JSON has them all.</p>'
            if len(value) > 200
            else ""
        )
        return (
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"
        )
    return _cell(value)


@register.simple_tag(takes_context=True)
def task_page_panels(context, task) -> tuple[tuple[str, object], ...]:  # noqa: ANN001
    """What feature apps show on the task page (``signals.task_page_panels``), as
    ``(template_name, context)`` pairs for the requesting viewer."""
    request = context.get("request")
    viewer = getattr(request, "user", None)
    return tuple(
        answer
        for _, answer in signals.task_page_panels.send(
            sender=SharedTask, task=task, viewer=viewer
        )
        if answer is not None
    )


@register.simple_tag(takes_context=True)
def leaderboard_panels(
    context, phase, test_sets, track
) -> tuple[tuple[str, object], ...]:  # noqa: ANN001
    """What feature apps show below a phase's boards
    (``signals.leaderboard_panels``), as ``(template_name, context)`` pairs for
    the requesting viewer."""
    request = context.get("request")
    viewer = getattr(request, "user", None)
    return tuple(
        answer
        for _, answer in signals.leaderboard_panels.send(
            sender=Phase,
            phase=phase,
            test_sets=list(test_sets),
            track=track,
            viewer=viewer,
        )
        if answer is not None
    )


@register.filter
def sentence(text: str) -> str:
    """``text`` as a sentence of its own: a full stop added unless it ends with
    one (metric descriptions are written either way)."""
    text = str(text or "").strip()
    return text if not text or text[-1] in ".!?" else f"{text}."


def zone_label(moment: datetime) -> str:
    """The zone's name at ``moment`` as a reader knows it ("CET", "UTC"), or its
    offset from UTC where the zone has no abbreviation ("UTC-03", never a bare
    "-03")."""
    name = moment.tzname() or "UTC"
    return f"UTC{name}" if name[:1] in "+-" else name


@register.filter
def when(moment: datetime | None, precision: str = "minutes") -> SafeString | str:
    """A moment as every page shows it: drawn in UTC (``PAGE_ZONE``), labelled
    so, in a ``<time>`` element carrying the exact instant; the browser redraws
    every such element in its own zone (static/evalhub.js), so a viewer sees one
    zone on every page, the first included, and cached pages are the same for
    every viewer. ``precision``: "minutes" (default), "seconds", or "time" (the
    time of day to the second, without the date)."""
    if moment is None:
        return ""
    shown = {"seconds": "Y-m-d H:i:s", "time": "H:i:s"}.get(precision, "Y-m-d H:i")
    in_utc = moment.astimezone(PAGE_ZONE)
    return format_html(
        '<time datetime="{}" data-when="{}">{} {}</time>',
        moment.isoformat(),
        precision if precision in ("seconds", "time") else "minutes",
        dateformat.format(in_utc, shown),
        zone_label(in_utc),
    )


@register.simple_tag
def shown_zone() -> str:
    """The time zone pages draw times in (the footer names it; the browser
    replaces it with its own when it redraws the times)."""
    return PAGE_ZONE.key


@register.simple_tag
def site_url() -> str:
    """The site's public address (``public_url``), for links shown to copy."""
    return public_url.site_url()


@register.filter
def no_interval(text: str) -> bool:
    """Whether a board's interval text says there is none
    (:func:`tasks.common.resampling.bands.is_degenerate`)."""
    from tasks.common.resampling import bands

    return bands.is_degenerate(text or "")


@register.simple_tag
def band_rule() -> str:
    """The one band rule, as every surface words it
    (:mod:`tasks.common.resampling.bands`)."""
    from tasks.common.resampling import bands

    return f"{bands.band_rule_text()} ({bands.REFERENCE})"


@register.simple_tag(takes_context=True)
def account_links(context) -> SafeString:  # noqa: ANN001
    """The header's account links (``competitions/account_links.py``), with the
    CSRF token the page already masked."""
    token = context.get("csrf_token")
    return links.links(
        context.get("request"),
        context.get("task"),
        token=str(token) if token and str(token) != "NOTPROVIDED" else None,
    )
