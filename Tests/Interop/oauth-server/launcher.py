#!/usr/bin/env python3
"""Starts the interop authorization server on 127.0.0.1.

Binds a free port (or INTEROP_PORT), migrates a fresh SQLite database in a temporary
folder, creates the run's users and clients, prints ``READY <port>`` on stdout and serves
until its standard input closes, so a test that dies leaves no server behind.

Environment (secrets are chosen by the caller and never printed):
  INTEROP_USER_PASSWORD, INTEROP_SECRET_BASIC, INTEROP_SECRET_POST   required
  INTEROP_USERNAME                  default "alice"
  INTEROP_PORT                      default 0 (a free port)
  INTEROP_ROTATE_REFRESH_TOKENS     "0" for a server that keeps refresh tokens
  INTEROP_ACCESS_TOKEN_LIFETIME     seconds, default 3600
  INTEROP_DISABLED_GRANT_TYPES      grant types answered with unsupported_grant_type
  INTEROP_REDIRECT_URIS             the code client's redirect URIs (space-separated)
"""

import os
import secrets
import shutil
import socketserver
import sys
import tempfile
import threading
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


class QuietRequestHandler(WSGIRequestHandler):
    """Leaves request lines to the application's log (interop_server.middleware), which writes
    them before the answer is sent."""

    def log_request(self, code="-", size="-"):
        pass


def generate_rsa_key():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def exit_when_stdin_closes(data_dir):
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
        sys.stdout.flush()
        os._exit(0)


def main():
    for name in ("INTEROP_USER_PASSWORD", "INTEROP_SECRET_BASIC", "INTEROP_SECRET_POST"):
        if not os.environ.get(name):
            sys.stderr.write(f"launcher: {name} must be set\n")
            return 2

    data_dir = tempfile.mkdtemp(prefix="interop-oauth-")
    threading.Thread(target=exit_when_stdin_closes, args=(data_dir,), daemon=True).start()

    httpd = ThreadingWSGIServer(("127.0.0.1", int(os.environ.get("INTEROP_PORT", "0"))), QuietRequestHandler)
    port = httpd.server_address[1]

    os.environ["DJANGO_SETTINGS_MODULE"] = "interop_server.settings"
    os.environ["INTEROP_DATA_DIR"] = data_dir
    os.environ["INTEROP_ISSUER"] = f"http://127.0.0.1:{port}/o"
    os.environ["INTEROP_DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    os.environ["INTEROP_OIDC_RSA_PRIVATE_KEY"] = generate_rsa_key()

    import django
    from django.core.management import call_command
    from django.core.wsgi import get_wsgi_application

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    from interop_server import fixtures

    fixtures.create(sys.stderr)

    httpd.set_app(get_wsgi_application())
    sys.stdout.write(f"READY {port}\n")
    sys.stdout.flush()
    httpd.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
