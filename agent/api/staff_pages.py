"""The staff web page: the waiting list as plain HTML forms, usable without JavaScript.

A login opens a server-side session (agent.staff.sessions) whose token travels in a signed
cookie (keyed by Settings.secret_key); every form carries a CSRF token derived from the
cookie's nonce, checked on each POST. Logout revokes the server-side session.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

from agent.api.deps import ServicesDep, SessionDep, ThrottleDep, client_address
from agent.api.rendering import TEMPLATES
from agent.api.staff import detail_of, gaps_of
from agent.db.tables import StaffSession, StaffUser
from agent.settings import Settings
from agent.staff import sessions as staff_sessions
from agent.staff import waiting_list
from agent.staff.waiting_list import REASONS, STATUS_FILTERS, StaffCitation
from agent.throttle import Throttled
from knowledge.errors import KnowledgeError

router = APIRouter(prefix="/staff", include_in_schema=False)
log = logging.getLogger(__name__)

# The signed cookie carries the CSRF nonce and the session token (one cookie for both). In
# production it is `__Host-` (Secure, Path=/, no Domain: no sibling host or plain-http page can
# set or overwrite it). Development over plain http keeps a plain name on /staff: httpx and
# other non-browser clients never send a Secure cookie back over http, and a LAN address is
# not a secure origin (Chromium 156 does keep `__Host-` on http://127.0.0.1 and localhost).
COOKIE = "clausedesk_staff"
HOST_COOKIE = "__Host-clausedesk_staff"
PAGE_SIZE = 25
MAX_OFFSET = 1_000_000
DONE = {
    "taken": "You have taken this item.",
    "released": "You released this item; it is back on the list.",
    "answered": "Your answer was added to the claimant's conversation.",
    "closed": "The item is closed.",
}


@dataclass(frozen=True)
class WebSession:
    """What the signed cookie carries: a CSRF nonce and, once logged in, the token of a
    server-side session (agent.staff.sessions), which is what logout and expiry end."""

    nonce: str
    token: str | None = None


def _settings(request: Request) -> Settings:
    return request.app.state.services.settings


def _serializer(request: Request) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(_settings(request).secret_key, salt="staff-session")


def csrf_token(request: Request, session: WebSession) -> str:
    key = _settings(request).secret_key.encode()
    return hmac.new(key, f"csrf:{session.nonce}".encode(), hashlib.sha256).hexdigest()


def _cookie(request: Request) -> tuple[str, str]:
    """The cookie's name and path here."""
    return (HOST_COOKIE, "/") if _settings(request).production else (COOKIE, "/staff")


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
    for raw in _sent_values(request, _cookie(request)[0]):
        try:
            data = _serializer(request).loads(raw, max_age=_settings(request).session_absolute_s)
        except BadSignature:
            continue
        if isinstance(data, dict) and data.get("n"):
            return WebSession(data["n"], data.get("t"))
    return None


def write_session(request: Request, response: Response, session: WebSession) -> None:
    settings = _settings(request)
    name, path = _cookie(request)
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
        staff_sessions.session_user(db, session.token, _settings(request))
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


# Login --------------------------------------------------------------------------------------


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
    row, token = staff_sessions.open_session(db, staff, "web", client_address(request), _settings(request))
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
    name, path = _cookie(request)
    response.delete_cookie(name, path=path, secure=name == HOST_COOKIE, httponly=True)
    return response


# Queue, item, content gaps ------------------------------------------------------------------


@router.get("", response_class=HTMLResponse)
def queue(
    request: Request,
    visitor: VisitorDep,
    db: SessionDep,
    status: str = "waiting",
    reason: str = "",
    family: str = "",
    offset: str = "0",
) -> HTMLResponse:
    status = status if status in STATUS_FILTERS else "waiting"
    # A hand-edited URL gets the first page rather than an error: ASCII digits within range only.
    start = min(int(offset), MAX_OFFSET) if offset.isascii() and offset.isdigit() and len(offset) < 10 else 0
    page = waiting_list.list_items(
        db,
        status=status,
        reason=reason or None,
        family=family or None,
        limit=PAGE_SIZE,
        offset=start,
    )
    filters = {"status": status, "reason": reason, "family": family}

    def page_link(to: int) -> str:
        return "/staff?" + urlencode({**filters, "offset": to})

    context = {
        "page": page,
        "filters": filters,
        "statuses": list(STATUS_FILTERS),
        "reasons": REASONS,
        "families": sorted({*page.by_family, *(f for f in [family] if f)}),
        "staff_names": waiting_list.staff_names(db),
        "previous": page_link(max(page.offset - PAGE_SIZE, 0)) if page.offset > 0 else None,
        "next": page_link(page.offset + PAGE_SIZE) if page.offset + PAGE_SIZE < page.total else None,
    }
    return render(request, "staff_queue.html", context, visitor)


@router.get("/gaps", response_class=HTMLResponse)
def gaps(request: Request, visitor: VisitorDep, db: SessionDep) -> HTMLResponse:
    return render(request, "staff_gaps.html", {"gaps": gaps_of(waiting_list.content_gaps(db))}, visitor)


def _item_page(
    request: Request,
    visitor: Visitor,
    db: SessionDep,
    item_key: str,
    *,
    error: str | None = None,
    status: int = 200,
    form: dict | None = None,
) -> HTMLResponse:
    try:
        item = waiting_list.find_item(db, item_key)
    except waiting_list.ItemNotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    detail = detail_of(waiting_list.item_view(db, item))
    context = {
        "d": detail,
        "done": DONE.get(request.query_params.get("done", "")),
        "error": error,
        "form": form or {},
    }
    return render(request, "staff_item.html", context, visitor, status)


@router.get("/items/{item_key}", response_class=HTMLResponse)
def item_page(request: Request, item_key: str, visitor: VisitorDep, db: SessionDep) -> HTMLResponse:
    return _item_page(request, visitor, db, item_key)


def _act(request: Request, visitor: Visitor, db: SessionDep, item_key: str, done: str, action, form=None):  # type: ignore[no-untyped-def]
    """Run one staff action; on success go back to the item (POST/redirect/GET), on a
    refusal show the item again with the reason and what was typed."""
    try:
        item = waiting_list.find_item(db, item_key)
        action(item.id)
    except waiting_list.ItemNotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    except waiting_list.ItemConflict as exc:
        db.rollback()
        return _item_page(request, visitor, db, item_key, error=str(exc), status=409, form=form)
    except waiting_list.CitationRefused as exc:
        db.rollback()
        return _item_page(
            request, visitor, db, item_key, error=f"Citation refused: {exc}", status=422, form=form
        )
    except KnowledgeError as exc:
        db.rollback()
        message = f"The policy wording cannot be read right now ({type(exc).__name__}); try again."
        return _item_page(request, visitor, db, item_key, error=message, status=503, form=form)
    return RedirectResponse(f"/staff/items/{item.reference}?done={done}", status_code=303)


@router.post("/items/{item_key}/take")
def take(request: Request, item_key: str, visitor: PostingVisitor, db: SessionDep) -> Response:
    return _act(request, visitor, db, item_key, "taken", lambda i: waiting_list.take(db, i, visitor.staff))


@router.post("/items/{item_key}/release")
def release(request: Request, item_key: str, visitor: PostingVisitor, db: SessionDep) -> Response:
    return _act(
        request, visitor, db, item_key, "released", lambda i: waiting_list.release(db, i, visitor.staff)
    )


@router.post("/items/{item_key}/answer")
def answer(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    text: Annotated[str, Form(max_length=4000)] = "",
    clause_id: Annotated[str, Form(max_length=40)] = "",
    quote: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    form = {"text": text, "clause_id": clause_id, "quote": quote}
    if not text.strip():
        return _item_page(
            request, visitor, db, item_key, error="Write an answer first.", status=422, form=form
        )
    if bool(clause_id.strip()) != bool(quote.strip()):
        message = "To cite a clause, give both its clause ID and a quote from it (or neither)."
        return _item_page(request, visitor, db, item_key, error=message, status=422, form=form)
    citations = [StaffCitation(clause_id.strip(), quote)] if clause_id.strip() else []
    library = svc.runner.library
    return _act(
        request,
        visitor,
        db,
        item_key,
        "answered",
        lambda i: waiting_list.answer(db, library, i, visitor.staff, text.strip(), citations),
        form,
    )


@router.post("/items/{item_key}/close")
def close(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    reason: Annotated[str, Form(max_length=1000)] = "",
) -> Response:
    form = {"close_reason": reason}
    if not reason.strip():
        message = "Give a reason for closing without an answer."
        return _item_page(request, visitor, db, item_key, error=message, status=422, form=form)
    return _act(
        request,
        visitor,
        db,
        item_key,
        "closed",
        lambda i: waiting_list.close(db, i, visitor.staff, reason.strip()),
        form,
    )
