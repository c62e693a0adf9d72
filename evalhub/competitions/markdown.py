"""User Markdown: the one place it is checked, rendered and sanitised.

Organisers (and every co-organiser they add) write task descriptions in Markdown;
anyone may then read them. So the parser is cmark-gfm (through ``cmarkgfm``), a C
parser built for untrusted input: linear time on every input we know of (see
``bench/markdown.py``; Python-Markdown, used before, took 20 s or more on 10,000
``[``). Raw HTML passes through the parser and is cleaned afterwards by ``nh3`` with an
allow-list: no scripts (with their content), no event handlers, no ``javascript:``
links, and links get ``rel="noopener noreferrer nofollow"``. The cleaner's HTML
parser spends time proportional to the nesting depth on every tag (50,000 nested
quotes, ``>`` x 50,000, take minutes), so HTML that may nest deeper than
``MAX_DEPTH`` is never given to it: ``check`` refuses it and ``render`` shows it as
escaped text. The parser's output may also grow
in the cleaner: formatting left open (``<b>``, ``<em>``) is opened again in every
paragraph after it, 50,000 characters made 20 MB; ``html_depth.measure`` counts
those copies before the cleaner runs, and the cleaned HTML is measured again, both
against ``MAX_HTML_CHARS``.

Every consumer calls this module: the model renders a description once when it is
saved (``SharedTask.save``: console forms, bundle import, admin, demo seeding alike),
pages print the stored HTML, the console preview renders through ``preview``, the
meta description takes the plain text of the stored HTML, the form, the admin and
the bundle import refuse what ``check`` refuses.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

import cmarkgfm
import nh3
from cmarkgfm.cmark import Options
from django.core.exceptions import ValidationError

from evalhub.competitions import html_depth

#: Characters of Markdown a description may have.
MAX_CHARS = 50_000
#: Table cells it may make: a table of many columns and many short rows, each
#: padded to the header's width, grows far beyond its text (40,000 characters made
#: 5 MB of HTML in half a second).
MAX_TABLE_CELLS = 100_000
#: Characters of HTML it may render to, before cleaning and once cleaned (what is
#: stored and every visitor downloads); ordinary text renders to a few times its
#: length.
MAX_HTML_CHARS = 1_000_000
#: Elements the rendered HTML may nest (quotes, lists, raw HTML inside one another).
MAX_DEPTH = 100
#: The stored HTML read for a plain-text summary (meta description, link preview):
#: enough for a few hundred characters of text; a cut tag or entity at its end is
#: dropped by the cleaner.
SUMMARY_HTML_CHARS = 8_000

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
_LINK_REL = "noopener noreferrer nofollow"
_EXTENSIONS = ["table"]
# Raw HTML is kept by the parser so that nh3 decides what stays (as before: allowed
# inline tags such as <b> remain, <script> goes with its content).
_OPTIONS = Options.CMARK_OPT_UNSAFE


# The line endings of CommonMark (no other character ends a line for cmark).
_LINES = re.compile(r"\r\n?|\n")


class MarkdownRefused(ValueError):
    """Markdown that is not stored: too long, too large or too deep once rendered."""


def _parse(text: str) -> str:
    return cmarkgfm.markdown_to_html_with_extensions(
        text, options=_OPTIONS, extensions=_EXTENSIONS
    )


def _clean(rendered: str) -> str:
    return nh3.clean(rendered, tags=_TAGS, link_rel=_LINK_REL)


def _table_cells(text: str) -> int:
    """An upper bound of the cells of the tables in ``text``, before parsing, in
    one pass. A table starts at its delimiter row (``|---|:-:|``, in a quote or a
    list item too), which has as many cells as the header, at most one more than
    its ``|``; every line up to the next blank one may be a row, padded to that
    many cells."""
    cells = columns = 0
    for line in _LINES.split(text):
        inside = line.lstrip(" \t>")
        if not inside.strip(" \t"):  # blank as cmark sees it: spaces and tabs only
            columns = 0
        elif "-" in inside and not inside.strip("|-: \t"):
            columns = inside.count("|") + 1
            cells += 2 * columns  # the header and the delimiter row
        else:
            cells += columns
    return cells


def _refusal(text: str, *, what: str, length: bool) -> tuple[str, str]:
    """("", the sanitised HTML) or (why ``text`` is refused, ""); the cleaner runs
    only on HTML that stays within the limits."""
    if length and len(text) > MAX_CHARS:
        return (
            f"{what} is too long: {len(text):,} characters; "
            f"at most {MAX_CHARS:,} are allowed.",
            "",
        )
    if (cells := _table_cells(text)) > MAX_TABLE_CELLS:
        return (
            f"{what} may make tables of up to {cells:,} cells (rows times columns); "
            f"at most {MAX_TABLE_CELLS:,} are allowed.",
            "",
        )
    rendered = _parse(text)
    if len(rendered) > MAX_HTML_CHARS:
        return (
            f"{what} renders to {len(rendered):,} characters of HTML; "
            f"at most {MAX_HTML_CHARS:,} are allowed.",
            "",
        )
    found = html_depth.measure(
        rendered, MAX_DEPTH, budget=MAX_HTML_CHARS - len(rendered)
    )
    if found == html_depth.DEEP:
        return (
            f"{what} nests more than {MAX_DEPTH} levels deep (quotes, lists or HTML "
            f"inside one another); at most {MAX_DEPTH} are allowed.",
            "",
        )
    if found == html_depth.COPIES:
        why = (
            " (formatting left open, such as <b> or <em>, is repeated in every "
            "paragraph after it)"
        )
        return _too_large(what, f"more than {MAX_HTML_CHARS:,}", why)
    cleaned = _clean(rendered)
    if len(cleaned) > MAX_HTML_CHARS:
        return _too_large(what, f"{len(cleaned):,}")
    return "", cleaned


def _too_large(what: str, amount: str, why: str = "") -> tuple[str, str]:
    return (
        f"{what} renders to {amount} characters of HTML once cleaned{why}; "
        f"at most {MAX_HTML_CHARS:,} are allowed.",
        "",
    )


def render(text: str) -> str:
    """``text`` (Markdown) as sanitised HTML, in linear time. Text that would make
    too many table cells, too much HTML or too deep a nesting for the cleaner is
    shown as escaped text instead (``check`` keeps it from being stored; this
    guards every other caller). Longer text than ``MAX_CHARS`` is rendered."""
    problem, cleaned = _refusal(text or "", what="", length=False)
    if problem:
        return f"<p>{html.escape(text)}</p>"
    return cleaned


def check(text: str, *, what: str = "The description") -> None:
    """Raise ``MarkdownRefused`` when ``text`` is too long, or would make too many
    table cells, too much HTML or too deep a nesting; its message names ``what``,
    says the limit and what was given."""
    problem, _ = _refusal(text, what=what, length=True)
    if problem:
        raise MarkdownRefused(problem)


def validate(text: str) -> None:
    """``check`` as a Django validator (the model field and the console form)."""
    try:
        check(text)
    except MarkdownRefused as exc:
        raise ValidationError(str(exc), code="markdown") from None


def preview(text: str) -> tuple[str, str]:
    """(sanitised HTML, "") for the console's live preview, or ("", why refused)
    with the message the form would give: one parse, at most one cleaning."""
    problem, cleaned = _refusal(text, what="The description", length=True)
    return ("", problem) if problem else (cleaned, "")


@lru_cache(maxsize=32)
def render_code_text(text: str) -> str:
    """``render`` for Markdown the code defines (a task type's format help): the
    same on every page view, so rendered once per process."""
    return render(text)


def plain_text(stored_html: str) -> str:
    """The text of (the start of) stored, sanitised HTML as one line: every tag
    dropped, entities decoded (a template escapes it again)."""
    text = html.unescape(nh3.clean(stored_html[:SUMMARY_HTML_CHARS], tags=set()))
    return re.sub(r"\s+", " ", text).strip()
