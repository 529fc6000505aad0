"""The OpenID Connect server class, less the grant types a run switches off.

A provider that turned a grant off answers it with ``unsupported_grant_type``
(RFC 6749 §5.2), as Okta does for the password grant; ``INTEROP_DISABLED_GRANT_TYPES``
(space-separated grant_type values) makes this server do the same.
"""

import os

from oauthlib.openid import Server


class InteropOIDCServer(Server):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for grant_type in os.environ.get("INTEROP_DISABLED_GRANT_TYPES", "").split():
            self._grant_types.pop(grant_type, None)
