"""What the web app checks before a request reaches a route (an ASGI middleware).

The server has no login: what keeps other web pages out is that a browser
names the site in every request. So:

- the ``Host`` header must be one of the allowed names (``localhost``,
  ``127.0.0.1`` and ``[::1]`` by default): a page served from a name the
  attacker controls that resolves to this machine (DNS rebinding) is refused;
- a request that changes state (any method but GET, HEAD and OPTIONS) that
  carries an ``Origin`` must come from this very server (scheme, host and
  port): a foreign page's form or ``fetch`` POST, simple or not, is refused
  before anything reads its body. Browsers send ``Origin`` with every such
  request; programs (curl, scripts) that send none are let through;
- a body longer than the route's limit is refused as it streams in (its
  ``Content-Length`` first, then the bytes counted), so it is never held
  whole;
- an unexpected error is answered 500 with one line, and the connection is
  kept (the default handler re-raises, which makes the server drop it).

Every refusal is ``{"error": "one line"}`` with a 4xx status.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from typing import Any

from starlette.exceptions import HTTPException

_log = logging.getLogger(__name__)

DEFAULT_ALLOWED_HOSTS = ("localhost", "127.0.0.1", "[::1]")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")  # listen on every address: no one name the browser uses


class BodyTooLarge(HTTPException):
    """Raised by the counted ``receive`` once a body passes its limit: a 413.

    An ``HTTPException``, so the framework's body parsing passes it on as it is
    (it turns other errors into a 400).
    """

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes, the limit of this route")


def host_name(host: str) -> str:
    """The name part of a ``Host`` header (``[::1]:8000`` -> ``[::1]``, ``LocalHost:80`` -> ``localhost``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """The checks above around ``app``; ``body_limit(path)`` is the byte limit of a route's body."""

    def __init__(self, app: Any, allowed_hosts: Iterable[str], body_limit: Callable[[str], int]) -> None:
        self.app = app
        self.allowed = tuple(dict.fromkeys(allowed_host(h) for h in allowed_hosts))
        self.body_limit = body_limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            await _answer(send, *refusal)
            return
        started = False

        async def send_and_note(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        limit, seen = self.body_limit(scope["path"]), 0

        async def counted_receive() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(limit)
            return message

        try:
            await self.app(scope, counted_receive, send_and_note)
        except BodyTooLarge as err:
            if started:
                raise
            await _answer(send, 413, err.detail, close=True)
        except Exception as err:
            if started:
                raise
            _log.exception("request %s failed", scope["path"])
            await _answer(send, 500, f"internal error: {type(err).__name__}: {err}".splitlines()[0])

    def _refusal(self, scope: dict[str, Any], headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if host_name(host) not in self.allowed:
            return 400, (
                f"Host {host!r} is not served here; allowed: {', '.join(self.allowed)} "
                "(newmarket serve --allow-host NAME adds one)"
            )
        origin = headers.get("origin")
        if scope["method"] not in SAFE_METHODS and origin is not None:
            own = f"{scope.get('scheme', 'http')}://{host.strip().lower()}"
            if origin.strip().lower() != own:
                return 403, f"Origin {origin!r} may not change anything here; allowed: {own} (this page)"
        declared = headers.get("content-length", "")
        limit = self.body_limit(scope["path"])
        if declared.isdecimal() and int(declared) > limit:
            return 413, f"the request body is {int(declared)} bytes; the limit of this route is {limit}"
        return None


def allowed_host(name: str) -> str:
    """A name to allow as a ``Host`` header writes it: ``::1`` -> ``[::1]``, ``LocalHost`` -> ``localhost``."""
    name = name.strip().lower()
    return "[" + name.strip("[]") + "]" if name.count(":") >= 2 else host_name(name)


async def _answer(send: Any, status: int, message: str, close: bool = False) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:  # the rest of the body is not read: the connection cannot carry another request
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
