"""Baize settings: every deployment-specific value comes from the environment.

The README lists each variable with its default. Unset ``DATABASE_URL`` means a SQLite file
under ``var/``; unset ``CELERY_BROKER_URL`` means tasks run in-process (eager).
"""

from __future__ import annotations

import json
import secrets
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from base.queues import PRIORITY_STEPS

from .env import env_bool, env_choice, env_float, env_int, env_list, env_rate, env_str
from .observability import cache_counting_reads, log_formatters, metrics_multiprocess_dir

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("BAIZE_VAR_DIR", str(BASE_DIR / "var")))
try:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
except OSError as error:
    raise ImproperlyConfigured(f"BAIZE_VAR_DIR cannot be created: {error}") from None

DEBUG = env_bool("DEBUG", False)
#: The commands that only play bots on this machine (``manage.py play``, ``version_test``):
#: they serve nothing and sign nothing that outlives them.
HOME_PLAY_COMMANDS = ("play", "version_test")


def _home_play(argv: list[str]) -> bool:
    """This process is ``manage.py`` running a home-play command. Read from the command line
    itself, never from a variable a server's environment could carry: gunicorn, Celery and
    every other ``manage.py`` command still need ``SECRET_KEY``."""
    return len(argv) > 1 and Path(argv[0]).name == "manage.py" and argv[1] in HOME_PLAY_COMMANDS


SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if DEBUG:
        SECRET_KEY = "insecure-debug-only-key"
    elif _home_play(sys.argv):
        # A key of this process alone: nothing it could sign is read by any other.
        SECRET_KEY = secrets.token_urlsafe(50)
    else:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set unless DEBUG=1 (manage.py play and version_test, which"
            " only play at home, need neither)"
        )
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
if not ALLOWED_HOSTS and not DEBUG:
    # Django would answer every request with 400.
    raise ImproperlyConfigured("ALLOWED_HOSTS must name at least one host unless DEBUG=1")
# Served over HTTPS (behind a proxy that ends TLS): the session and CSRF cookies are sent over
# HTTPS only, and the pages' forms are posted from the public https:// origins listed here.
HTTPS = env_bool("BAIZE_HTTPS", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "games",
    "bots",
    "matches",
    "tournaments",
    "ladder",
    "web",
    "ops",
    "monitoring",
]

MIDDLEWARE = [
    # First: health probes and the metrics scraper are answered before the host is checked.
    "monitoring.middleware.HealthMiddleware",
    "monitoring.middleware.RequestMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "config.requests.RefuseNulInQuery",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context_processors.match_play",
            ],
        },
    },
]


def _database(url: str) -> dict[str, Any]:
    try:
        return dict(dj_database_url.parse(url, conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60)))
    except (ValueError, KeyError) as error:
        raise ImproperlyConfigured(
            f"DATABASE_URL must be a database URL such as postgres://user@host:5432/baize "
            f"or sqlite:///path, got {url!r} ({error})"
        ) from None


DATABASES = {
    "default": _database(env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'baize.sqlite3'}"))
}
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3" and env_str(
    "DATABASE_TEST_NAME", ""
):
    DATABASES["default"]["TEST"] = {"NAME": env_str("DATABASE_TEST_NAME", "")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A worker and the web server share the file: wait for the lock, don't fail. A write
    # transaction takes the lock when it begins (IMMEDIATE), so the wait applies to it: a
    # deferred one that reads first and then writes is refused at once while another writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update(timeout=30, transaction_mode="IMMEDIATE")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True
STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
# gunicorn serves no files: WhiteNoise serves the apps' static files straight from the
# finders, so a deployment needs no collectstatic step and no separate file server.
WHITENOISE_USE_FINDERS = True

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "config.requests.BoundedLimitOffsetPagination",
    "DEFAULT_PARSER_CLASSES": [
        "config.requests.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "PAGE_SIZE": 50,
    "EXCEPTION_HANDLER": "config.api_errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Baize API",
    "DESCRIPTION": "Bots for two-player trick-taking card games, played in tournaments.",
    "VERSION": "0.1.0",
    # Request bodies get their own components: a file field is then a binary string.
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.schema.add_errors_and_anonymous_access",
    ],
    # Swagger UI's scripts and styles come from this service (drf-spectacular-sidecar's static
    # files), not a CDN: /api/docs/ renders on a machine with no internet.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

_BROKER_URL = env_str("CELERY_BROKER_URL", "")
if _BROKER_URL and urlsplit(_BROKER_URL).scheme not in ("redis", "rediss"):
    # The queues' order and priorities (base.queues) are built on Redis's lists.
    raise ImproperlyConfigured(
        f"CELERY_BROKER_URL must be a redis:// or rediss:// URL, got {_BROKER_URL!r}"
    )
CELERY_BROKER_URL = _BROKER_URL or "memory://"
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", "") or None
# No broker configured: run every task in-process, so the embedded default needs no services.
CELERY_TASK_ALWAYS_EAGER = not _BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 3600, minimum=1),
    # Each priority of each queue is a list of its own, 0 taken first; within one priority
    # the queues take turns, so the ladder's built-in filler (priority 9) never holds back
    # what authors wait for (base.queues: the order and its guarantee).
    "priority_steps": PRIORITY_STEPS,
    "sep": ":",
    "queue_order_strategy": "round_robin",
}


def _shared_cache(setting: str, broker_url: str) -> dict[str, Any]:
    """One cache for every web and worker process (throttles count there, so a limit holds
    for the whole service): ``BAIZE_CACHE`` if given (``locmem``, ``db`` or a redis:// URL);
    else Redis beside a Redis broker, in the next database number so that clearing the
    cache never touches the queue; else the database."""
    if setting == "locmem":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    if setting.startswith("redis://") or (not setting and broker_url.startswith("redis://")):
        location = setting or _next_redis_database(broker_url)
        return {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": location}
    if setting not in ("", "db"):
        raise ImproperlyConfigured(f"BAIZE_CACHE must be locmem, db or a redis:// URL: {setting!r}")
    return {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": CACHE_TABLE}


def _next_redis_database(url: str) -> str:
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(number + 1) % 16}"))


#: The table of the database cache (created by the bots app's migration 0004).
CACHE_TABLE = "baize_cache"
#: Metrics (``/metrics``, README "Monitoring"): recorded unless ``BAIZE_METRICS=0``; scraped
#: by staff or with the bearer token ``BAIZE_METRICS_TOKEN``, never by anyone by default.
BAIZE_METRICS = env_bool("BAIZE_METRICS", True)
BAIZE_METRICS_TOKEN = env_str("BAIZE_METRICS_TOKEN", "")
#: A Celery worker's own metrics endpoint (its processes' counts; 0: none), for a worker
#: that shares no ``PROMETHEUS_MULTIPROC_DIR`` with a web process (another host, container).
BAIZE_WORKER_METRICS_PORT = env_int("BAIZE_WORKER_METRICS_PORT", 0)
PROMETHEUS_MULTIPROC_DIR = metrics_multiprocess_dir()
CACHES = {"default": _shared_cache(env_str("BAIZE_CACHE", ""), _BROKER_URL)}
if BAIZE_METRICS:
    CACHES["default"] = cache_counting_reads(CACHES["default"])

#: Seconds a bot may think about one decision before it forfeits.
BAIZE_DECISION_TIMEOUT = env_float("BAIZE_DECISION_TIMEOUT", 1.0, minimum=0.01)
#: Seconds a bot has to start and send its first reply.
BAIZE_BOT_START_TIMEOUT = env_float("BAIZE_BOT_START_TIMEOUT", 5.0, minimum=0.1)
#: Pin each match (runner and its bots) to one CPU: the largest latency gain measured here.
BAIZE_PIN_MATCHES = env_bool("BAIZE_PIN_MATCHES", True)

_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: ``json``: one JSON object a line from web, worker and beat (``monitoring.logs``).
LOG_FORMAT = env_choice("LOG_FORMAT", "TEXT", ("TEXT", "JSON")).lower()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": log_formatters(),
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "WARNING", _LOG_LEVELS)},
    # kombu warns that the in-memory broker of the eager default has no host name.
    "loggers": {"kombu.connection": {"level": "ERROR"}},
}

# Tournaments: the periodic tick (django-celery-beat) and the leases of running matches.
# Recovery (README, "Recovery"): a match whose worker died is replaced within lease + tick;
# a pending match whose message was lost (Redis restarted, PostgreSQL down when it was
# taken) is sent again within redispatch + tick. The defaults keep both under three minutes.
#: Seconds between two ticks: start due tournaments, next rounds, replace dead matches.
#: Whole seconds: django-celery-beat stores an interval as an integer, so 0.5 would become
#: 0 and beat would send ticks without pause.
BAIZE_TICK_SECONDS = env_int(
    "BAIZE_TICK_SECONDS", 10, minimum=1, why="the beat schedule counts whole seconds"
)
#: Seconds a worker's claim on a running match lasts; its runner renews it every third of that.
BAIZE_MATCH_LEASE_SECONDS = env_int("BAIZE_MATCH_LEASE_SECONDS", 60, minimum=2)
#: Seconds after which a match still pending is sent again (its message may have died).
BAIZE_MATCH_REDISPATCH_SECONDS = env_int("BAIZE_MATCH_REDISPATCH_SECONDS", 120, minimum=1)
#: Attempts at one match (a failed one is replaced) before it waits for an organiser.
BAIZE_MATCH_ATTEMPTS = env_int("BAIZE_MATCH_ATTEMPTS", 3, minimum=1)
#: The longest series: matches one bot process per seat may play in a row (docs/bot-protocol.md).
BAIZE_SERIES_MAX_MATCHES = env_int("BAIZE_SERIES_MAX_MATCHES", 20, minimum=1)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BEAT_SCHEDULE = {
    "tournaments-tick": {
        "task": "tournaments.tasks.tournament_tick",
        "schedule": BAIZE_TICK_SECONDS,
        # A tick that waited longer than one period in the queue is dropped: the next
        # one does the same work, so ticks never pile up behind long matches.
        "options": {"expires": BAIZE_TICK_SECONDS},
    },
    "ladder-tick": {
        "task": "ladder.tasks.ladder_tick_task",
        "schedule": BAIZE_TICK_SECONDS,
        "options": {"expires": BAIZE_TICK_SECONDS},
    },
}
#: Ladder sets each game keeps in flight, and how the matchmaker chooses (docs/ladder.md).
BAIZE_LADDER_SETS_IN_FLIGHT = env_int("BAIZE_LADDER_SETS_IN_FLIGHT", 6, minimum=0)
BAIZE_LADDER_SETS_PER_PAIRING = env_int("BAIZE_LADDER_SETS_PER_PAIRING", 3, minimum=1)
BAIZE_LADDER_PLACEMENT_SETS = env_int("BAIZE_LADDER_PLACEMENT_SETS", 10, minimum=0)
BAIZE_LADDER_PAIR_CAP = env_int("BAIZE_LADDER_PAIR_CAP", 3, minimum=1)
BAIZE_LADDER_RECENT_HOURS = env_int("BAIZE_LADDER_RECENT_HOURS", 24, minimum=1)
BAIZE_LADDER_STARVING_MINUTES = env_int("BAIZE_LADDER_STARVING_MINUTES", 10, minimum=1)
#: A new version's first ladder matches watched as its upload check is: one it forfeits (a
#: crash, a timeout, a protocol error) marks the version (``BotVersion.watch_note``).
BAIZE_WATCHED_MATCHES = env_int("BAIZE_WATCHED_MATCHES", 12, minimum=0)
#: Duplicate sets one author's challenges and version tests may reserve in 24 hours.
BAIZE_AUTHOR_SETS_PER_DAY = env_int("BAIZE_AUTHOR_SETS_PER_DAY", 2000, minimum=1)
# Several models have a "status": name their enums in the OpenAPI schema.
# (A pairing and a duplicate set share one: playing or finished.)
SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"] = {
    "TournamentStatusEnum": "tournaments.models.Tournament.Status",
    "TournamentFormatEnum": "tournaments.formats.format_names",
    "PlayStatusEnum": "tournaments.models.Pairing.Status",
    "MatchStatusEnum": "matches.models.Match.Status",
    "BotVersionStatusEnum": "bots.models.BotVersion.Status",
    "MatchViewEnum": "matches.visibility.VIEW_CHOICES",
}

# --- Bot authors (bots/): accounts and tokens, uploads, validation, the sandbox -------------
INSTALLED_APPS += ["rest_framework.authtoken"]
REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"] = [
    "rest_framework.authentication.TokenAuthentication",
    "rest_framework.authentication.SessionAuthentication",
]
#: Scoped throttles (DRF rate strings such as "10/hour"), counted in the shared cache.
#: Proxies in front of the web processes whose X-Forwarded-For is believed. With none (the
#: default), a client is its connection's address, and a forged header gains nothing.
REST_FRAMEWORK["NUM_PROXIES"] = env_int("BAIZE_TRUSTED_PROXIES", 0)
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {
    "sign_up": env_rate("BAIZE_SIGN_UP_RATE", "10/hour"),
    "token": env_rate("BAIZE_TOKEN_RATE", "30/hour"),
    "upload": env_rate("BAIZE_UPLOAD_RATE", "30/hour"),
}
# The pages sign in with the same accounts, through Django's sessions (and CSRF on forms).
# A session is read from the shared cache, and from the database only when the cache lost it:
# a signed-in viewer's page costs no session query (README, "Monitoring").
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
LOGIN_URL = "web:login"
LOGIN_REDIRECT_URL = "web:my-bots"
LOGOUT_REDIRECT_URL = "web:home"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
#: Seconds of overtime each bot may spend over a whole match beyond the per-decision limit.
BAIZE_TIME_BANK_SECONDS = env_float("BAIZE_TIME_BANK_SECONDS", 10.0)
#: Wall-clock seconds a whole match may last; past them, the bot whose decisions took longer
#: forfeits on time (docs/bot-protocol.md, "Timing").
BAIZE_MATCH_WALL_SECONDS = env_float("BAIZE_MATCH_WALL_SECONDS", 1200.0, minimum=1.0)
#: This process's local cache of uploaded code, content-addressed: <dir>/<sha256>/bot.py,
#: filled from the shared store on first use (bots.services.code_cache); nothing to share
#: between hosts.
BAIZE_BOT_CODE_DIR = Path(env_str("BAIZE_BOT_CODE_DIR", str(VAR_DIR / "bots")))
#: Bound of that cache; the folders least recently used go first.
BAIZE_CODE_CACHE_MB = env_int("BAIZE_CODE_CACHE_MB", 1024, minimum=16)
#: Where uploaded code is shared between hosts: "" for the database (a table of blobs by
#: content hash), else a storage class of Django's storage API (object storage, for instance
#: "storages.backends.s3.S3Storage"), given the JSON object BAIZE_CODE_STORAGE_OPTIONS.
BAIZE_CODE_STORAGE = env_str("BAIZE_CODE_STORAGE", "")
if BAIZE_CODE_STORAGE:
    try:
        _code_storage_options = json.loads(env_str("BAIZE_CODE_STORAGE_OPTIONS", "{}"))
    except ValueError as error:
        raise ImproperlyConfigured(f"BAIZE_CODE_STORAGE_OPTIONS is not JSON: {error}") from None
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        **globals().get("STORAGES", {}),
        "bot_code": {"BACKEND": BAIZE_CODE_STORAGE, "OPTIONS": _code_storage_options},
    }
BAIZE_UPLOAD_MAX_BYTES = env_int("BAIZE_UPLOAD_MAX_BYTES", 1 << 20, minimum=1024)
BAIZE_UPLOAD_MAX_UNPACKED_BYTES = env_int("BAIZE_UPLOAD_MAX_UNPACKED_BYTES", 8 << 20, minimum=1024)
BAIZE_UPLOAD_MAX_FILES = env_int("BAIZE_UPLOAD_MAX_FILES", 100, minimum=1)
#: Locks of the uid slots, the seccomp filter and the probe bot.
BAIZE_SANDBOX_DIR = Path(env_str("BAIZE_SANDBOX_DIR", str(VAR_DIR / "sandbox")))
#: The interpreter of sandboxed bots: outside any home folder, so the slot uids can run it.
BAIZE_SANDBOX_PYTHON = env_str("BAIZE_SANDBOX_PYTHON", "/usr/bin/python3")
if not Path(BAIZE_SANDBOX_PYTHON).is_absolute():
    # The sandbox binds the interpreter by its path; it has no PATH to search.
    raise ImproperlyConfigured(
        f"BAIZE_SANDBOX_PYTHON must be an absolute path, got {BAIZE_SANDBOX_PYTHON!r}"
    )
#: The first of a fixed range of slot uids; None (unset or empty): a Celery worker leases a
#: range of its host at start (BAIZE_SANDBOX_RANGES_*, bots.services.uid_ranges), and any
#: other process (manage.py play --sandbox, a web process running checks in-process) uses
#: BAIZE_SANDBOX_UNLEASED_UID_BASE.
BAIZE_SANDBOX_UID_BASE = (
    env_int("BAIZE_SANDBOX_UID_BASE", 0, minimum=65536)
    if env_str("BAIZE_SANDBOX_UID_BASE", "")
    else None
)
BAIZE_SANDBOX_UNLEASED_UID_BASE = 2_000_000
BAIZE_SANDBOX_SLOTS = env_int("BAIZE_SANDBOX_SLOTS", 64, minimum=2)
#: The uid ranges the workers of one host lease, each BAIZE_SANDBOX_SLOTS uids: range i
#: starts at BAIZE_SANDBOX_RANGES_BASE + i * 100000. Another deployment on the same host (its
#: own database, so its own leases) needs ranges of its own.
BAIZE_SANDBOX_RANGES_BASE = env_int("BAIZE_SANDBOX_RANGES_BASE", 10_000_000, minimum=65536)
BAIZE_SANDBOX_RANGES = env_int("BAIZE_SANDBOX_RANGES", 32, minimum=1)
BAIZE_SANDBOX_RANGE_STEP = 100_000
#: A worker's lease on its range lapses this long after its last renewal (it renews every
#: third of it); a range whose holder died is taken by the next worker once it has lapsed.
BAIZE_SANDBOX_LEASE_SECONDS = env_int("BAIZE_SANDBOX_LEASE_SECONDS", 60, minimum=3)
#: A worker whose sandbox is below full probes it again this often (and before refusing
#: uploaded code), and takes the sandboxed queue once it is full.
BAIZE_SANDBOX_REPROBE_SECONDS = env_int("BAIZE_SANDBOX_REPROBE_SECONDS", 60, minimum=1)
#: The largest uid Linux gives out: (uid_t)-1 means "no uid".
_LARGEST_UID = 2**32 - 2
if (BAIZE_SANDBOX_UID_BASE or 0) + BAIZE_SANDBOX_SLOTS - 1 > _LARGEST_UID:
    raise ImproperlyConfigured(
        f"BAIZE_SANDBOX_UID_BASE + BAIZE_SANDBOX_SLOTS must stay within Linux's uids "
        f"(up to {_LARGEST_UID + 1}), got {BAIZE_SANDBOX_UID_BASE} + {BAIZE_SANDBOX_SLOTS}"
    )
if BAIZE_SANDBOX_SLOTS > BAIZE_SANDBOX_RANGE_STEP:
    raise ImproperlyConfigured(
        f"BAIZE_SANDBOX_SLOTS must be at most {BAIZE_SANDBOX_RANGE_STEP} (the uids between two"
        f" leased ranges), got {BAIZE_SANDBOX_SLOTS}"
    )
if BAIZE_SANDBOX_RANGES_BASE + BAIZE_SANDBOX_RANGES * BAIZE_SANDBOX_RANGE_STEP > _LARGEST_UID:
    raise ImproperlyConfigured(
        f"BAIZE_SANDBOX_RANGES_BASE + BAIZE_SANDBOX_RANGES x {BAIZE_SANDBOX_RANGE_STEP} must"
        f" stay within Linux's uids (up to {_LARGEST_UID + 1}), got"
        f" {BAIZE_SANDBOX_RANGES_BASE} + {BAIZE_SANDBOX_RANGES} x {BAIZE_SANDBOX_RANGE_STEP}"
    )
#: Defaults of arena.sandbox.SandboxLimits; a tournament may override each.
BAIZE_SANDBOX_LIMITS = {
    "memory_bytes": env_int("BAIZE_SANDBOX_MEMORY_MB", 512, minimum=64) << 20,
    "cpu_seconds": env_int("BAIZE_SANDBOX_CPU_SECONDS", 60, minimum=1),
    "processes": env_int("BAIZE_SANDBOX_PROCESSES", 32, minimum=4),
    "file_bytes": env_int("BAIZE_SANDBOX_FILE_MB", 16, minimum=1) << 20,
    "open_files": env_int("BAIZE_SANDBOX_OPEN_FILES", 64, minimum=16),
    "tmp_bytes": env_int("BAIZE_SANDBOX_TMP_MB", 16, minimum=1) << 20,
}
#: Limits of a version's build at upload (arena.builds.BuildLimits), for the runtimes that build.
BAIZE_BUILD_LIMITS = {
    "cpu_seconds": env_int("BAIZE_BUILD_CPU_SECONDS", 120, minimum=5),
    "memory_bytes": env_int("BAIZE_BUILD_MEMORY_MB", 2048, minimum=256) << 20,
    "tmp_bytes": env_int("BAIZE_BUILD_TMP_MB", 512, minimum=16) << 20,
}
