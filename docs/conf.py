"""Sphinx configuration of evalhub's documentation site: the Markdown pages of
``docs/`` (MyST), the Furo theme, and the references generated from the code at
build time (``_ext/evalhub_reference.py``). Build: ``.venv/bin/sphinx-build -W -b
html docs docs/_build/html``; ``tests/test_docs.py`` builds it so."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS.parent), str(DOCS / "_ext")]

project = "evalhub"
author = "the evalhub developers"
copyright = "the evalhub developers, AGPL-3.0-or-later"  # noqa: A001

extensions = ["myst_parser", "evalhub_reference"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
# Headings get GitHub's anchors, so `page.md#a-heading` links work on GitHub and here.
myst_heading_anchors = 6
# -W is for broken references and pages outside the toctree; a heading level skipped
# is a matter of style.
suppress_warnings = ["myst.header"]
html_theme = "furo"
html_title = "evalhub"
