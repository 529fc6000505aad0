"""Routes: the toolkit under /o/ (issuer http://127.0.0.1:PORT/o), its RFC 8414 document
also at the origin's well-known path, and Django's login form."""

from django.contrib.auth import views as auth_views
from django.urls import include, path
from oauth2_provider import urls as oauth2_urls

urlpatterns = [
    path("o/", include(oauth2_urls)),
    # RFC 8414 §3: /.well-known/oauth-authorization-server/o for the issuer .../o.
    path("", include((oauth2_urls.metadata_urlpatterns, "oauth2_provider"), namespace="metadata")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
]
