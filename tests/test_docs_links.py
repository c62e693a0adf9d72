"""The README is the front door (at most 150 lines, no measurement log), and every
relative link of the README and of the pages in ``docs/`` leads to a file that exists
and, with ``#anchor``, to a heading of that page."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from tests.paths import REPO_ROOT

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)


def _pages() -> list[Path]:
    docs = REPO_ROOT / "docs"
    return [REPO_ROOT / "README.md"] + sorted(
        p for p in docs.rglob("*.md") if "_build" not in p.relative_to(docs).parts
    )


def slug(heading: str) -> str:
    """A heading's anchor as GitHub and MyST (``myst_heading_anchors``) make it."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        base, n = slug(heading), 0
        while (candidate := base if n == 0 else f"{base}-{n}") in found:
            n += 1
        found.add(candidate)
    return found


def _links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans are not links
    return LINK.findall(text)


def test_every_relative_link_of_the_readme_and_docs_resolves():
    broken = []
    for page in _pages():
        for target in _links(page):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                broken.append(f"{page.relative_to(REPO_ROOT)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(REPO_ROOT)}: {target} (no heading)")
    assert not broken, "\n".join(broken)


def test_the_readme_is_a_front_door():
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    # No measurement log: no dates, no sessions (the figures live in bench/README.md).
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text)
    assert not re.search(r"\bsession \d+", text, re.I)
    assert "bench/README.md" in text


def test_the_link_check_finds_a_broken_link_and_a_missing_heading(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n\n## The `evalhub` command's help\n", encoding="utf-8")
    assert anchors(page) == {"a-page", "the-evalhub-commands-help"}
    assert _links(tmp_path / "page.md") == []
    page.write_text("[x](other.md) `[y](not.md)`\n", encoding="utf-8")
    assert _links(page) == ["other.md"]


def test_the_guides_pictures_are_the_ones_the_browser_test_takes():
    """Every picture in docs/screenshots/guides/ is named as
    tests/browser/test_accessibility.py names its screenshots (role-URL name-width,
    the URL name one of the project's), so taking them again with that test and
    copying them replaces each one; and a guide shows each."""
    from django.urls import get_resolver

    names = {
        key.rsplit(":", 1)[-1]
        for key in _url_names(get_resolver())
        if isinstance(key, str)
    }
    roles = "|".join(("anonymous", "participant", "organiser", "staff"))
    shown = "".join(
        p.read_text(encoding="utf-8") for p in (REPO_ROOT / "docs/guides").glob("*.md")
    )
    pictures = sorted((REPO_ROOT / "docs/screenshots/guides").glob("*.png"))
    assert pictures
    for picture in pictures:
        named = re.fullmatch(
            rf"({roles})-([a-z_-]+?)(-\d+)?-(desktop|phone)\.png", picture.name
        )
        assert named and named.group(2) in names, picture.name
        assert f"screenshots/guides/{picture.name}" in shown, picture.name


def _url_names(resolver, prefix: str = ""):  # noqa: ANN001, ANN202
    """Every URL name of the project, with its namespaces (``competitions:run-submit``)."""
    for pattern in resolver.url_patterns:
        if hasattr(pattern, "url_patterns"):
            space = f"{prefix}{pattern.namespace}:" if pattern.namespace else prefix
            yield from _url_names(pattern, space)
        elif pattern.name:
            yield prefix + pattern.name
