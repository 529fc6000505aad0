"""Django settings of the interop authorization server.

Everything that varies per run comes from the environment, set by ``launcher.py``:
the issuer (known once the port is bound), the RSA key that signs ID tokens (generated
at start), the SQLite folder (a temporary one), and the switches of ``INTEROP_*``.
"""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent

# A fresh secret per run: nothing signed by one run is valid in another.
SECRET_KEY = os.environ["INTEROP_DJANGO_SECRET_KEY"]
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oauth2_provider",
    "interop_server",
]

MIDDLEWARE = [
    "interop_server.middleware.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]

ROOT_URLCONF = "interop_server.urls"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(Path(os.environ["INTEROP_DATA_DIR"]) / "oauth.sqlite3"),
        # The server is threaded: a writer waits for another instead of failing.
        "OPTIONS": {"timeout": 30},
    }
}

# A test server: a fast hasher keeps each password and client-secret check cheap.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

USE_TZ = True
TIME_ZONE = "UTC"
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

LOGIN_URL = "/accounts/login/"
SESSION_COOKIE_NAME = "interop_sessionid"

ISSUER = os.environ["INTEROP_ISSUER"]
CUSTOM_REDIRECT_SCHEME = os.environ.get("INTEROP_REDIRECT_SCHEME", "com.example.sessionbridge")

OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_ISS_ENDPOINT": ISSUER,
    "OIDC_RSA_PRIVATE_KEY": os.environ["INTEROP_OIDC_RSA_PRIVATE_KEY"],
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Your name",
        "email": "Your e-mail address",
        "offline_access": "Stay signed in",
        "read": "Read your data",
        "write": "Change your data",
    },
    "DEFAULT_SCOPES": ["openid", "read"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": int(os.environ.get("INTEROP_ACCESS_TOKEN_LIFETIME", "3600")),
    "ROTATE_REFRESH_TOKEN": os.environ.get("INTEROP_ROTATE_REFRESH_TOKENS", "1") != "0",
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 0,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https", CUSTOM_REDIRECT_SCHEME],
    "ALLOWED_SCHEMES": ["http", "https"],
    "OIDC_SERVER_CLASS": "interop_server.server.InteropOIDCServer",
}

# Status lines and warnings only: oauthlib's debug log would print request bodies, and the
# toolkit's warnings are RFC 9700 notices about the password grant this server enables on purpose.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["stderr"], "level": "WARNING"},
    "loggers": {
        "oauthlib": {"level": "WARNING"},
        "oauth2_provider": {"level": "ERROR"},
    },
}
