"""Who may use the review page: only the policy owner's browser on this machine.

It answers only a loopback Host (no DNS rebinding), and every request needs the secret key
printed in its address (kept as a SameSite=Strict cookie after the first visit); every
state-changing request also needs a same-origin Origin (the form's CSRF token is checked by
the routes), and redirects go only to its own paths.
"""

from __future__ import annotations

import hmac
import re
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import PlainTextResponse, RedirectResponse, Response

COOKIE = "clausedesk_review"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
# A redirect target of the page's own: one path on this server, never "//host" or "/\\host".
_OWN_PATH = re.compile(r"^/(?![/\\])[\w\-./]*$")


def _hostname(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def own_path(to: str) -> str:
    """A redirect target: the path given if it is one of this page's own, else the start."""
    return to if _OWN_PATH.match(to) else "/"


def refuse(why: str) -> Response:
    return PlainTextResponse(f"refused: {why}", status_code=403)


async def guard(request: Request, call_next):  # type: ignore[no-untyped-def]
    """The middleware every request passes: loopback only, the app's key (`app.state.key`)
    in the address or its cookie, and no state change asked from another site."""
    key = request.app.state.key
    if _hostname(request.headers.get("host", "")) not in LOOPBACK:
        return refuse("the review page answers only at 127.0.0.1 or localhost")
    given = request.query_params.get("key")
    if given is not None:
        if not same(given, key):
            return refuse("that key is not this review's; open the address `knowledge review` printed")
        if request.method == "GET":
            # The key leaves the address bar (and the history) once it is kept as a cookie.
            answer = RedirectResponse(own_path(request.url.path), status_code=303)
            answer.set_cookie(COOKIE, key, httponly=True, samesite="strict", path="/")
            return answer
    elif not same(request.cookies.get(COOKIE, ""), key):
        return refuse("open the address `knowledge review` printed (it holds the page's key)")
    if request.method not in ("GET", "HEAD"):
        origin = request.headers.get("origin") or request.headers.get("referer") or ""
        here = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin and origin != "null" and f"{urlsplit(origin).scheme}://{urlsplit(origin).netloc}" != here:
            return refuse("a request from another site")
        if origin == "null" or request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
            return refuse("a request from another site")
    return await call_next(request)
