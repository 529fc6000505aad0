"""The request log the tests read."""

import sys


class RequestLogMiddleware:
    """Writes ``METHOD PATH STATUS`` to stderr before the answer leaves the server, so a client
    holding an answer finds its line in the log. The path only: never a query string or a body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        sys.stderr.write(f"{request.method} {request.path} {response.status_code}\n")
        sys.stderr.flush()
        return response
