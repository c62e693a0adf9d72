"""What a page quotes: the leak and privacy tests look for a hidden string (a
reference translation, a user's name) in a response."""

from __future__ import annotations

import re
from collections.abc import Iterable


def quoted(body: bytes, words: Iterable[str]) -> list[str]:
    """The ``words`` that ``body`` quotes on their own, not inside a longer run of
    letters and digits. A short word ("neu", "gut", "bob") inside a random token of
    the page (the CSRF token every signed-in page carries, masked anew for each
    answer) says nothing about the page: such a token held one now and then, and
    failed the test."""
    text = body.decode()
    return [w for w in words if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text)]
