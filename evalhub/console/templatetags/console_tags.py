"""Template helpers of the console."""

from __future__ import annotations

from django import template

from evalhub.console.services import checklist

register = template.Library()


@register.simple_tag
def testsets_url(task) -> str:  # noqa: ANN001
    """The test set pages of ``task`` (the console's other half)."""
    return checklist.testsets_url(task)
