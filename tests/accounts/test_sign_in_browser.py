"""Sign-in through an institution's OpenID Connect provider in a real browser
(Debian's Chromium driven by Playwright) against the live server: the provider
(django-oauth-toolkit, ``tests/oidc_provider/``) runs as a process of its own. A new
user presses the provider's button, logs in there, comes back signed in with a
verified address, and finds the provider on *Sign-in accounts*. The login page with
its buttons and that page are audited with axe-core (no serious or critical WCAG
A/AA violation) and must not scroll sideways at 1280 and 390 px; screenshots go to
$EVALHUB_SCREENSHOTS."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from axe_playwright_python.sync_playwright import Axe

from evalhub import settings_blocks
from tests.oidc import PASSWORD, PROVIDER_ID, running_provider
from tests.page_audit import DESKTOP, at_both_widths

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_new_user_signs_in_through_the_provider_in_a_browser(  # noqa: PLR0913
    live_server, settings, monkeypatch, tmp_path, screenshots, browser
):  # noqa: ANN001
    users = [{"username": "grace", "email": "grace@uni.example", "name": "Grace"}]
    with running_provider(users, tmp_path, sites=(live_server.url,)) as provider:
        for name, value in provider.environment().items():
            monkeypatch.setenv(name, value)
        for name, value in settings_blocks.social_accounts().items():
            setattr(settings, name, value)
        axe = Axe()
        problems: list[str] = []
        page = browser.new_context(viewport=DESKTOP).new_page()
        page.set_default_timeout(30_000)

        def audit(name: str) -> None:
            problems.extend(at_both_widths(page, axe, screenshots, f"sign-in-{name}"))

        page.goto(live_server.url + "/accounts/login/")
        audit("login")
        page.get_by_role("button", name="University of Testing").click()
        page.wait_for_url(provider.url.rsplit("/o", 1)[0] + "/login/**")
        page.get_by_label("Username").fill("grace")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        page.get_by_text("Signed in as").wait_for()
        assert page.get_by_text("Welcome! Next:").is_visible()
        linked = SocialAccount.objects.get(provider=PROVIDER_ID)
        assert linked.user.email == "grace@uni.example"
        assert EmailAddress.objects.get(user=linked.user).verified

        page.goto(live_server.url + "/accounts/3rdparty/")
        assert page.get_by_text("University of Testing: grace@uni.example").is_visible()
        audit("accounts")
        assert not problems, "\n".join(problems)
