"""What each kind of question accepts, and the text it stores.

``parse(kind, raw, choices)`` returns the stored text ("" for no answer) or raises
``Invalid`` with a message for the participant. Every stored value is plain text
(templates escape it; the exports write it through ``competitions.services.tables``).
"""

from __future__ import annotations

import math
import re
import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from evalhub.factsheets.models import Question

Kind = Question.Kind

TEXT_MAX = 200
URL_MAX = 500
CHOICE_MAX = 100
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")
_YES = {"yes", "y", "true", "1"}
_NO = {"no", "n", "false", "0"}
_url = URLValidator(schemes=["http", "https"])


class Invalid(ValueError):
    """The value is not an answer of this kind (the message says why)."""


def plain_line(raw: str, limit: int, what: str) -> str:
    text = raw.strip()
    if len(text) > limit:
        raise Invalid(f"{what} is {len(text)} characters long; at most {limit}.")
    if any(unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"} for ch in text):
        raise Invalid(f"{what} must be one line of text without control characters.")
    return text


def parse(kind: str, raw: object, choices: list[str] | tuple[str, ...] = ()) -> str:
    """The stored text of the answer ``raw`` ("" when empty: no answer)."""
    if raw is None:
        return ""
    if isinstance(raw, bool):  # from a bundle or JSON: true / false
        raw = "yes" if raw else "no"
    text = str(raw).strip()
    if not text:
        return ""
    if kind == Kind.YES_NO:
        if text.lower() in _YES:
            return "yes"
        if text.lower() in _NO:
            return "no"
        raise Invalid("Answer yes or no.")
    if kind == Kind.CHOICE:
        if text not in choices:
            raise Invalid("Choose one of: " + ", ".join(repr(c) for c in choices) + ".")
        return text
    if kind == Kind.NUMBER:
        if not _NUMBER.match(text):
            raise Invalid(f"{text[:40]!r} is not a number (e.g. 12, 0.5 or 1e-3).")
        value = float(text)
        if not math.isfinite(value):
            raise Invalid(f"{text[:40]!r} is too large: give a finite number.")
        return (
            str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)
        )
    if kind == Kind.TEXT:
        return plain_line(text, TEXT_MAX, "The answer")
    if kind == Kind.URL:
        text = plain_line(text, URL_MAX, "The URL")
        try:
            _url(text)
        except ValidationError:
            raise Invalid(
                "Give a full web address starting with http:// or https://."
            ) from None
        return text
    raise Invalid(f"unknown kind of question {kind!r}")


def parse_choices(raw: str | list[object]) -> list[str]:
    """The options of a ``choice`` question: one per line (or a list), distinct,
    at least two."""
    items = raw.splitlines() if isinstance(raw, str) else [str(v) for v in raw]
    options: list[str] = []
    for item in items:
        option = plain_line(str(item), CHOICE_MAX, "An option")
        if option and option not in options:
            options.append(option)
    if len(options) < 2:
        raise Invalid("A list question needs at least two distinct options.")
    return options
