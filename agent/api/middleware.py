"""ASGI middleware that runs before any route: request size and URL checks, the security headers
on every response (API, pages and errors alike), and an evaluation's leave-one-out where the
settings allow it."""

from __future__ import annotations

import ipaddress
import json
import re
import secrets
from abc import ABC, abstractmethod
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent.api.schemas.common import control_problem
from agent.models.memory import leaving_out
from agent.seed import CLONE_PREFIX


async def _send_error(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class HttpMiddleware(ABC):
    """An ASGI middleware that acts on HTTP requests (`http`); lifespan and any other scope
    pass straight through to the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    @abstractmethod
    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One HTTP request, as each middleware handles it."""


class RequestGuard(HttpMiddleware):
    """Refuses, before anything parses the request:
    - a body over `max_body_bytes` (413), by its Content-Length and by counting the bytes
      actually received (a chunked body has no length to trust);
    - a control character (NUL and the like) in the URL or a form body (400/422), which
      would otherwise reach the database."""

    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        super().__init__(app)
        self.max = max_body_bytes

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")  # already percent-decoded by the server
        query = scope.get("query_string", b"").decode("latin-1")
        for text in (path, *(v for pair in parse_qsl(query, keep_blank_values=True) for v in pair)):
            problem = control_problem(text)
            if problem:
                await _send_error(send, 400, f"the URL {problem}")
                return
        headers = dict(scope.get("headers", []))
        length = headers.get(b"content-length")
        if length is not None:
            if not length.isdigit():
                await _send_error(send, 400, "Content-Length is not a number")
                return
            if int(length) > self.max:
                await _send_error(send, 413, f"request body over {self.max} bytes")
                return
        # Read the whole (bounded) body here and hand the app a replay of it.
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max:
                await _send_error(send, 413, f"request body over {self.max} bytes")
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        if headers.get(b"content-type", b"").startswith(b"application/x-www-form-urlencoded"):
            for pair in parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True):
                for text in pair:
                    problem = control_problem(text)
                    if problem:
                        await _send_error(send, 422, f"a form field {problem}")
                        return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _network(text: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise ValueError(f"CLAUSEDESK_TRUSTED_PROXIES: {text!r} is not an address or network") from None


class ForwardedFor(HttpMiddleware):
    """The client's address from X-Forwarded-For, believed only when the peer is one of the
    configured proxies (CLAUSEDESK_TRUSTED_PROXIES); from anyone else the header is ignored,
    or 40 guesses could claim to come from 40 addresses. The servers we start leave the
    header alone (uvicorn's proxy_headers off), so this is the one place that reads it.
    The address taken is the right-most one no trusted proxy added: those to its left were
    written by the client and prove nothing."""

    def __init__(self, app: ASGIApp, trusted: str) -> None:
        super().__init__(app)
        self.trusted = [_network(n.strip()) for n in trusted.split(",") if n.strip()]

    def _trusted(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.trusted)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if self.trusted and client and self._trusted(client[0]):
            forwarded = b",".join(v for k, v in scope.get("headers", []) if k == b"x-forwarded-for")
            hops = [h.strip() for h in forwarded.decode("latin-1").split(",") if h.strip()]
            while hops and self._trusted(hops[-1]):
                hops.pop()
            if hops:
                scope = {**scope, "client": (hops[-1][:64], 0)}
        await self.app(scope, receive, send)


# The staff pages and the chat page use inline <style> and <script> only, marked with this
# request's nonce; the chat page fetches the API on its own origin; forms post to it.
PAGE_CSP = (
    "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
    "connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
# /docs and /redoc start their viewer with an inline script; the viewer's code and styles are
# the app's own (DOCS_ASSETS), never a CDN's; ReDoc renders in a blob worker.
DOCS_ASSETS = "/docs-assets"
DOCS_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src blob:; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
DOCS_PATHS = ("/docs", "/redoc")  # DOCS_ASSETS starts with /docs too


class SecurityHeaders(HttpMiddleware):
    """X-Frame-Options, CSP (with a per-request nonce for inline page code, as
    request.state.csp_nonce), nosniff, no referrer, HSTS in production, and
    `Cache-Control: no-store` on authenticated responses."""

    def __init__(self, app: ASGIApp, hsts: bool) -> None:
        super().__init__(app)
        self.hsts = hsts

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        nonce = secrets.token_urlsafe(16)
        scope.setdefault("state", {})["csp_nonce"] = nonce
        docs = scope.get("path", "").startswith(DOCS_PATHS)
        csp = DOCS_CSP if docs else PAGE_CSP.format(nonce=nonce)
        extra = [
            (b"x-frame-options", b"DENY"),
            (b"content-security-policy", csp.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
        ]
        if self.hsts:
            extra.append((b"strict-transport-security", b"max-age=31536000; includeSubDomains"))
        # What a request with credentials gets back (a conversation, a waiting-list item), and
        # any response setting a cookie, is never kept by a browser or a shared cache.
        credentials = any(k in (b"authorization", b"cookie") for k, _ in scope.get("headers", []))

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), *extra]
                names = {k.lower() for k, _ in headers}
                if (credentials or b"set-cookie" in names) and b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


# An evaluation scoring an inventory question through HTTP names it here (IDs separated by
# commas), so the memory leaves its own example out of that turn: the question would find itself.
LEAVE_OUT_HEADER = "X-Evaluation-Leave-Out"
_LEAVE_OUT = LEAVE_OUT_HEADER.lower().encode("latin-1")
_EVALUATION_MESSAGES = re.compile(rf"^/claims/{re.escape(CLONE_PREFIX)}[^/]+/messages$")


class EvaluationLeaveOut(HttpMiddleware):
    """An evaluation's leave-one-out, outside the routes: installed only where the settings
    honour it (`evaluation_leave_out`: development by default; production refuses it), and read
    only on a message to an evaluation claim (its ID starts with CLONE_PREFIX), so no claimant's
    request to a real claim can change what the memory recalls."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        keys: list[str] = []
        if scope["method"] == "POST" and _EVALUATION_MESSAGES.match(scope["path"]):
            for name, value in scope["headers"]:
                if name == _LEAVE_OUT:
                    keys += [k.strip()[:100] for k in value.decode("latin-1").split(",")]
        if not keys:
            await self.app(scope, receive, send)
            return
        with leaving_out(*keys):
            await self.app(scope, receive, send)
