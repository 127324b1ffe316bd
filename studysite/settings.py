"""One settings module for every environment.

Every knob is an environment variable with a safe default; a value that cannot be
parsed stops the start-up with a message naming the variable, rather than running
with a surprise.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(name: str, url: str) -> dict[str, Any]:
    """Django's database settings from a URL, parsed by dj-database-url."""
    if not url.startswith(("postgres://", "postgresql://", "sqlite://")):
        raise ImproperlyConfigured(
            f"{name} must be a postgres:// or sqlite:// URL, got {url.split(':', 1)[0]!r}"
        )
    try:
        config: dict[str, Any] = dict(dj_database_url.parse(url))
    except ValueError as error:
        raise ImproperlyConfigured(f"{name} cannot be parsed: {error}") from None
    if config["ENGINE"] == "django.db.backends.postgresql":
        # Under ASGI a request's sync code runs in a thread of its own, so persistent
        # connections (CONN_MAX_AGE) would be opened per thread and never reused; Django's
        # docs say to use the driver's pool instead: a few connections per worker process.
        size = env_int("DATABASE_POOL_SIZE", 10, minimum=1)
        pool = {"min_size": 1, "max_size": size, "timeout": 10}
        config["OPTIONS"] = {**config.get("OPTIONS", {}), "pool": pool}
    return config


def redis_layer(name: str, url: str) -> dict[str, Any]:
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(f"{name} must be a redis:// or rediss:// URL")
    return {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [url]}}


DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY", "django-insecure-dev-only-change-me")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.staticfiles",
    "django_htmx",
    "channels",
    "studysite.guide",
    "studysite.study",
    "studysite.lab",
    "studysite.simulator",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages compressed (static files come compressed from whitenoise, above it). Django's
    # gzip pads each response with random bytes against BREACH, which CSRF tokens invite.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "studysite.middleware.PermissionsPolicyMiddleware",
]

ROOT_URLCONF = "studysite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "studysite.guide.context_processors.site",
            ],
        },
    },
]

ASGI_APPLICATION = "studysite.asgi.application"
WSGI_APPLICATION = "studysite.wsgi.application"

# SQLite is the embedded default; DATABASE_URL (postgres://user:pass@host:5432/name)
# moves every learner's rows to PostgreSQL so that several workers share them.
DATABASE_URL = env_str("DATABASE_URL", "")
DATABASES = {
    "default": database_from_url("DATABASE_URL", DATABASE_URL)
    if DATABASE_URL
    else {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": Path(env_str("DATABASE_PATH", str(BASE_DIR / "db.sqlite3"))),
        # WAL lets readers run beside the writer, and synchronous=NORMAL drops the fsync on
        # every commit (still durable across a crash of the process, which is what matters
        # for a learner's saved lab after each command).
        "OPTIONS": {
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
    }
}

# The in-memory layer only reaches sockets in the same process; REDIS_URL
# (redis://host:6379/0) lets a message reach a socket held by any worker.
REDIS_URL = env_str("REDIS_URL", "")
CHANNEL_LAYERS = {
    "default": redis_layer("REDIS_URL", REDIS_URL)
    if REDIS_URL
    else {"BACKEND": "channels.layers.InMemoryChannelLayer"}
}

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Django's database sessions, plus keys a page hands out before any row is written.
SESSION_ENGINE = "studysite.sessions"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Without a collected manifest (development and tests) whitenoise serves from the
# finders; production runs `collectstatic` and gets hashed, long-cached names.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if env_bool("STATIC_MANIFEST", False)
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = not env_bool("STATIC_MANIFEST", False)
# Files served at the site's root (robots.txt and the like); the guide benchmark
# also points it at a folder to serve a page's bytes as a static file.
WHITENOISE_ROOT = env_str("WHITENOISE_ROOT", "") or None
# Only a manifest build collects files; otherwise whitenoise serves from the finders.
STATIC_ROOT = BASE_DIR / "staticfiles" if env_bool("STATIC_MANIFEST", False) else None

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Security headers. HTTPS-only settings follow SECURE_HTTPS so that the local,
# plain-HTTP default keeps working while production passes `check --deploy`.
SECURE_HTTPS = env_bool("SECURE_HTTPS", False)
# The development key is fine on a laptop; a site served over HTTPS is a real deployment.
if SECURE_HTTPS and SECRET_KEY.startswith("django-insecure"):
    raise ImproperlyConfigured("SECRET_KEY must be set to a real secret when SECURE_HTTPS is on")
SECURE_SSL_REDIRECT = SECURE_HTTPS
# Probes call the worker directly over plain HTTP, not through the TLS proxy.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = SECURE_HTTPS
CSRF_COOKIE_SECURE = SECURE_HTTPS
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if SECURE_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HTTPS
SECURE_HSTS_PRELOAD = SECURE_HTTPS
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", False) else None
)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# The lab terminal's limits: one command line, and how many frames a second.
LAB_MAX_LINE_BYTES = env_int("LAB_MAX_LINE_BYTES", 4096, minimum=64)
LAB_MAX_FRAMES_PER_SECOND = env_int("LAB_MAX_FRAMES_PER_SECOND", 20, minimum=1)
# Real-cluster mode: "kubernetes" runs the lab's tools against the cluster of KUBECONFIG (or the
# in-cluster service account) for free exploration; the tickets stay on the simulated cluster.
LAB_BACKEND = env_str("LAB_BACKEND", "mock").strip().lower()
if LAB_BACKEND not in {"mock", "kubernetes"}:
    raise ImproperlyConfigured(f"LAB_BACKEND must be mock or kubernetes, got {LAB_BACKEND!r}")
LAB_KUBECONFIG = env_str("LAB_KUBECONFIG", "")
# Read-only unless this is on; writes then only in LAB_NAMESPACES (and a learner's own namespace
# when LAB_LEARNER_NAMESPACE_PREFIX is set: PREFIX + a hash of the session, created on first use).
LAB_ALLOW_WRITES = env_bool("LAB_ALLOW_WRITES", False)
LAB_NAMESPACES = env_list("LAB_NAMESPACES", [])
LAB_LEARNER_NAMESPACE_PREFIX = env_str("LAB_LEARNER_NAMESPACE_PREFIX", "")
if LAB_ALLOW_WRITES and not (LAB_NAMESPACES or LAB_LEARNER_NAMESPACE_PREFIX):
    raise ImproperlyConfigured(
        "LAB_ALLOW_WRITES needs LAB_NAMESPACES or LAB_LEARNER_NAMESPACE_PREFIX: learners may "
        "only change namespaces on an allow-list"
    )
# Hardening (README "Limits"): each command's CPU time and output at every pipeline
# stage; exact websocket origins besides the site's own; request bodies; expensive
# requests (simulator, import, lab form): CPU seconds per client a minute.
LAB_COMMAND_CPU_MS = env_int("LAB_COMMAND_CPU_MS", 250, minimum=10)
LAB_SESSION_CPU_MS_PER_SECOND = env_int("LAB_SESSION_CPU_MS_PER_SECOND", 100, minimum=1)
LAB_MAX_OUTPUT_BYTES = env_int("LAB_MAX_OUTPUT_BYTES", 512 * 1024, minimum=4096)
LAB_ALLOWED_ORIGINS = env_list("LAB_ALLOWED_ORIGINS", [])
# Commands of sessions that spend a lot run in a child process of each web process, at a lower
# priority (studysite.lab.annex); off, they run beside everyone else's.
LAB_ANNEX = env_bool("LAB_ANNEX", True)
# HTTP pages rendered in a child process of each web process, apart from the terminals' sockets
# and commands (studysite.pageserver); off, in the web process itself.
PAGE_PROCESS = env_bool("PAGE_PROCESS", True)
# Admission (studysite.lab.admission): sessions that have sent fewer commands than this share
# this many of the command pool's threads, so fresh sessions can't crowd out learners with history.
LAB_ESTABLISHED_COMMANDS = env_int("LAB_ESTABLISHED_COMMANDS", 10, minimum=0)
LAB_FRESH_SLOTS = env_int("LAB_FRESH_SLOTS", 2, minimum=1)
MAX_REQUEST_BODY_BYTES = env_int("MAX_REQUEST_BODY_BYTES", 4 * 1024 * 1024, minimum=65536)
EXPENSIVE_CPU_SECONDS_PER_MINUTE = env_int("EXPENSIVE_CPU_SECONDS_PER_MINUTE", 20, minimum=1)
# All the browsers of one address together (studysite.limits.expensive): a backstop, not a share.
EXPENSIVE_CPU_SECONDS_PER_MINUTE_PER_ADDRESS = env_int(
    "EXPENSIVE_CPU_SECONDS_PER_MINUTE_PER_ADDRESS", 200, minimum=1
)
# The lab exam (studysite.lab.exam): its clock in minutes (a learner may set another per
# attempt), and the tickets it draws from (empty: every ticket of the lab).
LAB_EXAM_MINUTES = env_int("LAB_EXAM_MINUTES", 60, minimum=1)
LAB_EXAM_TICKETS = env_list("LAB_EXAM_TICKETS", [])
# Only the websocket benchmark turns this on: a bare echo consumer to compare against.
LAB_BENCH_ECHO = env_bool("LAB_BENCH_ECHO", False)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "WARNING")},
    # Django's default config gives "django" a console handler of its own; without
    # propagate=False every request line (daphne's included) printed twice.
    "loggers": {
        "django": {
            "handlers": ["console"],
            "level": "INFO" if DEBUG else "WARNING",
            "propagate": False,
        }
    },
}
