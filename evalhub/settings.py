"""Django settings. Every value comes from the environment through ``evalhub.env``
(all variables, with defaults, are listed in ``.env.example``). With no configuration
evalhub uses a SQLite file, an embedded Redis on a socket under ``EVALHUB_VAR_DIR`` and
local folders; ``DATABASE_URL`` and ``REDIS_URL`` switch to real services."""

from __future__ import annotations

import secrets
from pathlib import Path

import dj_database_url

from evalhub import settings_blocks, worker_queues
from evalhub.env import env_bool, env_int, env_list, env_str, env_task_creators

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("EVALHUB_VAR_DIR", str(BASE_DIR / "var"))).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DJANGO_DEBUG", False)


def _secret_key() -> str:
    key = env_str("DJANGO_SECRET_KEY")
    if key:
        return key
    # Zero-config installs keep a generated key beside their data.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
CSRF_FAILURE_VIEW = "evalhub.competitions.views.errors.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "evalhub.apps.EvalhubConfig",  # project wiring: the Celery app
    "allauth",  # accounts with e-mail: sign-up, verification, reset, change
    "allauth.account",
    *settings_blocks.SOCIAL_APPS,  # sign-in with ORCID, GitHub, OpenID Connect
    "evalhub.accounts",
    "evalhub.competitions",
    "evalhub.annotations",
    "ninja",  # the API docs page serves its bundled Swagger UI, no CDN
    "evalhub.api",
    "evalhub.rankings",
    "evalhub.teams",
    "evalhub.console",
    "evalhub.factsheets",
    "evalhub.participation",
    "evalhub.embeds",
    "evalhub.notifications",
    "evalhub.mailings",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "evalhub.competitions.upload_limits.UploadSizeMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "evalhub.competitions.ratelimit.RateLimitMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "evalhub.competitions.middleware.ViewerTimezoneMiddleware",
]

ROOT_URLCONF = "evalhub.urls"
WSGI_APPLICATION = "evalhub.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "evalhub.notifications.context_processors.unread",
            ],
            "builtins": [
                "evalhub.competitions.templatetags.urls_kept",  # {% url %}
                "evalhub.competitions.templatetags.static_kept",  # {% static %}
            ],
        },
    },
]

# --- database ---------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL, conn_max_age=60, conn_health_checks=True
        )
    }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": Path(
                env_str("EVALHUB_SQLITE_PATH", str(VAR_DIR / "evalhub.sqlite3"))
            ),
            "OPTIONS": {
                "timeout": 30,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
            # A file, not memory: end-to-end tests share it with a worker process.
            "TEST": {"NAME": str(VAR_DIR / "test.sqlite3")},
            # Kept as PostgreSQL's: a new one per request was 2/3 of a cached page's CPU
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: broker and cache ------------------------------------------------------
EMBEDDED_REDIS_SOCKET = VAR_DIR / "redis.sock"
if len(str(EMBEDDED_REDIS_SOCKET)) > 100:  # AF_UNIX paths are limited to ~107 bytes
    import hashlib
    import tempfile

    _tag = hashlib.sha256(str(VAR_DIR).encode()).hexdigest()[:12]
    EMBEDDED_REDIS_SOCKET = (
        Path(tempfile.gettempdir()) / f"evalhub-{_tag}" / "redis.sock"
    )
REDIS_URL = env_str("REDIS_URL")
USING_EMBEDDED_REDIS = not REDIS_URL
if USING_EMBEDDED_REDIS:
    _broker = f"redis+socket://{EMBEDDED_REDIS_SOCKET}"
    _cache = f"unix://{EMBEDDED_REDIS_SOCKET}"
else:
    _broker = _cache = REDIS_URL

CACHES = {
    "default": {
        "BACKEND": "evalhub.cache.RedisCache",
        "LOCATION": _cache,
        "KEY_PREFIX": env_str("EVALHUB_CACHE_PREFIX", "evalhub"),
        "TIMEOUT": 3600,
    }
}

# The longest a run may take to score (seconds). The sweeper and the broker's
# visibility timeout are derived from it.
SCORING_SOFT_TIME_LIMIT = env_int("EVALHUB_SCORING_SOFT_TIME_LIMIT", 600, minimum=1)
SCORING_TIME_LIMIT = SCORING_SOFT_TIME_LIMIT + 30
SCORING_MAX_ATTEMPTS = env_int("EVALHUB_SCORING_MAX_ATTEMPTS", 3, minimum=1)
# A large run's validation job is sent at most this often before the run is rejected.
VALIDATION_MAX_ATTEMPTS = env_int("EVALHUB_VALIDATION_MAX_ATTEMPTS", 3, minimum=1)
SWEEP_INTERVAL = env_int("EVALHUB_SWEEP_INTERVAL", 60, minimum=1)
QUEUED_REENQUEUE_AFTER = env_int("EVALHUB_QUEUED_REENQUEUE_AFTER", 300, minimum=1)
# The sweeper re-sends the job drawing a scored run's figures still pending then.
RUN_FIGURES_RESEND_AFTER = env_int("EVALHUB_RUN_FIGURES_RESEND_AFTER", 600, minimum=1)
RUN_FIGURES_SOFT_TIME_LIMIT = 120
RUN_FIGURES_TIME_LIMIT = RUN_FIGURES_SOFT_TIME_LIMIT + 30
# A scoring worker refreshes its row's heartbeat this often; the sweeper requeues rows
# whose heartbeat is older than STALE_AFTER (worker killed, machine lost).
SCORING_HEARTBEAT_INTERVAL = env_int(
    "EVALHUB_SCORING_HEARTBEAT_INTERVAL", 10, minimum=1
)
SCORING_HEARTBEAT_STALE_AFTER = env_int(
    "EVALHUB_SCORING_HEARTBEAT_STALE_AFTER", 60, minimum=2
)
# Address-space limit (MiB) of a worker process while it scores; 0 = no limit.
SCORING_MEMORY_LIMIT_MB = env_int("EVALHUB_SCORING_MEMORY_LIMIT_MB", 0, minimum=0)
# Seconds a test set's statistics/analyses refresh waits after a scored run, so the
# runs scored meanwhile share it (services/refreshes.py).
REFRESH_DELAY = env_int("EVALHUB_REFRESH_DELAY", 5, minimum=0)
# ... or this many times the last refresh's duration, if longer: a sustained burst
# spends at most 1 / (1 + BACKOFF) of a worker on each test set's refreshes.
REFRESH_BACKOFF = env_int("EVALHUB_REFRESH_BACKOFF", 4, minimum=0)
# Beat sends the refreshes that are due this often (seconds).
REFRESH_TICK = env_int("EVALHUB_REFRESH_TICK", 1, minimum=1)
# Nice level a Celery worker lowers itself to when it starts (0..19; 0 = unchanged):
# on a machine that also serves pages, scoring takes only the CPU the web leaves
# (evalhub/celery.py; docs/deploy.md).
WORKER_NICE = env_int("EVALHUB_WORKER_NICE", 10, minimum=0)

# The console's archive export (a worker job, console/services/archive_exports.py):
# its time limit (seconds; the hard one 30 s more, below the broker's visibility
# timeout so a running export is never handed to a second worker), how often a
# request is claimed again after its worker was lost, the address-space cap while
# writing (MiB, 0 = none), and how long a written archive is kept before the
# sweeper deletes it (hours).
ARCHIVE_EXPORT_SOFT_TIME_LIMIT = env_int(
    "EVALHUB_ARCHIVE_EXPORT_SOFT_TIME_LIMIT", 900, minimum=1
)
ARCHIVE_EXPORT_TIME_LIMIT = ARCHIVE_EXPORT_SOFT_TIME_LIMIT + 30
ARCHIVE_EXPORT_MAX_ATTEMPTS = env_int(
    "EVALHUB_ARCHIVE_EXPORT_MAX_ATTEMPTS", 2, minimum=1
)
ARCHIVE_EXPORT_MEMORY_LIMIT_MB = env_int(
    "EVALHUB_ARCHIVE_EXPORT_MEMORY_LIMIT_MB", 0, minimum=0
)
ARCHIVE_EXPORT_KEEP_HOURS = env_int("EVALHUB_ARCHIVE_EXPORT_KEEP_HOURS", 24, minimum=1)

CELERY_BROKER_URL = _broker
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": max(SCORING_TIME_LIMIT, ARCHIVE_EXPORT_TIME_LIMIT) * 2
}
# Processes that share one Redis database but not one database of rows (parallel test
# runs) keep their queues apart with a prefix on every broker key.
if env_str("EVALHUB_BROKER_KEY_PREFIX"):
    CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"] = env_str(
        "EVALHUB_BROKER_KEY_PREFIX"
    )
# A run's own figures: the scoring queue at the lowest message priority (why:
# ``evalhub/worker_queues.py``), taken after every waiting score and refresh.
CELERY_BROKER_TRANSPORT_OPTIONS["priority_steps"] = worker_queues.PRIORITY_STEPS
RUN_FIGURES_PRIORITY = worker_queues.LOWEST
CELERY_TASK_DEFAULT_QUEUE = worker_queues.DEFAULT
CELERY_TASK_ROUTES = worker_queues.ROUTES  # the jobs not on the default queue
# What each kind of worker consumes (``evalhub/worker_queues.py``, the one place).
WORKER_QUEUES = worker_queues.WORKERS
CELERY_TASK_ALWAYS_EAGER = False
# Beat's ticks: the sweepers, private test sets due for their reveal at the end
# of their phase, messages to teams with deliveries due (a failed send, a lost job).
CELERY_BEAT_SCHEDULE = {
    name: {"task": f"evalhub.{task}", "schedule": float(SWEEP_INTERVAL)}
    for name, task in (
        ("sweep-submissions", "competitions.jobs.sweep_submissions"),
        ("reveal-test-sets", "competitions.jobs.reveal_due_test_sets"),
        ("resume-messages", "mailings.jobs.resume_messages"),
        ("sweep-archive-exports", "console.jobs.sweep_archive_exports"),
    )
} | {
    "dispatch-refreshes": {
        "task": "evalhub.competitions.jobs.dispatch_refreshes",
        "schedule": float(REFRESH_TICK),
        # A tick still waiting behind a long job is dropped: the next one does it.
        "options": {"expires": float(REFRESH_TICK)},
    },
}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# --- files ------------------------------------------------------------------------
PRIVATE_ROOT = Path(env_str("EVALHUB_PRIVATE_ROOT", str(VAR_DIR / "private"))).resolve()
# The local folder, or S3 with EVALHUB_STORAGE=s3 (settings_blocks.storages).
STORAGES = settings_blocks.storages(PRIVATE_ROOT)
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = True

MAX_UPLOAD_BYTES = env_int("EVALHUB_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# Zips (run files and task bundles, evalhub/competitions/archives.py): checked on
# their directory first, then counted while inflating.
ZIP_MAX_MEMBERS = env_int("EVALHUB_ZIP_MAX_MEMBERS", 10_000, minimum=1)
ZIP_MAX_MEMBER_BYTES = env_int(
    "EVALHUB_ZIP_MAX_MEMBER_BYTES", 64 * 1024 * 1024, minimum=1024
)
ZIP_MAX_TOTAL_BYTES = env_int(
    "EVALHUB_ZIP_MAX_TOTAL_BYTES", 256 * 1024 * 1024, minimum=1024
)
ZIP_MAX_RATIO = env_int("EVALHUB_ZIP_MAX_RATIO", 100, minimum=1)
ZIP_RATIO_FLOOR = env_int("EVALHUB_ZIP_RATIO_FLOOR", 8 * 1024 * 1024, minimum=0)
# A task's archive (manage.py archive import): every run and figure of a campaign,
# so more members and bytes than an upload (its rows.jsonl holds every score and
# per-item result); the ratio as for zips.
ARCHIVE_MAX_MEMBERS = env_int("EVALHUB_ARCHIVE_MAX_MEMBERS", 200_000, minimum=1)
ARCHIVE_MAX_MEMBER_BYTES = env_int(
    "EVALHUB_ARCHIVE_MAX_MEMBER_BYTES", 1024 * 1024 * 1024, minimum=1024
)
ARCHIVE_MAX_TOTAL_BYTES = env_int(
    "EVALHUB_ARCHIVE_MAX_TOTAL_BYTES", 8 * 1024 * 1024 * 1024, minimum=1024
)
# Runs that inflate to at most this many bytes are parsed in the web request (errors
# at once); larger ones by a validation job in a child process with its own CPU-time
# and memory limits (services/validation.py).
INLINE_VALIDATION_BYTES = env_int(
    "EVALHUB_INLINE_VALIDATION_BYTES", 2 * 1024 * 1024, minimum=0
)
VALIDATION_CPU_SECONDS = env_int("EVALHUB_VALIDATION_CPU_SECONDS", 60, minimum=1)
VALIDATION_MEMORY_MB = env_int("EVALHUB_VALIDATION_MEMORY_MB", 1536, minimum=0)
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
FILE_UPLOAD_HANDLERS = [
    "evalhub.competitions.upload_limits.MaxSizeUploadHandler",  # stops at the limit
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# Rate limits ("<count>/<seconds>"), counted in the cache: failed logins per client
# address, submissions per user. RATELIMIT_CLIENT_HEADER: a META key set by a trusted
# proxy (e.g. HTTP_X_REAL_IP); empty = REMOTE_ADDR.
LOGIN_RATE = env_str("EVALHUB_LOGIN_RATE", "10/300")
LOGIN_ADDRESS_RATE = env_str("EVALHUB_LOGIN_ADDRESS_RATE", "30/300")
SUBMIT_RATE = env_str("EVALHUB_SUBMIT_RATE", "30/600")
RATELIMIT_CLIENT_HEADER = env_str("EVALHUB_RATELIMIT_CLIENT_HEADER", "")

# --- auth, i18n -------------------------------------------------------------------
# Django's ModelBackend, loading the signed-in user with a precompiled query.
AUTHENTICATION_BACKENDS = ["evalhub.accounts.backends.ModelBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {
        "NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"
    },
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Who may create tasks besides site staff and the users granted the right on the
# staff page /staff/creators/ (competitions/services/roles.py, may_create_tasks):
# "staff" (nobody else), "verified" (every user with a verified e-mail address) or
# "group:<name>" (the members of that Django group).
TASK_CREATORS = env_task_creators("EVALHUB_TASK_CREATORS")
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "competitions:task-list"
LOGOUT_REDIRECT_URL = "competitions:task-list"

# Accounts (django-allauth, evalhub/accounts/): a user name and an e-mail address at
# sign-up, the address verified by a link (optional: accounts without an address,
# such as older ones, still log in and can add one), password reset by a link,
# a change of address takes effect once the new one is verified. Logins are by
# user name (NFKC-normalised) or verified address (accounts/adapter.py). An address
# belongs to the account that verified it; no form tells whether it has an account.
ACCOUNT_ADAPTER = "evalhub.accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {"login": "evalhub.accounts.forms.LoginForm"}
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_PREVENT_ENUMERATION = "strict"
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True
# After following a verification link: where the user was going, else the home page
# (AccountAdapter.get_email_verification_redirect_url).
ACCOUNT_EMAIL_NOTIFICATIONS = True  # "your password / address was changed"
ACCOUNT_SESSION_REMEMBER = True  # sessions last as before; no "remember me" box
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[evalhub] "
# Failed logins are limited by evalhub's own rule (competitions/ratelimit.py: 429
# with Retry-After, per address and per normalised name, only failures counted), the
# one rule for every login form; allauth's limits of the other actions (reset
# mails, sign-ups, verification mails) stay as they are.
# Verification mails: 3 per address in 3 minutes (allauth's 1 let a squatter silence
# the owner's link).
ACCOUNT_RATE_LIMITS = {"login": None, "login_failed": None, "confirm_email": "3/3m/key"}
# Sign-in with GitHub, ORCID, OpenID Connect providers (settings_blocks.social_accounts).
globals().update(settings_blocks.social_accounts())

# --- e-mail ---------------------------------------------------------------------------
# SMTP with EVALHUB_EMAIL_HOST, else the console and a file per message in mail/
# (settings_blocks.email): EMAIL_HOST, EMAIL_BACKEND and, for SMTP, the rest.
globals().update(settings_blocks.email())
EMAIL_FILE_PATH = VAR_DIR / "mail"
DEFAULT_FROM_EMAIL = env_str("EVALHUB_EMAIL_FROM", "evalhub <noreply@localhost>")
# The site's public address, the start of every absolute link: in mails sent by
# workers (no request tells the host) and by requests (account mails), invitation
# links (competitions/public_url.py). manage.py up sets it from --bind.
SITE_URL = settings_blocks.site_url()
SERVER_EMAIL = DEFAULT_FROM_EMAIL

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- production hardening (manage.py check --deploy) -------------------------------
SECURE = env_bool("EVALHUB_SECURE", False)
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_SSL_REDIRECT = SECURE
SECURE_HSTS_SECONDS = 31536000 if SECURE else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE
SECURE_HSTS_PRELOAD = SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE else None
SESSION_COOKIE_HTTPONLY = True
# Sessions read from Redis, written to both: a signed-in page costs no session query.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# Links in mails (verification, reset) use the scheme the site is served with.
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if SECURE else "http"
X_FRAME_OPTIONS = "DENY"

LOGGING = settings_blocks.logging(env_str("EVALHUB_LOG_LEVEL", "INFO"))
