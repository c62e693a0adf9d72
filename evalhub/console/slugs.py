"""The one rule for an address left empty in a console form (phase, test set, track):
made from the name, as Django's ``slugify`` makes it, at most 50 characters."""

from __future__ import annotations

from django.utils.text import slugify

MAX_LENGTH = 50


def slug_from_name(slug: str | None, name: str | None) -> str:
    """``slug`` if given, else the name's slug ('' when neither gives one)."""
    return (slug or slugify(name or ""))[:MAX_LENGTH]
