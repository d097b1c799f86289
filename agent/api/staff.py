"""Staff API: the waiting list over bearer tokens. Domain rules live in agent.staff.waiting_list."""

from __future__ import annotations

import logging
from typing import Annotated, Literal

from fastapi import HTTPException, Path, Query, Request, Response
from sqlalchemy.orm import Session

from agent.answering.bar import Bar
from agent.api.deps import (
    CurrentAuth,
    CurrentStaff,
    LibraryDep,
    ServicesDep,
    SessionDep,
    ThrottleDep,
    api_router,
    client_address,
    too_many,
)
from agent.api.schemas.common import MessageOut, QueryInt, error_responses, shape_of, url_part
from agent.api.schemas.staff import (
    AnswerIn,
    BasisModel,
    ClaimOut,
    CloseIn,
    ContentGapsOut,
    DraftIn,
    DraftOut,
    FamilyGapsOut,
    ItemDetail,
    ItemOut,
    ItemPage,
    LoginIn,
    LoginOut,
    ModelReasonOut,
    NoClauseOut,
    RoutedShareOut,
    SendDraftIn,
    SessionOut,
    StaffOut,
    TurnRecordOut,
    VerdictIn,
    VerdictOut,
    WithdrawnWordingOut,
)
from agent.boundary.citation import Citation, Quote
from agent.db.tables import Draft, WaitingItem
from agent.staff import (
    answer_evidence,
    answering,
    draft_parts,
    drafts,
    holding,
    item_states,
    presend,
    waiting_list,
)
from agent.staff import content_gaps as wording_gaps
from agent.staff import sessions as staff_sessions
from agent.staff.routed_share import ShareRow, as_csv, routed_share
from agent.throttle import Throttled

router = api_router("/staff/api", "staff", 400, 401, 413, 422)
log = logging.getLogger(__name__)
MAX_OFFSET = 1_000_000


# Schemas ------------------------------------------------------------------------------------

ItemKey = Annotated[str, Path(**url_part(40, "The item's reference (WL-000123) or its numeric id"))]
StatusFilter = Literal["waiting", "open", "taken", "answered", "closed"]


def draft_of(session: Session, draft: Draft, stale: list[str]) -> DraftOut:
    changed, lost = drafts.lost_in_rebuild(session, draft.item_id)
    return shape_of(
        DraftOut,
        draft,
        citations=Citation.all_of(draft.citations),
        basis=drafts.draft_basis(draft),
        stale=stale,
        model_words=draft_parts.model_words(session, draft),
        runtime_added=sorted(draft_parts.runtime_added(session, draft)),
        lost_sentences=lost,
        wording_change=changed if lost else None,
    )


def item_out(session: Session, item: WaitingItem) -> ItemOut:
    """The item with the verdict its answer's evidence records (when it scored a draft)."""
    row = answer_evidence.verdict_of(session, item) if item.status == "answered" else None
    return ItemOut.model_validate(item).model_copy(
        update={"verdict": None if row is None else VerdictOut.model_validate(row)}
    )


def detail_of(
    session: Session,
    view: waiting_list.ItemView,
    now: tuple[presend.Basis, presend.Governing],
    draft: DraftOut | None = None,
) -> ItemDetail:
    # A mapper: the claim's shape joins claim, policy and the term in force; the rest validate
    # straight from their rows.
    claim, policy, turn = view.claim, view.policy, view.turn
    return ItemDetail(
        item=item_out(session, view.item),
        claim=ClaimOut(
            claim_id=claim.claim_id,
            status=claim.status,
            incident_date=claim.incident_date,
            incident=claim.incident,
            policy_number=policy.policy_number,
            policyholder=policy.policyholder,
            family=policy.family,
            plan=view.term.plan if view.term else policy.plan,
            term_start=view.term.term_start if view.term else None,
            term_end=view.term.term_end if view.term else None,
            schedule_summary=view.schedule_summary,
            schedule_warnings=list(view.schedule_warnings),
        ),
        conversation=[MessageOut.model_validate(m) for m in view.conversation],
        turn=None if turn is None else TurnRecordOut.model_validate(turn),
        staff_names=view.staff_names,
        withdrawn_wording=None
        if view.withdrawn is None
        else WithdrawnWordingOut.model_validate(view.withdrawn),
        basis=BasisModel.model_validate(now[0]),
        basis_warning=now[1].unavailable,
        draft=draft,
    )


def gaps_of(gaps: wording_gaps.ContentGaps, shares: list[ShareRow]) -> ContentGapsOut:
    # A mapper: the API's names differ from the report's, items join their turns, shares are rounded.
    return ContentGapsOut(
        sent_without_check_30_days=gaps.unchecked_sends,
        routed_share=[
            shape_of(RoutedShareOut, r, week_starting=r.week, routed_share=round(r.share, 3)) for r in shares
        ],
        families=[
            shape_of(FamilyGapsOut, f, total_7_days=f.total_7, total_30_days=f.total_30)
            for f in gaps.families
        ],
        no_clause_selected=[
            shape_of(NoClauseOut, q.item, version=q.version, requested=q.requested, not_found=q.not_found)
            for q in gaps.no_clause
        ],
        on_the_models_reason=[
            shape_of(ModelReasonOut, r.item, model_reason=r.model_reason) for r in gaps.model_reason
        ],
    )


# Routes -------------------------------------------------------------------------------------


@router.post("/login", response_model=LoginOut, status_code=201, responses=error_responses(413, 429))
def login(
    body: LoginIn,
    request: Request,
    response: Response,
    session: SessionDep,
    svc: ServicesDep,
    limits: ThrottleDep,
) -> LoginOut:
    """A new API session for a staff user; attempts are throttled per account and address."""
    # The answer holds the session's token, and the request carried no credentials for the
    # security headers to go by: no browser or shared cache may keep it.
    response.headers["Cache-Control"] = "no-store"
    try:
        staff = staff_sessions.authenticate(
            session, limits, body.username, body.password, client_address(request)
        )
    except Throttled as exc:
        log.info("staff API login throttled")
        raise too_many(exc) from exc
    if staff is None:
        log.info("staff API login refused")
        raise HTTPException(401, "wrong username or password", headers={"WWW-Authenticate": "Bearer"})
    row, token = staff_sessions.open_session(session, staff, "api", client_address(request), svc.settings)
    log.info("staff API login %s session %s", staff.username, row.id)
    return LoginOut(token=token, session=shape_of(SessionOut, row, current=True))


@router.post("/logout", status_code=204, response_class=Response, responses=error_responses(409))
def logout(auth: CurrentAuth, session: SessionDep) -> Response:
    """Ends the session whose token made this request (a standing user token cannot log out)."""
    if auth.session is None:
        raise HTTPException(409, "this is a standing user token, not a session; nothing to log out")
    staff_sessions.revoke(session, auth.session.id)
    log.info("staff API logout %s session %s", auth.staff.username, auth.session.id)
    return Response(status_code=204)


@router.get("/sessions", response_model=list[SessionOut])
def my_sessions(auth: CurrentAuth, session: SessionDep, svc: ServicesDep) -> list[SessionOut]:
    """Your live sessions (browser and API), oldest first."""
    rows = staff_sessions.sessions_of(session, auth.staff.username, svc.settings)
    current = auth.session.id if auth.session else None
    return [shape_of(SessionOut, r, current=r.id == current) for r in rows]


@router.delete(
    "/sessions/{session_id}", status_code=204, response_class=Response, responses=error_responses(404)
)
def revoke_session(
    session_id: Annotated[str, Path(**url_part(64, "A session id from GET /staff/api/sessions"))],
    auth: CurrentAuth,
    session: SessionDep,
) -> Response:
    """Revoke one of your own sessions (another user's session is not found)."""
    if not staff_sessions.revoke(session, session_id, auth.staff.username):
        raise HTTPException(404, f"no live session {session_id[:40]!r} of yours")
    log.info("staff %s revoked session %s", auth.staff.username, session_id[:40])
    return Response(status_code=204)


@router.get("/me", response_model=StaffOut)
def me(staff: CurrentStaff) -> StaffOut:
    return StaffOut.model_validate(staff)


@router.get("/items", response_model=ItemPage)
def list_items(
    staff: CurrentStaff,
    session: SessionDep,
    status: StatusFilter | None = None,
    reason: Annotated[str | None, Query(**url_part(40, "only items routed for this reason"))] = None,
    family: Annotated[str | None, Query(**url_part(20, "only items of this policy family"))] = None,
    limit: Annotated[QueryInt, Query(ge=1, le=200, description="items per page")] = 50,
    offset: Annotated[QueryInt, Query(ge=0, le=MAX_OFFSET, description="items to skip")] = 0,
) -> ItemPage:
    page = waiting_list.list_items(
        session, status=status, reason=reason, family=family, limit=limit, offset=offset
    )
    return ItemPage(
        total=page.total,
        limit=page.limit,
        offset=page.offset,
        items=[ItemOut.model_validate(i) for i in page.items],
        counts_by_reason=page.by_reason,
        counts_by_family=page.by_family,
    )


@router.get("/items/{item_key}", response_model=ItemDetail, responses=error_responses(404, 503))
def get_item(item_key: ItemKey, staff: CurrentStaff, session: SessionDep, library: LibraryDep) -> ItemDetail:
    item = waiting_list.find_item(session, item_key)
    view = waiting_list.item_view(session, item, library)
    draft = drafts.draft_on_first_open(session, library, item)
    shown = (
        None if draft is None else draft_of(session, draft, drafts.draft_stale(session, library, item, draft))
    )
    return detail_of(session, view, presend.basis_now(session, library, item), shown)


@router.post(
    "/items/{item_key}/draft", response_model=DraftOut, responses=error_responses(404, 409, 413, 503)
)
def make_draft(
    item_key: ItemKey, body: DraftIn, staff: CurrentStaff, session: SessionDep, library: LibraryDep
) -> DraftOut:
    """Compose a new draft from the wording governing the claim now (a rebuild after a stale
    check, or a draft for an item whose turn fetched no clauses): on an open item, or one you
    have taken (409 when another handler holds it)."""
    item = waiting_list.find_item(session, item_key)
    try:
        made = drafts.redraft(session, library, item, [c.strip() for c in body.clause_ids], staff.username)
    except drafts.DraftUnavailable as exc:
        raise HTTPException(503, f"no draft now: {exc}; try again") from exc
    except drafts.CannotDraft as exc:
        raise HTTPException(409, f"no draft: {exc}") from exc
    return draft_of(session, made, [])


@router.post("/items/{item_key}/take", response_model=ItemOut, responses=error_responses(404, 409, 413))
def take(item_key: ItemKey, staff: CurrentStaff, session: SessionDep) -> ItemOut:
    item = waiting_list.find_item(session, item_key)
    return ItemOut.model_validate(item_states.take(session, item.id, staff))


@router.post("/items/{item_key}/release", response_model=ItemOut, responses=error_responses(404, 409, 413))
def release(item_key: ItemKey, staff: CurrentStaff, session: SessionDep) -> ItemOut:
    item = waiting_list.find_item(session, item_key)
    return ItemOut.model_validate(item_states.release(session, item.id, staff))


@router.post(
    "/items/{item_key}/answer", response_model=ItemOut, responses=error_responses(404, 409, 413, 503)
)
def answer(
    item_key: ItemKey,
    body: AnswerIn,
    staff: CurrentStaff,
    session: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
) -> ItemOut:
    """Send an answer. The pre-send check compares `basis` with now: if the claimant wrote
    since, the governing wording changed or the claim's status changed, 409 whose detail says
    "WL-000123: the answer is stale: " and each reason, separated by "; " (GET the item for the
    basis now, or POST .../draft to rebuild); if the check cannot run, the answer is sent with
    `send_warning` set."""
    citations = [Quote(c.clause_id.strip(), c.quote) for c in body.citations]
    item = waiting_list.find_item(session, item_key)
    return item_out(
        session,
        answering.answer(
            session,
            library,
            item.id,
            staff,
            body.text,
            citations,
            body.basis.basis(),
            bar=Bar.of(svc.settings),
            keep=body.evidence.keep(),
        ),
    )


@router.post(
    "/items/{item_key}/send-draft", response_model=ItemOut, responses=error_responses(404, 409, 413, 503)
)
def send_draft(
    item_key: ItemKey,
    body: SendDraftIn,
    staff: CurrentStaff,
    session: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
) -> ItemOut:
    """Send the item's draft as drafted, in one action: the draft must be the latest and pass the
    pre-send check (409 with the reasons otherwise); a draft holding words a model wrote (its
    `model_words`) needs `model_words_confirmed` and passes their checks again (422 otherwise);
    at most three clauses, any number of their sentences (422 otherwise). A refused send leaves
    the item as it was; an open item is taken for you first. The evidence records the verdict
    (`sent_as_drafted`) and keeps the claimant's words only as `evidence` says."""
    item = waiting_list.find_item(session, item_key)
    sent = drafts.send_as_drafted(
        session,
        library,
        item,
        staff,
        body.draft_id,
        keep=body.evidence.keep(),
        bar=Bar.of(svc.settings),
        model_words_confirmed=body.model_words_confirmed,
    )
    return item_out(session, sent)


@router.post("/items/{item_key}/verdict", response_model=ItemOut, responses=error_responses(404, 409, 413))
def correct_verdict(
    item_key: ItemKey, body: VerdictIn, staff: CurrentStaff, session: SessionDep, svc: ServicesDep
) -> ItemOut:
    """Correct the verdict inferred from the item's answer (409 when the answer scored no draft):
    its evidence row records said_right, said_wrong or said_irrelevant with that outcome."""
    item = waiting_list.find_item(session, item_key)
    by = holding.evidence_author(item, staff, override=body.override)
    answer_evidence.correct_verdict(session, item, body.outcome, by=by, bar=Bar.of(svc.settings))
    session.commit()
    return item_out(session, item)


@router.post("/items/{item_key}/close", response_model=ItemOut, responses=error_responses(404, 409, 413, 503))
def close(item_key: ItemKey, body: CloseIn, staff: CurrentStaff, session: SessionDep) -> ItemOut:
    item = waiting_list.find_item(session, item_key)
    return ItemOut.model_validate(item_states.close(session, item.id, staff, body.reason))


@router.get("/content-gaps", response_model=ContentGapsOut)
def content_gaps(staff: CurrentStaff, session: SessionDep) -> ContentGapsOut:
    return gaps_of(wording_gaps.content_gaps(session), routed_share(session))


@router.get(
    "/content-gaps/routed-share.csv",
    response_class=Response,
    responses={
        200: {
            "content": {"text/csv": {"schema": {"type": "string"}}},
            "description": "One row per week, family and clause",
        }
    },
)
def routed_share_csv(staff: CurrentStaff, session: SessionDep) -> Response:
    """The routed share per week, family and fetched clause, as CSV (columns: week_starting,
    family, clause_id (empty for the family as a whole), questions, routed, routed_share)."""
    return csv_response(routed_share(session))


def csv_response(rows: list[ShareRow]) -> Response:
    return Response(
        as_csv(rows),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="routed-share.csv"'},
    )
