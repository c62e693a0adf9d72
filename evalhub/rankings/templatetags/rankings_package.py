"""``{% package_link phase %}``: the overview-paper package's link on the leaderboard
page, for those who may download it (``services/package.available``)."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html

from evalhub.rankings.services import package

register = template.Library()


@register.simple_tag(takes_context=True)
def package_link(
    context: template.Context, phase: object, test_sets: object = None
) -> str:
    """``test_sets``: the phase's test sets, if the page has them (saves a query)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not package.available(
        phase=phase,  # type: ignore[arg-type]
        user=user,
        test_sets=list(test_sets) if test_sets is not None else None,  # type: ignore[call-overload]
    ):
        return ""
    url = reverse("rankings:package", args=[phase.task.slug, phase.slug])  # type: ignore[attr-defined]
    return format_html(
        ' · <a href="{}">Overview-paper package</a> (zip: LaTeX tables, p-values, '
        "figures as PDF, systems, README)",
        url,
    )
