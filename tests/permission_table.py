"""The permission matrix's table (tests/permission_world.py uses it): the status
each role gets for each URL name (anonymous, participant, other team, organiser),
and the names of the usual rows."""

from __future__ import annotations

ROLES = ("anonymous", "participant", "other_team", "organiser")
ALL_200 = (200, 200, 200, 200)
LOGIN_FIRST = (302, 200, 200, 200)
POST_ONLY = (302, 405, 405, 405)
ORGANISER_ONLY = (404, 404, 404, 200)
TEAM_ONLY = (404, 200, 404, 200)
#: Organiser pages behind login: anonymous users are sent to log in first.
ORGANISER_PAGE = (302, 404, 404, 200)
GONE = (404, 404, 404, 404)
#: Creating tasks: a signed-in user without the right is told how to get it (403).
CREATE_PAGE = (302, 403, 403, 200)
#: The organiser API: a token is required, and it must be an organiser's.
ORGANISER_API = (401, 403, 403, 200)


TABLE: dict[str, tuple[int, ...]] = {
    # Accounts (django-allauth, evalhub/accounts/): the entrance pages send a
    # signed-in user on, the account's own pages ask for a login first.
    "account_login": (200, 302, 302, 302),
    "account_signup": (200, 302, 302, 302),
    "account_logout": (302, 200, 200, 200),  # a page to confirm; logging out is a POST
    "account_inactive": ALL_200,
    "account_reauthenticate": LOGIN_FIRST,
    "account_email": LOGIN_FIRST,
    "account_email_verification_sent": ALL_200,
    "account_change_password": LOGIN_FIRST,
    # Users who have a password are sent to change it instead.
    "account_set_password": (302, 302, 302, 302),
    "account_reset_password": ALL_200,
    "account_reset_password_done": ALL_200,
    # An unknown key or token: a page saying the link is invalid or has expired.
    "account_confirm_email": ALL_200,
    "account_reset_password_from_key": ALL_200,
    "account_reset_password_from_key_done": ALL_200,
    # Logins by code are off: no code was asked for, back to the login page.
    "account_confirm_login_code": (302, 302, 302, 302),
    # Sign-in through another site (accounts/urls.py): a provider that is not
    # configured (none is here) has no page; the linked accounts' page is one's own.
    "github_login": GONE,
    "github_callback": GONE,
    "orcid_login": GONE,
    "orcid_callback": GONE,
    "openid_connect_login": GONE,
    "openid_connect_callback": GONE,
    "socialaccount_connections": LOGIN_FIRST,
    "socialaccount_signup": (302, 302, 302, 302),  # no sign-in under way: to login
    "socialaccount_login_cancelled": ALL_200,
    "socialaccount_login_error": (401, 401, 401, 401),
    "api:api-v1:openapi-json": ALL_200,
    "api:api-v1:openapi-view": ALL_200,
    "api:api-v1:task-list": ALL_200,
    "api:api-v1:task-detail": ALL_200,
    "api:api-v1:leaderboard-detail": ALL_200,
    "api:api-v1:run-list": (401, 200, 200, 200),
    "api:api-v1:run-create": (401, 200, 200, 200),  # GET on the shared path
    "api:api-v1:run-detail": ALL_200,
    "api:api-v1:api-root": GONE,
    # The organiser API (tests/api/test_organiser_api.py adds revoked tokens,
    # organisers of other tasks and every POST and DELETE).
    "api:api-v1:bundle-import": (405, 405, 405, 405),  # POST only
    "api:api-v1:task-run-list": ORGANISER_API,
    "api:api-v1:task-run-file": ORGANISER_API,
    "api:api-v1:phase-runs-zip": ORGANISER_API,
    # ("ranking" is the section; PUT in tests/api/test_ranking_settings_api.py.)
    "api:api-v1:phase-settings-detail": ORGANISER_API,
    "api:api-v1:phase-settings-change": ORGANISER_API,
    "api:api-v1:test-data-draft-create": (405, 405, 405, 405),  # POST only
    # No such draft ("x"): not found, for the organiser too.
    "api:api-v1:test-data-draft-detail": (401, 403, 403, 404),
    "api:token-list": LOGIN_FIRST,
    "api:token-revoke": POST_ONLY,
    "api:runs-export": ORGANISER_ONLY,
    "competitions:task-list": ALL_200,
    "competitions:task-detail": ALL_200,
    "competitions:task-register": LOGIN_FIRST,
    "competitions:run-submit": LOGIN_FIRST,
    "competitions:leaderboard-detail": ALL_200,
    "competitions:leaderboard-json": ALL_200,
    "competitions:run-detail": ALL_200,
    "competitions:run-status": ALL_200,
    "competitions:run-file": TEAM_ONLY,
    "competitions:run-rescore": POST_ONLY,
    "competitions:run-item-detail": ORGANISER_ONLY,
    "competitions:task-dashboard": ORGANISER_PAGE,
    "competitions:task-rescoring": ORGANISER_PAGE,
    "competitions:registration-decide": POST_ONLY,
    # Creating tasks and site staff's page of who may (the world's organiser is a
    # staff user; tests/competitions/test_task_creators.py covers granted users and
    # every EVALHUB_TASK_CREATORS value).
    "competitions:bundle-import": CREATE_PAGE,
    "competitions:creator-list": ORGANISER_PAGE,
    "competitions:baseline-create": (302, 404, 404, 200),
    "teams:team-list": LOGIN_FIRST,
    "teams:team-create": POST_ONLY,
    "teams:team-detail": ALL_200,
    "teams:invitation-create": POST_ONLY,
    "teams:team-leave": POST_ONLY,
    # An invitation of the participant's team to a fifth user: its team sees it.
    "teams:invitation-detail": (302, 200, 404, 404),
    "teams:invitation-accept": POST_ONLY,
    "teams:invitation-decline": POST_ONLY,
    "teams:invitation-revoke": POST_ONLY,
    "teams:invitation-join": LOGIN_FIRST,
    "notifications:notification-list": LOGIN_FIRST,
    "notifications:notification-bell": LOGIN_FIRST,
    "notifications:notification-read-all": POST_ONLY,
    "notifications:notification-open": POST_ONLY,
    "notifications:mail-settings": LOGIN_FIRST,
    "competitions:run-final": POST_ONLY,
    "competitions:run-visibility": POST_ONLY,
    "factsheets:question-list": ORGANISER_PAGE,
    "factsheets:question-edit": ORGANISER_PAGE,
    "factsheets:question-delete": POST_ONLY,
    "factsheets:question-move": POST_ONLY,
    "factsheets:team-sheets": LOGIN_FIRST,  # each team its own sheets
    "factsheets:run-sheet": (302, 200, 404, 200),
    "factsheets:run-paper": (302, 200, 404, 404),  # the team's (after closing)
    # No runs chosen: the page explains how to choose 2 to 5.
    "competitions:runs-compare": (400, 400, 400, 400),
    # A compare figure of no runs chosen: not found (the page's figures are tested
    # role by role in tests/competitions/test_compare_figures.py).
    "competitions:runs-compare-figure": GONE,
    # A private test set is not revealed: organisers only. A first request is
    # answered "being prepared" (202) while a worker draws the figures as PDF
    # (tests/rankings/test_package.py); here the crawl has already downloaded the
    # comparison figures as PDF (api:figure-export, each kept once drawn), so the
    # package is ready.
    "rankings:package": (404, 404, 404, 200),
    # Tracks of a phase (console/views/tracks.py); the world's phase has no track
    # "x": not found even for its organisers (tests/console/test_tracks_pages.py
    # covers a real track role by role).
    "console:track-list": ORGANISER_PAGE,
    "console:track-edit": (302, 404, 404, 404),
    "console:track-move": POST_ONLY,
    "console:track-delete": POST_ONLY,
    "console:track-limits": POST_ONLY,
    # The console's test sets and gold (tests/console/test_gold_permissions.py adds
    # organisers of other tasks and every POST).
    "console:testsets": ORGANISER_PAGE,
    "console:testset-create": ORGANISER_PAGE,
    "console:testset-edit": ORGANISER_PAGE,
    "console:testset-files": ORGANISER_PAGE,
    "console:testset-visibility": ORGANISER_PAGE,
    "console:testset-reveal": ORGANISER_PAGE,
    "console:gold-release": ORGANISER_PAGE,
    # No such draft ("x"): not found, for the organiser too.
    "console:gold-draft": (302, 404, 404, 404),
    "console:gold-draft-discard": POST_ONLY,
    # The organiser console (task set-up, phases, people, previews).
    "console:task-create": CREATE_PAGE,
    "console:markdown-preview": POST_ONLY,
    "console:task-settings": ORGANISER_PAGE,
    "console:archive-export": POST_ONLY,
    "console:archive-status": ORGANISER_PAGE,
    # Only once a worker has written one (tests/console/test_archive_export.py).
    "console:task-archive": (302, 404, 404, 404),
    "console:phases": ORGANISER_PAGE,
    "console:phase-create": ORGANISER_PAGE,
    "console:phase-edit": ORGANISER_PAGE,
    "console:phase-move": POST_ONLY,
    "console:organisers": ORGANISER_PAGE,
    "console:organiser-remove": POST_ONLY,
    "console:announcements": ORGANISER_PAGE,
    # Messages to teams (evalhub/mailings; tests/mailings/test_permissions.py adds
    # co-organisers, organisers of other tasks, staff and the POSTs). No such
    # message: not found, for the organiser too.
    "console:messages": ORGANISER_PAGE,
    "console:message-create": ORGANISER_PAGE,
    "console:message-detail": (302, 404, 404, 404),
    "console:message-progress": (302, 404, 404, 404),
    "console:preview-participant": ORGANISER_PAGE,
    "console:preview-public": ORGANISER_PAGE,
    "console:preview-leaderboard": ORGANISER_PAGE,
    # The evaluation after the campaign (tests/console/test_after_campaign_page.py
    # adds organisers of other tasks, co-organisers and the POSTs).
    "console:after-campaign": ORGANISER_PAGE,
    "console:after-campaign-close": POST_ONLY,
    # Every run of the task (console/views/runs.py; tests/console/test_runs_page.py
    # adds organisers of other tasks and the bulk actions' POSTs).
    "console:runs": ORGANISER_PAGE,
    "console:ranking": ORGANISER_PAGE,
    # Data terms and the roster (tests/participation/test_permissions.py adds
    # co-organisers, organisers of other tasks, staff, the POSTs and a task with
    # terms).
    "participation:terms": ALL_200,
    "participation:profile": LOGIN_FIRST,
    "console:data-terms": ORGANISER_PAGE,
    "console:participants": ORGANISER_PAGE,
    "console:participants-export": ORGANISER_PAGE,
    "api:api-v1:roster": ORGANISER_API,
    "api:api-v1:roster-csv": ORGANISER_API,
    # The boards' embeds and badges: the public's, whoever asks (a private test
    # set's say its scores are private; tests/embeds/ and the leak tests).
    "embeds:board-embed": ALL_200,
    "embeds:overall-embed": ALL_200,
    "embeds:board-badge": ALL_200,
    "embeds:overall-badge": ALL_200,
    "console:embeds": ORGANISER_PAGE,
}
