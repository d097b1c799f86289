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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import select

from agent.answering.bar import Bar
from agent.answering.held import why_drafted
from agent.api.deps import LibraryDep, ServicesDep, SessionDep, ThrottleDep, client_address
from agent.api.rendering import TEMPLATES
from agent.api.staff import MAX_OFFSET, csv_response, detail_of, draft_of, gaps_of
from agent.boundary.citation import Citation, Quote
from agent.db.tables import StaffSession, StaffUser, Turn, WaitingItem
from agent.settings import Settings
from agent.staff import (
    answer_citations,
    answer_evidence,
    answering,
    corrections,
    drafts,
    holding,
    item_states,
    presend,
    waiting_list,
)
from agent.staff.content_gaps import content_gaps
from agent.staff import sessions as staff_sessions
from agent.staff.routed_share import routed_share
from agent.staff.waiting_list import REASONS, STATUS_FILTERS
from agent.throttle import Throttled
from knowledge.clauses import ClauseLibrary
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
DONE = {
    "answered_unchecked": "Your answer was added to the claimant's conversation, but the pre-send check "
    "could not run; the warning is recorded on the item.",
    "drafted": "A draft was composed from the wording that governs the claim now; edit it before you send.",
    "taken": "You have taken this item.",
    "released": "You released this item; it is back on the list.",
    "answered": "Your answer was added to the claimant's conversation.",
    "closed": "The item is closed.",
    "flagged": "The answer is recorded as wrong against every clause it quoted.",
    "confirmed": "The claimant's report is recorded as evidence against every clause the answer quoted.",
    "verdict": "The verdict on the draft is corrected.",
}
# Citation rows on the answer form: at least one per clause an answer may quote, one more than
# the draft fills, never more quotes than the API takes.
CITATION_ROWS = answer_citations.MAX_ANSWER_CLAUSES
MAX_ROWS = answer_citations.MAX_CITATIONS
MAX_TEXT = 4000


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


def page_start(offset: str) -> int:
    """The offset a page's URL asks for. A hand-edited URL gets the first page rather than an
    error: ASCII digits within range only."""
    return min(int(offset), MAX_OFFSET) if offset.isascii() and offset.isdigit() and len(offset) < 10 else 0


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
    start = page_start(offset)
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
    gaps = gaps_of(content_gaps(db), routed_share(db))
    return render(request, "staff_gaps.html", {"gaps": gaps}, visitor)


@router.get("/gaps/routed-share.csv")
def gaps_csv(visitor: VisitorDep, db: SessionDep) -> Response:
    return csv_response(routed_share(db))


def _item_page(
    request: Request,
    visitor: Visitor,
    db: SessionDep,
    library: ClauseLibrary,
    item_key: str,
    *,
    error: str | None = None,
    status: int = 200,
    form: dict | None = None,
    stale: list[str] | None = None,
    notice: str | None = None,
) -> HTMLResponse:
    """The item; `form` keeps what the handler typed (and the basis it was typed on) when a
    send is refused; `stale` lists why a send was stale."""
    item = _find(db, item_key)
    view = waiting_list.item_view(db, item, library)
    now = presend.basis_now(db, library, item)
    draft = drafts.draft_on_first_open(db, library, item)
    shown = None if draft is None else draft_of(db, draft, drafts.draft_stale(db, library, item, draft))
    detail = detail_of(db, view, now, shown)
    form = dict(form or {})
    if draft is not None and "text" not in form:
        # The draft fills the form, on the basis it was made from: sent stale, the check says why.
        form.update(
            text=draft.text,
            citations=[(c.clause_id, c.quote) for c in Citation.all_of(draft.citations)],
            basis=drafts.draft_basis(draft),
        )
    # A refused send keeps the basis it was written on; a fresh page is written on now.
    form.setdefault("basis", now[0])
    citations = list(form.get("citations") or [])[:MAX_ROWS]
    rows = min(max(CITATION_ROWS, len(citations) + 1), MAX_ROWS)
    form["citations"] = citations + [("", "")] * (rows - len(citations))
    clauses = drafts.read_clauses(
        library, view.policy, view.term, drafts.clause_ids_of(view.turn, view.withdrawn, draft)
    )
    # The replies that served an answer quoting the wording: those a handler can flag as wrong.
    turn_ids = [m.turn_id for m in view.conversation if m.role == "agent" and m.turn_id]
    served = db.scalars(
        select(Turn.id).where(Turn.id.in_(turn_ids), Turn.outcome.like("answered%"), Turn.citations_verified)
    ).all()
    context = {
        "d": detail,
        "why_drafted": why_drafted(db, view.turn, Bar.of(request.app.state.services.settings)),
        "served_turns": set(served),
        "done": notice or DONE.get(request.query_params.get("done", "")),
        "error": error,
        "form": form,
        "stale": stale or [],
        "clauses": clauses,
        "max_clauses": answer_citations.MAX_ANSWER_CLAUSES,
        "max_rows": MAX_ROWS,
    }
    return render(request, "staff_item.html", context, visitor, status)


@router.get("/items/{item_key}", response_class=HTMLResponse)
def item_page(
    request: Request, item_key: str, visitor: VisitorDep, db: SessionDep, library: LibraryDep
) -> HTMLResponse:
    return _item_page(request, visitor, db, library, item_key)


def _act(  # type: ignore[no-untyped-def]
    request: Request,
    visitor: Visitor,
    db: SessionDep,
    library: ClauseLibrary,
    item_key: str,
    done: str,
    action,
    form=None,
):
    """Run one staff action; on success go back to the item (POST/redirect/GET), on a
    refusal show the item again with the reason and what was typed."""
    try:
        item = waiting_list.find_item(db, item_key)
        result = action(item.id)
    except waiting_list.ItemNotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    except waiting_list.Stale as exc:
        db.rollback()
        message = "Not sent: things changed since this answer was written. Rebuild it from what holds now."
        return _item_page(
            request, visitor, db, library, item_key, error=message, status=409, form=form, stale=exc.reasons
        )
    except waiting_list.ItemConflict as exc:
        db.rollback()
        return _item_page(request, visitor, db, library, item_key, error=str(exc), status=409, form=form)
    except waiting_list.CitationRefused as exc:
        db.rollback()
        return _item_page(
            request,
            visitor,
            db,
            library,
            item_key,
            error=f"Citation refused: {exc}. Not sent: your text is kept below.",
            status=422,
            form=form,
        )
    except waiting_list.Unsendable as exc:
        db.rollback()
        return _item_page(
            request, visitor, db, library, item_key, error=f"Not sent: {exc}.", status=422, form=form
        )
    except KnowledgeError as exc:
        db.rollback()
        message = f"The policy wording cannot be read right now ({type(exc).__name__}); try again."
        return _item_page(request, visitor, db, library, item_key, error=message, status=503, form=form)
    if getattr(result, "send_check", None) == presend.UNAVAILABLE:
        done = "answered_unchecked"
    return RedirectResponse(f"/staff/items/{item.reference}?done={done}", status_code=303)


def _basis_of_form(
    message: str, family: str, version: str, content_hash: str, claim_status: str
) -> presend.Basis | None:
    """The hidden basis fields of the answer form; None when they were tampered with."""
    if message and not (message.isascii() and message.isdigit() and len(message) < 19):
        return None
    return presend.Basis(
        int(message) if message else None, family or None, version or None, content_hash or None, claim_status
    )


def _form_problem(text: str, rows: list[tuple[str, str]]) -> str | None:
    """What is wrong with the answer form's size, in words (None: nothing)."""
    if len(text) > MAX_TEXT:
        return f"Not sent: the answer is {len(text)} characters; at most {MAX_TEXT}."
    if len(rows) > MAX_ROWS:
        return f"Not sent: {len(rows)} quotes; an answer carries at most {MAX_ROWS}."
    if any(len(c) > 40 or len(q) > 2000 for c, q in rows):
        return "Not sent: a clause ID is at most 40 characters and a quote at most 2000."
    return None


@router.post("/items/{item_key}/take")
def take(
    request: Request, item_key: str, visitor: PostingVisitor, db: SessionDep, library: LibraryDep
) -> Response:
    return _act(
        request, visitor, db, library, item_key, "taken", lambda i: item_states.take(db, i, visitor.staff)
    )


@router.post("/items/{item_key}/release")
def release(
    request: Request, item_key: str, visitor: PostingVisitor, db: SessionDep, library: LibraryDep
) -> Response:
    return _act(
        request,
        visitor,
        db,
        library,
        item_key,
        "released",
        lambda i: item_states.release(db, i, visitor.staff),
    )


@router.post("/items/{item_key}/answer")
def answer(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
    # Lengths and counts are checked below, so a refusal shows the page with what was typed
    # (a validation error would answer raw JSON and lose the handler's text).
    text: Annotated[str, Form()] = "",
    clause_id: Annotated[list[str], Form()] = [],  # noqa: B006 (FastAPI copies it)
    quote: Annotated[list[str], Form()] = [],  # noqa: B006
    basis_message: Annotated[str, Form(max_length=20)] = "",
    basis_family: Annotated[str, Form(max_length=20)] = "",
    basis_version: Annotated[str, Form(max_length=20)] = "",
    basis_hash: Annotated[str, Form(max_length=64)] = "",
    basis_status: Annotated[str, Form(max_length=20)] = "",
    evidence: Annotated[str, Form(max_length=10)] = "record",
    keep_question: Annotated[str, Form(max_length=10)] = "",
    question: Annotated[str, Form(max_length=answer_evidence.MAX_QUESTION)] = "",
    draft_wrong: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    # Emptied rows are no citations: only rows with a clause ID or a quote count.
    rows = [(c, q) for c, q in zip(clause_id, quote, strict=False) if c.strip() or q.strip()]
    basis = _basis_of_form(basis_message, basis_family, basis_version, basis_hash, basis_status)
    form = {"text": text[:MAX_TEXT], "citations": rows[:MAX_ROWS], "basis": basis}
    problem = _form_problem(text, rows)
    if problem:
        return _item_page(request, visitor, db, library, item_key, error=problem, status=422, form=form)
    if basis is None or not basis_status:
        message = "The form lost what it was written on; reload the item and write the answer again."
        form.pop("basis")
        return _item_page(request, visitor, db, library, item_key, error=message, status=422, form=form)
    if not text.strip():
        return _item_page(
            request, visitor, db, library, item_key, error="Write an answer first.", status=422, form=form
        )
    if any(bool(c.strip()) != bool(q.strip()) for c, q in rows):
        message = "To cite a clause, give both its clause ID and a quote from it (or neither)."
        return _item_page(request, visitor, db, library, item_key, error=message, status=422, form=form)
    citations = [Quote(c.strip(), q) for c, q in rows if c.strip()]
    keep = _keep_of_form(evidence, keep_question, question, draft_wrong)
    return _act(
        request,
        visitor,
        db,
        library,
        item_key,
        "answered",
        lambda i: answering.answer(
            db, library, i, visitor.staff, text.strip(), citations, basis, bar=Bar.of(svc.settings), keep=keep
        ),
        form,
    )


def _keep_of_form(evidence: str, keep_question: str, question: str, draft_wrong: str) -> answer_evidence.Keep:
    """The evidence part of the answer form: the claimant's words only when the box is ticked."""
    return answer_evidence.Keep(
        record=evidence != "decline",
        question=question if keep_question == "yes" and question.strip() else None,
        draft_wrong=draft_wrong == "yes",
    )


@router.post("/items/{item_key}/send-draft")
def send_draft(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
    draft_id: Annotated[str, Form(max_length=12)] = "",
    evidence: Annotated[str, Form(max_length=10)] = "record",
    keep_question: Annotated[str, Form(max_length=10)] = "",
    question: Annotated[str, Form(max_length=answer_evidence.MAX_QUESTION)] = "",
    model_words: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    """Send the draft as drafted in one action, when it is the latest and passes the pre-send
    check; the claimant's words are kept as the form beside the button shows them."""
    keep = _keep_of_form(evidence, keep_question, question, "")
    wanted = int(draft_id) if draft_id.isascii() and draft_id.isdigit() else 0

    def send(item_id: int) -> WaitingItem:
        return drafts.send_as_drafted(
            db,
            library,
            waiting_list.find_item(db, item_id),
            visitor.staff,
            wanted,
            keep=keep,
            bar=Bar.of(svc.settings),
            model_words_confirmed=model_words == "confirmed",
        )

    form = {"keep_question": keep_question == "yes", "question": question}
    return _act(request, visitor, db, library, item_key, "answered", send, form)


@router.post("/items/{item_key}/verdict")
def correct_verdict(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
    outcome: Annotated[str, Form(max_length=12)] = "",
) -> Response:
    """Correct the verdict inferred from the item's answer in one click."""
    if outcome not in ("right", "wrong", "irrelevant"):
        return _item_page(
            request, visitor, db, library, item_key, error="Choose right, wrong or irrelevant.", status=422
        )
    item = _find(db, item_key)
    bar = Bar.of(svc.settings)
    return _evidence_action(
        request,
        visitor,
        db,
        library,
        item_key,
        "verdict",
        lambda: answer_evidence.correct_verdict(
            db, item, outcome, by=holding.evidence_author(item, visitor.staff), bar=bar
        ),
    )


@router.post("/items/{item_key}/rebuild")
def rebuild(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    library: LibraryDep,
    text: Annotated[str, Form(max_length=4000)] = "",
) -> Response:
    """Start again from what holds now: a new draft from the wording governing now (or, when
    none can be composed, a fresh basis for the handler's own text); the unsent text is kept."""
    item = _find(db, item_key)
    try:
        draft = drafts.redraft(db, library, item, [], visitor.staff.username)
    except waiting_list.ItemConflict as exc:
        return _item_page(
            request, visitor, db, library, item_key, error=str(exc), status=409, form={"text": text}
        )
    except drafts.CannotDraft as exc:
        db.rollback()
        notice = (
            f"Rebuilt on what holds now, without a draft ({exc}): "
            "read the conversation again before you send."
        )
        return _item_page(
            request, visitor, db, library, item_key, form={"text": text, "unsent": text}, notice=notice
        )
    form = {
        "text": draft.text,
        "citations": [(c.clause_id, c.quote) for c in Citation.all_of(draft.citations)],
        "basis": drafts.draft_basis(draft),
        "unsent": text,
    }
    notice = (
        f"Draft rebuilt from {draft.family} wording {draft.version}: "
        "read it and the conversation before you send."
    )
    return _item_page(request, visitor, db, library, item_key, form=form, notice=notice)


@router.post("/items/{item_key}/draft")
def draft_from_wording(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    library: LibraryDep,
    clause_ids: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """A draft for an item whose turn fetched no clauses: from the clause IDs given, or the
    clauses the offline model's directory match picks for the question."""
    item = _find(db, item_key)
    ids = [c.strip() for c in clause_ids.replace(",", " ").split() if c.strip()][:CITATION_ROWS]
    try:
        drafts.redraft(db, library, item, ids, visitor.staff.username)
    except waiting_list.ItemConflict as exc:
        form = {"clause_ids": clause_ids}
        return _item_page(request, visitor, db, library, item_key, error=str(exc), status=409, form=form)
    except drafts.CannotDraft as exc:
        db.rollback()
        status = 503 if isinstance(exc, drafts.DraftUnavailable) else 409
        form = {"clause_ids": clause_ids}
        return _item_page(
            request, visitor, db, library, item_key, error=f"No draft: {exc}.", status=status, form=form
        )
    return RedirectResponse(f"/staff/items/{item.reference}?done=drafted", status_code=303)


def _find(db: SessionDep, item_key: str):  # type: ignore[no-untyped-def]
    try:
        return waiting_list.find_item(db, item_key)
    except waiting_list.ItemNotFound as exc:
        raise HTTPException(404, str(exc)) from exc


@router.post("/items/{item_key}/close")
def close(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    library: LibraryDep,
    reason: Annotated[str, Form(max_length=1000)] = "",
) -> Response:
    form = {"close_reason": reason}
    if not reason.strip():
        message = "Give a reason for closing without an answer."
        return _item_page(request, visitor, db, library, item_key, error=message, status=422, form=form)
    return _act(
        request,
        visitor,
        db,
        library,
        item_key,
        "closed",
        lambda i: item_states.close(db, i, visitor.staff, reason.strip()),
        form,
    )


def _evidence_action(
    request: Request,
    visitor: Visitor,
    db: SessionDep,
    library: ClauseLibrary,
    item_key: str,
    done: str,
    action: Callable[[], object],
) -> Response:
    """Record evidence from the item page; refusals show the item again with the reason."""
    try:
        action()
        db.commit()
    except (answer_evidence.NotEvidence, holding.NotHolder) as exc:
        db.rollback()
        return _item_page(request, visitor, db, library, item_key, error=str(exc), status=409)
    item = _find(db, item_key)
    return RedirectResponse(f"/staff/items/{item.reference}?done={done}", status_code=303)


@router.post("/items/{item_key}/flag")
def flag(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
    turn_id: Annotated[str, Form(max_length=32)] = "",
) -> Response:
    """Flag a served answer of the item's conversation as wrong."""
    item = _find(db, item_key)
    turn = db.get(Turn, turn_id)
    if turn is None or turn.claim_id != item.claim_id:
        raise HTTPException(404, f"no answer {turn_id[:40]!r} in this conversation")
    bar = Bar.of(svc.settings)
    return _evidence_action(
        request,
        visitor,
        db,
        library,
        item_key,
        "flagged",
        lambda: (
            answer_evidence.flag_wrong(db, library, turn, by=visitor.staff.username, question=None, bar=bar),
            corrections.correct(db, turn, by=visitor.staff.username),
        ),
    )


@router.post("/items/{item_key}/confirm-unhelpful")
def confirm_unhelpful(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
) -> Response:
    """Confirm a claimant's report that an answer did not help."""
    item = _find(db, item_key)
    bar = Bar.of(svc.settings)
    return _evidence_action(
        request,
        visitor,
        db,
        library,
        item_key,
        "confirmed",
        lambda: answer_evidence.confirm_unhelpful(
            db, library, item, by=holding.evidence_author(item, visitor.staff), question=None, bar=bar
        ),
    )
