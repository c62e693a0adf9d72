"""``{% load annotation_access %}``: the annotation rules for the site header."""

from __future__ import annotations

from django import template

from evalhub.annotations.services import access

register = template.Library()


@register.filter
def may_annotate(user: object) -> bool:
    """``user`` annotates an mt_lexicon_probe test set or organises such a task."""
    return access.header_may_annotate(user)
