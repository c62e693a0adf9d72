"""``{% load creator_access %}``: the "Create a task" links of the header and the
home page, for those ``roles.may_create_tasks`` allows."""

from __future__ import annotations

from django import template

from evalhub.competitions.services import roles

register = template.Library()


@register.filter
def may_create_tasks(user: object) -> bool:
    return roles.header_may_create_tasks(user)
