"""What the staff web pages share: the signed cookie, its CSRF token, the logged-in visitor and
the rendering of a page.

A login opens a server-side session (agent.staff.sessions) whose token travels in a signed
cookie (keyed by Settings.secret_key); every form carries a CSRF token derived from the
cookie's nonce, checked on each POST. Logout revokes the server-side session.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

from agent.api.deps import SessionDep
from agent.api.rendering import TEMPLATES
from agent.api.staff import MAX_OFFSET
from agent.db.tables import StaffSession, StaffUser
from agent.settings import Settings
from agent.staff import sessions as staff_sessions

# The signed cookie carries the CSRF nonce and the session token (one cookie for both). In
# production it is `__Host-` (Secure, Path=/, no Domain: no sibling host or plain-http page can
# set or overwrite it). Development over plain http keeps a plain name on /staff: httpx and
# other non-browser clients never send a Secure cookie back over http, and a LAN address is
# not a secure origin (Chromium 156 does keep `__Host-` on http://127.0.0.1 and localhost).
COOKIE = "clausedesk_staff"
HOST_COOKIE = "__Host-clausedesk_staff"
PAGE_SIZE = 25


@dataclass(frozen=True)
class WebSession:
    """What the signed cookie carries: a CSRF nonce and, once logged in, the token of a
    server-side session (agent.staff.sessions), which is what logout and expiry end."""

    nonce: str
    token: str | None = None


def settings_of(request: Request) -> Settings:
    return request.app.state.services.settings


def _serializer(request: Request) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(settings_of(request).secret_key, salt="staff-session")


def csrf_token(request: Request, session: WebSession) -> str:
    key = settings_of(request).secret_key.encode()
    return hmac.new(key, f"csrf:{session.nonce}".encode(), hashlib.sha256).hexdigest()


def cookie_of(request: Request) -> tuple[str, str]:
    """The cookie's name and path here."""
    return (HOST_COOKIE, "/") if settings_of(request).production else (COOKIE, "/staff")


def _sent_values(request: Request, name: str) -> list[str]:
    """Every value sent under the name, in the order sent: a cookie tossed onto Path=/ by
    another page of this host arrives beside ours (a parsed dict keeps only one of them)."""
    values = []
    for pair in request.headers.get("cookie", "").split(";"):
        key, _, value = pair.strip().partition("=")
        if key == name and value:
            values.append(value.strip('"'))
    return values


def read_session(request: Request) -> WebSession | None:
    """The first value under our name that carries our signature; others are ignored."""
    for raw in _sent_values(request, cookie_of(request)[0]):
        try:
            data = _serializer(request).loads(raw, max_age=settings_of(request).session_absolute_s)
        except BadSignature:
            continue
        if isinstance(data, dict) and data.get("n"):
            return WebSession(data["n"], data.get("t"))
    return None


def write_session(request: Request, response: Response, session: WebSession) -> None:
    settings = settings_of(request)
    name, path = cookie_of(request)
    value = _serializer(request).dumps({"n": session.nonce, "t": session.token})
    response.set_cookie(
        name,
        value,
        max_age=settings.session_absolute_s,
        httponly=True,
        samesite="lax",
        secure=settings.production or request.url.scheme == "https",
        path=path,
    )


def _login_redirect(request: Request) -> HTTPException:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return HTTPException(303, "log in first", headers={"Location": f"/staff/login?next={quote(target)}"})


@dataclass(frozen=True)
class Visitor:
    staff: StaffUser
    session: WebSession
    server_session: StaffSession


def logged_in(request: Request, db: SessionDep) -> Visitor:
    """The staff user of this browser's live server-side session; anyone else (no cookie,
    logged out, expired, revoked, disabled) is sent to the login page."""
    session = read_session(request)
    found = (
        staff_sessions.session_user(db, session.token, settings_of(request))
        if session and session.token
        else None
    )
    if found is None:
        raise _login_redirect(request)
    return Visitor(found[1], session, found[0])


VisitorDep = Annotated[Visitor, Depends(logged_in)]


def csrf_checked(request: Request, visitor: VisitorDep, csrf: Annotated[str, Form()] = "") -> Visitor:
    if not hmac.compare_digest(csrf, csrf_token(request, visitor.session)):
        raise HTTPException(403, "the form has expired or did not come from this site; reload the page")
    return visitor


PostingVisitor = Annotated[Visitor, Depends(csrf_checked)]


def render(
    request: Request, name: str, context: dict, visitor: Visitor | None, status: int = 200
) -> HTMLResponse:
    base = {
        "staff": visitor.staff if visitor else None,
        "csrf": csrf_token(request, visitor.session) if visitor else "",
    }
    return TEMPLATES.TemplateResponse(request, name, {**base, **context}, status_code=status)


def page_start(offset: str) -> int:
    """The offset a page's URL asks for. A hand-edited URL gets the first page rather than an
    error: ASCII digits within range only."""
    return min(int(offset), MAX_OFFSET) if offset.isascii() and offset.isdigit() and len(offset) < 10 else 0
