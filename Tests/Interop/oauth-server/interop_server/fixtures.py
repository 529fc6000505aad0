"""The users and clients of a run, created in a fresh database.

Secrets come from the environment (the test that starts the server chooses them),
so none is committed and none is printed.
"""

import os

from django.contrib.auth import get_user_model
from oauth2_provider.models import get_application_model

DEFAULT_REDIRECT_URIS = "com.example.sessionbridge:/oauth/callback"


def create(stdout):
    Application = get_application_model()
    User = get_user_model()

    username = os.environ.get("INTEROP_USERNAME", "alice")
    User.objects.create_user(username=username, password=os.environ["INTEROP_USER_PASSWORD"])

    password_clients = [
        ("interop-public", Application.CLIENT_PUBLIC, None),
        ("interop-basic", Application.CLIENT_CONFIDENTIAL, os.environ["INTEROP_SECRET_BASIC"]),
        ("interop-post", Application.CLIENT_CONFIDENTIAL, os.environ["INTEROP_SECRET_POST"]),
    ]
    for client_id, client_type, secret in password_clients:
        Application.objects.create(
            name=client_id,
            client_id=client_id,
            client_type=client_type,
            client_secret=secret or "",
            authorization_grant_type=Application.GRANT_PASSWORD,
            algorithm=Application.RS256_ALGORITHM,
        )

    # Authorization code + PKCE: a public native client, consent skipped.
    Application.objects.create(
        name="interop-code",
        client_id="interop-code",
        client_type=Application.CLIENT_PUBLIC,
        client_secret="",
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=os.environ.get("INTEROP_REDIRECT_URIS", DEFAULT_REDIRECT_URIS),
        skip_authorization=True,
        algorithm=Application.RS256_ALGORITHM,
    )
    stdout.write(
        "clients: interop-public interop-basic interop-post (password), interop-code (authorization code)\n"
    )
