"""Accounts in a real browser (Debian's Chromium driven by Playwright) against the
live server, mails written to the mail folder as under ``manage.py up``: sign up
with an address, follow the verification link read from the mail file, log out,
reset the password by the mailed link, log in with the new one. Every account page
is audited with axe-core (no serious or critical WCAG A/AA violation) and must not
scroll sideways at 1280 and 390 px; screenshots of each go to $EVALHUB_SCREENSHOTS."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse

from tests import mail_files
from tests.page_audit import DESKTOP, at_both_widths

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_sign_up_verify_reset_and_log_in_again_in_a_browser(
    live_server, settings, tmp_path, screenshots, django_user_model, browser
):  # noqa: ANN001
    settings.EMAIL_BACKEND = "evalhub.accounts.mail.ConsoleAndFileBackend"
    settings.EMAIL_FILE_PATH = folder = tmp_path / "mail"
    settings.SITE_URL = live_server.url  # the links in mails lead to it
    axe = Axe()
    problems: list[str] = []
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(30_000)

    def audit(name: str) -> None:
        problems.extend(at_both_widths(page, axe, screenshots, f"accounts-{name}"))

    page.goto(live_server.url + reverse("account_login"))
    audit("login")
    page.get_by_role("link", name="Sign up").last.click()
    page.wait_for_url("**/accounts/signup/")
    audit("signup")
    page.get_by_label("Username").fill("zoë_newcomer")
    page.get_by_label("Email").fill("zoe@example.org")
    page.get_by_label("Password:", exact=True).fill("a-long-passphrase-42")
    page.get_by_label("Password (again)").fill("a-long-passphrase-42")
    page.get_by_role("button", name="Create account").click()
    page.get_by_text("Signed in as").wait_for()
    assert page.get_by_text("zoë_newcomer").first.is_visible()

    page.goto(mail_files.link(folder, "zoe@example.org", "/accounts/confirm-email/"))
    audit("confirm-email")
    page.get_by_role("button", name="Confirm").click()
    # On to the home page (no destination was given), with what to do next.
    page.get_by_text("Your e-mail address is verified").wait_for()
    assert page.url == live_server.url + reverse("competitions:task-list")
    page.goto(live_server.url + reverse("account_email"))
    audit("email")
    user = django_user_model.objects.get(username="zoë_newcomer")
    assert EmailAddress.objects.get(user=user).verified

    page.get_by_role("button", name="Log out").click()
    page.get_by_role("link", name="Log in").first.wait_for()
    page.goto(live_server.url + reverse("account_login"))
    page.get_by_role("link", name="Forgot your password?").click()
    page.wait_for_url("**/accounts/password/reset/")
    audit("password-reset")
    page.get_by_label("Email").fill("zoe@example.org")
    page.get_by_role("button", name="Reset My Password").click()
    page.wait_for_url("**/accounts/password/reset/done/")
    page.goto(
        mail_files.link(folder, "zoe@example.org", "/accounts/password/reset/key/")
    )
    page.wait_for_url("**-set-password/")
    audit("password-reset-key")
    page.get_by_label("New Password:", exact=True).fill("another-passphrase-43")
    page.get_by_label("New Password (again)").fill("another-passphrase-43")
    page.get_by_role("button", name="Change Password").click()
    page.wait_for_url("**/accounts/password/reset/key/done/")

    page.goto(live_server.url + reverse("account_login"))
    page.get_by_label("Username").fill("zoë_newcomer")
    page.get_by_label("Password").fill("another-passphrase-43")
    page.get_by_role("button", name="Log in").click()
    page.get_by_text("Signed in as").wait_for()
    page.goto(live_server.url + reverse("account_change_password"))
    audit("password-change")
    page.get_by_role("link", name="Notification e-mails").click()
    page.wait_for_url("**/notifications/mail/")
    audit("notification-mails")
    page.get_by_label("E-mail me these notifications").uncheck()
    page.get_by_role("button", name="Save").click()
    page.get_by_text("No more of these e-mails.").wait_for()
    context.close()
    assert not problems, "\n".join(problems)
