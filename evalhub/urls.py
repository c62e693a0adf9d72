from __future__ import annotations

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView

from evalhub.console import urls as console_urls
from evalhub.embeds import urls as embeds_urls
from evalhub.mailings import urls as mailings_urls
from evalhub.participation import urls as participation_urls
from evalhub.rankings import urls as rankings_urls

#: The organiser console: its own pages and those feature apps provide under its
#: look (they may not import the console, nor it them: the wiring joins them).
console = (
    console_urls.urlpatterns
    + rankings_urls.console_urlpatterns
    + participation_urls.console_urlpatterns
    + embeds_urls.console_urlpatterns
    + mailings_urls.console_urlpatterns,
    "console",
)

#: allauth answers its own limits with the project's handler (Retry-After included).
handler429 = "evalhub.accounts.views.too_many_requests"
#: Every error is the site's page with a way on (competitions/error_pages.py).
handler400 = "evalhub.competitions.views.errors.bad_request"
handler403 = "evalhub.competitions.views.errors.permission_denied"
handler404 = "evalhub.competitions.views.errors.page_not_found"
handler500 = "evalhub.competitions.views.errors.server_error"

urlpatterns = [
    # Browsers and crawlers ask for /favicon.ico whatever the pages link to.
    path(
        "favicon.ico",
        RedirectView.as_view(url=lazy(static, str)("favicon.svg"), permanent=True),
    ),
    path("admin/", admin.site.urls),
    path("accounts/", include("evalhub.accounts.urls")),
    path("", include("evalhub.api.urls")),
    path("annotate/", include("evalhub.annotations.urls")),
    path("rankings/", include("evalhub.rankings.urls")),
    path("teams/", include("evalhub.teams.urls")),
    path("notifications/", include("evalhub.notifications.urls")),
    path("", include(console)),
    path("", include("evalhub.factsheets.urls")),
    path("", include("evalhub.participation.urls")),
    path("", include("evalhub.embeds.urls")),
    path("", include("evalhub.competitions.urls")),
]
