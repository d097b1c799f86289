"""The staff pages' login and logout."""

from __future__ import annotations

import hmac
import logging
import secrets
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from agent.api.deps import SessionDep, ThrottleDep, client_address
from agent.api.rendering import TEMPLATES
from agent.api.staff_web import (
    HOST_COOKIE,
    PostingVisitor,
    WebSession,
    cookie_of,
    csrf_token,
    read_session,
    settings_of,
    write_session,
)
from agent.staff import sessions as staff_sessions
from agent.throttle import Throttled

router = APIRouter(prefix="/staff", include_in_schema=False)
log = logging.getLogger(__name__)


def _safe_next(target: str) -> str:
    return target if target.startswith("/staff") and not target.startswith("//") else "/staff"


@router.get("/login", response_class=HTMLResponse)
def login_page(request: Request, next: str = "/staff") -> HTMLResponse:
    session = read_session(request) or WebSession(secrets.token_urlsafe(16))
    response = TEMPLATES.TemplateResponse(
        request,
        "staff_login.html",
        {"staff": None, "csrf": csrf_token(request, session), "next": _safe_next(next), "error": None},
    )
    write_session(request, response, session)
    return response


@router.post("/login", response_class=HTMLResponse)
def login(
    request: Request,
    db: SessionDep,
    limits: ThrottleDep,
    username: Annotated[str, Form(max_length=60)] = "",
    password: Annotated[str, Form(max_length=200)] = "",
    csrf: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/staff",
) -> Response:
    session = read_session(request)
    if session is None or not hmac.compare_digest(csrf, csrf_token(request, session)):
        raise HTTPException(403, "the login form has expired; reload the page")
    context = {"staff": None, "csrf": csrf, "next": _safe_next(next)}
    try:
        staff = staff_sessions.authenticate(db, limits, username, password, client_address(request))
    except Throttled as exc:
        log.info("staff login throttled")
        message = f"Too many login attempts; try again in {exc.retry_after} seconds."
        return TEMPLATES.TemplateResponse(
            request,
            "staff_login.html",
            {**context, "error": message},
            status_code=429,
            headers={"Retry-After": str(exc.retry_after)},
        )
    if staff is None:
        # No username is logged: a password typed into the wrong field must not be.
        log.info("staff login refused")
        context["error"] = "Wrong username or password."
        return TEMPLATES.TemplateResponse(request, "staff_login.html", context, status_code=401)
    row, token = staff_sessions.open_session(db, staff, "web", client_address(request), settings_of(request))
    log.info("staff login %s session %s", staff.username, row.id)
    response = RedirectResponse(_safe_next(next), status_code=303)
    # A fresh session on login: a nonce seen before logging in is never a logged-in one.
    write_session(request, response, WebSession(secrets.token_urlsafe(16), token))
    return response


@router.post("/logout")
def logout(request: Request, visitor: PostingVisitor, db: SessionDep) -> Response:
    staff_sessions.revoke(db, visitor.server_session.id)
    log.info("staff logout %s session %s", visitor.staff.username, visitor.server_session.id)
    response = RedirectResponse("/staff/login", status_code=303)
    name, path = cookie_of(request)
    response.delete_cookie(name, path=path, secure=name == HOST_COOKIE, httponly=True)
    return response
