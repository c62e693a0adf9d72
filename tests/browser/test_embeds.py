"""A board's embed in a real browser (Debian's Chromium via Playwright), framed by
a workshop page served from another local origin (a small ``http.server``): shown
inside the page of an origin the organisers listed on the console's page, refused
(Chromium's error page, no board) inside the page of an origin they did not."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.test import Client
from django.urls import reverse

from evalhub.competitions import jobs
from tests.browsers import screenshot
from tests.page_audit import AXE_OPTIONS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

METHOD = "zz-framed-method"


def _serious(page) -> list[str]:  # noqa: ANN001
    found = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    return [
        f"{page.url}: {v['id']} ({v['impact']}): {v['help']}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


@contextmanager
def workshop_page(embed_url: str) -> Iterator[str]:
    """A page framing ``embed_url``, served at an origin of its own; yields it."""
    body = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<title>Workshop</title></head><body><h1>Our shared task</h1>"
        f"<iframe src='{embed_url}' title='Leaderboard' width='100%' "
        "height='420' style='border:0'></iframe></body></html>"
    ).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _framed_text(page, origin: str) -> str:  # noqa: ANN001
    page.goto(origin + "/")
    page.wait_for_load_state("load")
    frame = next(f for f in page.frames if f is not page.main_frame)
    try:
        return frame.locator("body").inner_text(timeout=5_000)
    except Exception:  # noqa: BLE001 - the refused frame's error page
        return ""


def test_embed_shown_on_a_listed_origin_refused_on_another(
    live_server,
    submit_run,
    demo_run,
    test_set,
    private_test_set,
    organiser,
    screenshots,
    browser,
):
    sub = submit_run(demo_run)
    type(sub).objects.filter(pk=sub.pk).update(method_name=METHOD)
    jobs.score_submission(sub.pk)
    path = reverse("embeds:board-embed", args=["bucc-test", "evaluation", test_set.pk])
    embed_url = live_server.url + path
    with workshop_page(embed_url) as listed, workshop_page(embed_url) as other:
        console = Client()
        console.force_login(organiser)
        saved = console.post(
            reverse("console:embeds", args=["bucc-test"]), {"origins": listed}
        )
        assert saved.status_code == 302
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.set_default_timeout(30_000)
        refusals: list[str] = []
        page.on(
            "console",
            lambda m: refusals.append(m.text) if "frame-ancestors" in m.text else None,
        )
        shown = _framed_text(page, listed)
        assert METHOD in shown and "Ranked by" in shown
        assert not refusals
        screenshot(page, screenshots / "embed-listed-1280.png")
        page.set_viewport_size({"width": 390, "height": 844})
        page.reload()
        screenshot(page, screenshots / "embed-listed-390.png")
        page.set_viewport_size({"width": 1280, "height": 900})
        refused = _framed_text(page, other)
        assert METHOD not in refused and "Ranked by" not in refused
        assert any(other not in r and listed in r for r in refusals), refusals
        screenshot(page, screenshots / "embed-refused-1280.png")
        context.close()
    # The snippets below the boards, and the console's page: nothing scrolls
    # sideways on a phone.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    session = console.cookies["sessionid"].value
    board = reverse("competitions:leaderboard-detail", args=["bucc-test", "evaluation"])
    page = context.new_page()
    problems: list[str] = []
    for name, url, login in (
        ("embed", path, False),
        ("leaderboard", board, False),
        ("console", reverse("console:embeds", args=["bucc-test"]), True),
        ("badge", path.replace("/embed/", "/badge/").rstrip("/") + ".svg", False),
    ):
        if login:
            context.add_cookies(
                [{"name": "sessionid", "value": session, "url": live_server.url}]
            )
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            assert page.goto(live_server.url + url).status == 200
            if name == "leaderboard":
                page.click("summary:has-text('Embed these boards')")
            overflow = page.evaluate(
                "document.documentElement.scrollWidth - window.innerWidth"
            )
            assert name in ("badge", "embed") or overflow <= 0, (name, width, overflow)
            if name != "badge":
                problems += _serious(page)
            screenshot(
                page,
                screenshots / f"embeds-{name}-{width}.png",
                full_page=name != "badge",  # an SVG document has no full page
            )
    context.close()
    assert not problems, "\n".join(problems)
