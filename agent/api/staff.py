"""Staff API: the waiting list over bearer tokens. Domain rules live in agent.staff.waiting_list."""

from __future__ import annotations

import logging
from datetime import date, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.answering.bar import Bar
from agent.api.deps import (
    CurrentAuth,
    CurrentStaff,
    ServicesDep,
    SessionDep,
    ThrottleDep,
    client_address,
    known_query_only,
    too_many,
)
from agent.api.schemas import MessageOut, QueryInt, error_responses, non_blank, plain_text, url_part
from agent.db.tables import Draft, StaffSession, WaitingItem
from agent.staff import answer_evidence, drafts, presend, waiting_list
from agent.staff import sessions as staff_sessions
from agent.staff.routed_share import ShareRow, as_csv, routed_share
from agent.staff.waiting_list import StaffCitation
from agent.throttle import Throttled

router = APIRouter(
    prefix="/staff/api",
    tags=["staff"],
    responses=error_responses(400, 401, 413, 422),
    dependencies=[Depends(known_query_only)],
)
log = logging.getLogger(__name__)
MAX_OFFSET = 1_000_000


# Schemas ------------------------------------------------------------------------------------

ItemKey = Annotated[str, Path(**url_part(40, "The item's reference (WL-000123) or its numeric id"))]
StatusFilter = Literal["waiting", "open", "taken", "answered", "closed"]


class ItemOut(BaseModel):
    id: int
    reference: str
    claim_id: str
    family: str | None
    question: str
    reason: str
    status: str
    created_at: datetime
    turn_id: str | None
    taken_by: str | None
    taken_at: datetime | None
    answered_by: str | None
    answered_at: datetime | None
    answer_message_id: int | None
    answer_citations: list[dict[str, str]]
    closed_by: str | None
    closed_at: datetime | None
    close_reason: str | None
    answer_version: str | None = Field(description="The wording that governed the claim when answered")
    send_check: str | None = Field(
        description="The pre-send check of the answer: passed, or unavailable (sent with send_warning)"
    )
    send_warning: str | None

    @classmethod
    def of(cls, item: WaitingItem) -> ItemOut:
        fields = {name: getattr(item, name) for name in cls.model_fields}
        fields["answer_citations"] = item.answer_citations or []
        return cls(**fields)


class ItemPage(BaseModel):
    total: int
    limit: int
    offset: int
    items: list[ItemOut]
    counts_by_reason: dict[str, int]
    counts_by_family: dict[str, int]


class ClaimOut(BaseModel):
    claim_id: str
    status: str
    incident_date: Any
    incident: str
    policy_number: str
    policyholder: str
    family: str
    plan: str
    # The term in force on the incident date; null when no term holds it.
    term_start: Any
    term_end: Any
    schedule_summary: str | None


class TurnRecordOut(BaseModel):
    """The turn record as staff read it, read straight from the stored row."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    started_at: datetime
    family: str | None
    version: str | None
    outcome: str | None
    route_reason: str | None
    guidance_status: str | None
    directory_seen: list[dict[str, Any]]
    requested: list[str]
    returned: list[str]
    not_found: list[str]
    cited: list[str]
    # Only the checks that failed, from the record's checks of every attempt.
    failed_checks: list[dict[str, Any]] = Field(validation_alias="checks")
    model_name: str | None
    error: str | None

    @field_validator("failed_checks", mode="before")
    @classmethod
    def _failed_only(cls, checks: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        return [c for c in checks or [] if not c.get("passed")]


class WithdrawnWordingOut(BaseModel):
    """On a wording_withdrawn item: the version and the replies (with quotes) that relied on it."""

    family: str
    version: str
    replies: list[dict[str, Any]]


class BasisModel(BaseModel):
    """What a handler saw when opening an item (or what a draft was made from): sent back with
    the answer, so the pre-send check can say what changed before it goes out."""

    last_message_id: int | None = Field(ge=0, le=2**63 - 1)
    family: plain_text(20, "Policy family") | None  # type: ignore[valid-type]
    version: plain_text(20, "The governing wording version; null when none governed") | None  # type: ignore[valid-type]
    content_hash: plain_text(64, "That version's content hash") | None  # type: ignore[valid-type]
    claim_status: plain_text(20, "The claim's status")  # type: ignore[valid-type]

    @classmethod
    def of(cls, basis: presend.Basis) -> BasisModel:
        return cls(**basis.__dict__)

    def basis(self) -> presend.Basis:
        return presend.Basis(**self.model_dump())


class DraftOut(BaseModel):
    """A draft composed from the governing wording for the handler to edit; `stale` says what
    changed since it was made (rebuild with POST .../draft)."""

    id: int
    made_at: datetime
    made_by: str | None = Field(description="null: composed by the runtime when the item was first opened")
    origin: str = Field(
        description="turn: from the clauses the turn fetched; wording: asked for by a handler"
    )
    text: str
    citations: list[dict[str, str]]
    basis: BasisModel
    stale: list[str]


class DraftIn(BaseModel):
    clause_ids: list[plain_text(40, "A clause ID of the governing wording", min_length=1)] = Field(  # type: ignore[valid-type]
        default_factory=list,
        max_length=waiting_list.MAX_CITATIONS,
        description="Clauses to draft from; empty: the latest draft's, the turn's, or the offline match",
    )


class ItemDetail(BaseModel):
    item: ItemOut
    claim: ClaimOut
    conversation: list[MessageOut]
    turn: TurnRecordOut | None
    staff_names: dict[str, str]
    withdrawn_wording: WithdrawnWordingOut | None = None
    basis: BasisModel = Field(description="Send this back with the answer (the pre-send check)")
    basis_warning: str | None = Field(None, description="Why the governing wording could not be read now")
    draft: DraftOut | None = None


class CitationIn(BaseModel):
    clause_id: plain_text(40, "A clause ID of the claim's governing wording", min_length=1)  # type: ignore[valid-type]
    quote: plain_text(2000, "A span quoted from that clause", min_length=1)  # type: ignore[valid-type]


class EvidenceIn(BaseModel):
    """What the answer leaves as evidence of the governing wording. By default: the verdict on the
    draft and the clauses cited, without the claimant's words."""

    record: bool = Field(True, description="false: record no evidence from this answer")
    question: (
        plain_text(  # type: ignore[valid-type]
            answer_evidence.MAX_QUESTION, "The question's words to keep (edited as you like); null: not kept"
        )
        | None
    ) = None
    draft_wrong: bool = Field(False, description="The draft was wrong, whatever the answer cites")

    def keep(self) -> answer_evidence.Keep:
        return answer_evidence.Keep(self.record, self.question, self.draft_wrong)


class AnswerIn(BaseModel):
    text: non_blank("answer text is empty", 4000, "The answer the claimant will read")  # type: ignore[valid-type]
    citations: list[CitationIn] = Field(default_factory=list, max_length=waiting_list.MAX_CITATIONS)
    basis: BasisModel = Field(description="The item's `basis` as read when the answer was written")
    evidence: EvidenceIn = Field(default_factory=EvidenceIn)


class SendDraftIn(BaseModel):
    draft_id: int = Field(
        ge=1, le=2**31 - 1, description="The draft you read: sent only if it is still the latest"
    )
    evidence: EvidenceIn = Field(default_factory=EvidenceIn)


class CloseIn(BaseModel):
    reason: non_blank(  # type: ignore[valid-type]
        "a reason is needed to close an item", 1000, "Why the item is closed without an answer"
    )


class FamilyGapsOut(BaseModel):
    family: str
    last_7_days: dict[str, int]
    last_30_days: dict[str, int]
    total_7_days: int
    total_30_days: int


class NoClauseOut(BaseModel):
    reference: str
    claim_id: str
    family: str | None
    question: str
    reason: str
    status: str
    created_at: datetime
    version: str | None
    requested: list[str]
    not_found: list[str]


class ModelReasonOut(BaseModel):
    reference: str
    claim_id: str
    family: str | None
    question: str
    reason: str = Field(description="The model's reason the route kept (a decision, claim progress, ...)")
    model_reason: str | None = Field(description="What the model suggested, as the turn recorded it")
    status: str
    created_at: datetime


class RoutedShareOut(BaseModel):
    week_starting: date
    family: str
    clause_id: str | None = Field(description="null: the family as a whole")
    questions: int
    routed: int
    routed_share: float


class ContentGapsOut(BaseModel):
    families: list[FamilyGapsOut]
    no_clause_selected: list[NoClauseOut]
    sent_without_check_30_days: dict[str, int] = Field(
        description="Staff answers sent while the pre-send check could not run, per family"
    )
    routed_share: list[RoutedShareOut] = Field(
        description="Per week (newest first), family and fetched clause: questions and the share routed"
    )
    on_the_models_reason: list[ModelReasonOut] = Field(
        default=[],
        description="Questions routed in the last 30 days on the model's own reason (no clause checked "
        "by the runtime), newest first: a model that calls cover questions decisions shows here",
    )


class StaffOut(BaseModel):
    username: str
    display_name: str
    roles: list[str]


class LoginIn(BaseModel):
    username: plain_text(60, "Staff username", min_length=1)  # type: ignore[valid-type]
    password: plain_text(200, "Password", min_length=1)  # type: ignore[valid-type]


class SessionOut(BaseModel):
    id: str
    kind: str
    client: str | None
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime
    current: bool

    @classmethod
    def of(cls, row: StaffSession, current: StaffSession | None) -> SessionOut:
        return cls(
            id=row.id,
            kind=row.kind,
            client=row.client,
            created_at=row.created_at,
            last_seen_at=row.last_seen_at,
            expires_at=row.expires_at,
            current=current is not None and row.id == current.id,
        )


class LoginOut(BaseModel):
    token: str = Field(description="Bearer token of the new session; shown once, stored hashed")
    session: SessionOut


def draft_of(draft: Draft, stale: list[str]) -> DraftOut:
    return DraftOut(
        id=draft.id,
        made_at=draft.made_at,
        made_by=draft.made_by,
        origin=draft.origin,
        text=draft.text,
        citations=draft.citations,
        basis=BasisModel.of(drafts.draft_basis(draft)),
        stale=stale,
    )


def detail_of(
    view: waiting_list.ItemView,
    now: tuple[presend.Basis, presend.Governing],
    draft: DraftOut | None = None,
) -> ItemDetail:
    claim, policy, turn = view.claim, view.policy, view.turn
    return ItemDetail(
        item=ItemOut.of(view.item),
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
        ),
        conversation=[MessageOut(**MessageOut.fields_of(m)) for m in view.conversation],
        turn=None if turn is None else TurnRecordOut.model_validate(turn),
        staff_names=view.staff_names,
        withdrawn_wording=None
        if view.withdrawn is None
        else WithdrawnWordingOut(
            family=view.withdrawn.family, version=view.withdrawn.version, replies=view.withdrawn.replies
        ),
        basis=BasisModel.of(now[0]),
        basis_warning=now[1].unavailable,
        draft=draft,
    )


def gaps_of(gaps: waiting_list.ContentGaps, shares: list[ShareRow]) -> ContentGapsOut:
    return ContentGapsOut(
        sent_without_check_30_days=gaps.unchecked_sends,
        routed_share=[
            RoutedShareOut(
                week_starting=r.week,
                family=r.family,
                clause_id=r.clause_id,
                questions=r.questions,
                routed=r.routed,
                routed_share=round(r.share, 3),
            )
            for r in shares
        ],
        families=[
            FamilyGapsOut(
                family=f.family,
                last_7_days=f.last_7_days,
                last_30_days=f.last_30_days,
                total_7_days=f.total_7,
                total_30_days=f.total_30,
            )
            for f in gaps.families
        ],
        no_clause_selected=[
            NoClauseOut(
                reference=q.item.reference,
                claim_id=q.item.claim_id,
                family=q.item.family,
                question=q.item.question,
                reason=q.item.reason,
                status=q.item.status,
                created_at=q.item.created_at,
                version=q.version,
                requested=q.requested,
                not_found=q.not_found,
            )
            for q in gaps.no_clause
        ],
        on_the_models_reason=[
            ModelReasonOut(
                reference=r.item.reference,
                claim_id=r.item.claim_id,
                family=r.item.family,
                question=r.item.question,
                reason=r.item.reason,
                model_reason=r.model_reason,
                status=r.item.status,
                created_at=r.item.created_at,
            )
            for r in gaps.model_reason
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
    return LoginOut(token=token, session=SessionOut.of(row, row))


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
    return [SessionOut.of(r, auth.session) for r in rows]


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
    return StaffOut(username=staff.username, display_name=staff.display_name, roles=list(staff.roles or []))


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
        items=[ItemOut.of(i) for i in page.items],
        counts_by_reason=page.by_reason,
        counts_by_family=page.by_family,
    )


@router.get("/items/{item_key}", response_model=ItemDetail, responses=error_responses(404, 503))
def get_item(item_key: ItemKey, staff: CurrentStaff, session: SessionDep, svc: ServicesDep) -> ItemDetail:
    item = waiting_list.find_item(session, item_key)
    library = svc.runner.library
    view = waiting_list.item_view(session, item)
    draft = drafts.draft_on_first_open(session, library, item)
    shown = None if draft is None else draft_of(draft, drafts.draft_stale(session, library, item, draft))
    return detail_of(view, presend.basis_now(session, library, item), shown)


@router.post(
    "/items/{item_key}/draft", response_model=DraftOut, responses=error_responses(404, 409, 413, 503)
)
def make_draft(
    item_key: ItemKey, body: DraftIn, staff: CurrentStaff, session: SessionDep, svc: ServicesDep
) -> DraftOut:
    """Compose a new draft from the wording governing the claim now (a rebuild after a stale
    check, or a draft for an item whose turn fetched no clauses): on an open item, or one you
    have taken (409 when another handler holds it)."""
    item = waiting_list.find_item(session, item_key)
    try:
        made = drafts.redraft(
            session, svc.runner.library, item, [c.strip() for c in body.clause_ids], staff.username
        )
    except drafts.DraftUnavailable as exc:
        raise HTTPException(503, f"no draft now: {exc}; try again") from exc
    except drafts.CannotDraft as exc:
        raise HTTPException(409, f"no draft: {exc}") from exc
    return draft_of(made, [])


@router.post("/items/{item_key}/take", response_model=ItemOut, responses=error_responses(404, 409, 413))
def take(item_key: ItemKey, staff: CurrentStaff, session: SessionDep) -> ItemOut:
    item = waiting_list.find_item(session, item_key)
    return ItemOut.of(waiting_list.take(session, item.id, staff))


@router.post("/items/{item_key}/release", response_model=ItemOut, responses=error_responses(404, 409, 413))
def release(item_key: ItemKey, staff: CurrentStaff, session: SessionDep) -> ItemOut:
    item = waiting_list.find_item(session, item_key)
    return ItemOut.of(waiting_list.release(session, item.id, staff))


@router.post(
    "/items/{item_key}/answer", response_model=ItemOut, responses=error_responses(404, 409, 413, 503)
)
def answer(
    item_key: ItemKey, body: AnswerIn, staff: CurrentStaff, session: SessionDep, svc: ServicesDep
) -> ItemOut:
    """Send an answer. The pre-send check compares `basis` with now: if the claimant wrote
    since, the governing wording changed or the claim's status changed, 409 whose detail says
    "WL-000123: the answer is stale: " and each reason, separated by "; " (GET the item for the
    basis now, or POST .../draft to rebuild); if the check cannot run, the answer is sent with
    `send_warning` set."""
    citations = [StaffCitation(c.clause_id.strip(), c.quote) for c in body.citations]
    item = waiting_list.find_item(session, item_key)
    return ItemOut.of(
        waiting_list.answer(
            session,
            svc.runner.library,
            item.id,
            staff,
            body.text,
            citations,
            body.basis.basis(),
            bar=Bar.of(svc.settings),
            keep=body.evidence.keep(),
        )
    )


@router.post(
    "/items/{item_key}/send-draft", response_model=ItemOut, responses=error_responses(404, 409, 413, 503)
)
def send_draft(
    item_key: ItemKey, body: SendDraftIn, staff: CurrentStaff, session: SessionDep, svc: ServicesDep
) -> ItemOut:
    """Send the item's draft as drafted, in one action: the draft must be the latest and pass the
    pre-send check (409 with the reasons otherwise, and nothing changes); an open item is taken
    for you first. The evidence records the verdict `sent_as_drafted`."""
    item = waiting_list.find_item(session, item_key)
    library = svc.runner.library
    draft = drafts.latest_draft(session, item.id)
    if draft is None or draft.id != body.draft_id:
        raise HTTPException(409, f"{item.reference}: draft {body.draft_id} is not the item's latest draft")
    stale = drafts.draft_stale(session, library, item, draft)
    if stale:
        raise waiting_list.Stale(item.reference, stale)
    if item.status == "open":
        waiting_list.take(session, item.id, staff)
    citations = [StaffCitation(c["clause_id"], c["quote"]) for c in draft.citations]
    return ItemOut.of(
        waiting_list.answer(
            session,
            library,
            item.id,
            staff,
            draft.text,
            citations,
            drafts.draft_basis(draft),
            bar=Bar.of(svc.settings),
            keep=body.evidence.keep(),
        )
    )


@router.post("/items/{item_key}/close", response_model=ItemOut, responses=error_responses(404, 409, 413, 503))
def close(item_key: ItemKey, body: CloseIn, staff: CurrentStaff, session: SessionDep) -> ItemOut:
    item = waiting_list.find_item(session, item_key)
    return ItemOut.of(waiting_list.close(session, item.id, staff, body.reason))


@router.get("/content-gaps", response_model=ContentGapsOut)
def content_gaps(staff: CurrentStaff, session: SessionDep) -> ContentGapsOut:
    return gaps_of(waiting_list.content_gaps(session), routed_share(session))


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
