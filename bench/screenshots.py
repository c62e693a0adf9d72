"""Screenshots of the public pages for docs/screenshots/ (Debian's Chromium via
Playwright): the home page and a BUCC demo leaderboard at 1280 px, as PNG.

    python bench/screenshots.py http://127.0.0.1:8000 docs/screenshots after

Run it against ``manage.py up`` once the demo runs are scored."""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

PAGES = {
    "home": "/",
    "bucc-leaderboard": "/tasks/demo-bilingual-term-alignment/evaluation/leaderboard/",
}


def main(base: str, folder: str, tag: str) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name, path in PAGES.items():
            page.goto(base + path)
            # The first screen a visitor sees (full pages are several MB).
            page.screenshot(path=str(out / f"{name}-1280-{tag}.png"))
        browser.close()


if __name__ == "__main__":
    main(*sys.argv[1:4])
