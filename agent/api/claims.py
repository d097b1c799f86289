"""Claimant routes: send a message about a claim, read the conversation."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Path, Query, Request
from pydantic import AfterValidator, BaseModel, Field
from sqlalchemy import select

from agent.api.deps import ClaimantClaim, ServicesDep, SessionDep, claim_message_quota, known_query_only
from agent.api.schemas import CitationOut, MessageOut, QueryInt, error_responses, non_blank
from agent.boundary import replies as notices
from agent.db.tables import Message, Turn, WaitingItem
from agent.models.memory import leaving_out
from agent.seed import CLONE_PREFIX
from agent.staff.unhelpful import NotAnAnswer, flag_unhelpful, unhelpful_references
from agent.turn.inbox import IdempotencyConflict

router = APIRouter(
    prefix="/claims",
    tags=["claimant"],
    responses=error_responses(400, 401, 404, 413, 422, 429),
    dependencies=[Depends(known_query_only)],
)
MAX_CHARS = 2000
# An evaluation scoring an inventory question on its own claim names the question here, so the
# offline model's memory leaves it out (leave-one-out). Honoured on evaluation claims only.
LEAVE_OUT_HEADER = "X-Evaluation-Leave-Out"
# An Idempotency-Key is stored and compared: printable ASCII, so no control byte (or other
# character a header decodes to) reaches the database or the logs.
KEY_PATTERN = r"^[\x20-\x7e]+$"


def printable_key(key: str | None) -> str | None:
    if key is None:
        return None
    if not key:
        raise ValueError("is empty; send a key of printable ASCII, or no header")
    bad = next((c for c in key if not " " <= c <= "~"), None)
    if bad is not None:
        name = unicodedata.name(bad, "control character").lower()
        raise ValueError(f"contains U+{ord(bad):04X} ({name}); a key is printable ASCII only")
    return key


class NewMessage(BaseModel):
    text: non_blank("message text is empty", MAX_CHARS, "The claimant's message")  # type: ignore[valid-type]


class Release(BaseModel):
    family: str
    version: str


class LineOut(BaseModel):
    text: str = Field(description="A whole sentence or list item of the clause, verbatim")
    lead_in: str | None = Field(
        description="The lead-in of the list this item belongs to (shown once above the list)"
    )


class AnswerBlockOut(BaseModel):
    """One cited clause, as served."""

    clause_id: str = Field(description="The clause's ID in the governing wording, e.g. MTR-BEN-03")
    title: str = Field(description="The clause's title, as the wording has it")
    version: str = Field(description="The version of the governing wording the clause was read from")
    kind: Literal["cover", "exclusion", "condition", "definition", "process", "general"] = Field(
        description="What sort of clause it is, from its ID (a definition is served as a definition)"
    )
    applies: Literal["included", "not_included", "excluded", "changed"] = Field(
        description="Whether the clause applies to this claimant, from their plan and schedule"
    )
    statement: str = Field(description="The runtime's own line about this clause for this claimant")
    lines: list[LineOut] = Field(description="The served sentences and items, with what qualifies them")
    notes: list[str] = Field(
        description="The runtime's own notes: what a limit limits, whether a clause a sentence refers to "
        "applies to this claimant, which plan is theirs"
    )
    full_text: str = Field(description="The whole clause, as the wording has it")


class FactOut(BaseModel):
    key: str = Field(description="The schedule key, e.g. excess_standard")
    label: str = Field(description="The key's label in plain words")
    value: str = Field(description="The value on this claimant's schedule")


class AnswerOut(BaseModel):
    """The served answer's structure (the same content as `reply`): the runtime's statements
    first, then one block per clause, the schedule facts, the closing sentence."""

    lead: str | None = Field(
        default=None,
        description="Explained style only: the model's short lead, under the free-text checks, shown "
        "before the statements. Null in the quoted style (the default)",
    )
    statements: list[str] = Field(
        description="The runtime's statement of whether each cited clause applies to this claimant, "
        "one per block, in block order: what the claimant reads first"
    )
    blocks: list[AnswerBlockOut] = Field(description="One per cited clause, in the order first cited")
    schedule_facts: list[FactOut] = Field(description="The schedule facts the answer names, with labels")
    closing: str = Field(description="The runtime's closing sentence: nothing about the claim is decided")
    also: str | None = Field(
        default=None,
        description="The runtime's sentence about what of the message also went to the claims team, "
        "with the waiting-list reference (an answer in part, or a message that needs a person); "
        "null when nothing else went to staff",
    )

    @classmethod
    def of(cls, composed: dict[str, Any] | None, reply: str = "") -> AnswerOut | None:
        """From the turn record's composed answer (None: nothing was served) and the reply the
        claimant read (the composed text, then what also went to staff)."""
        if not composed or "blocks" not in composed:
            return None
        blocks = [
            AnswerBlockOut(
                clause_id=b["clause_id"],
                title=b["title"],
                version=b["version"],
                kind=b["kind"],
                applies=b["applies"]["status"],
                statement=b["statement"],
                lines=[LineOut(text=line["text"], lead_in=line["lead_in"]) for line in b["lines"]],
                notes=b["notes"],
                full_text=b["full_text"],
            )
            for b in composed["blocks"]
        ]
        text = composed.get("text") or ""
        rest = reply[len(text) :].strip() if text and reply.startswith(text) else ""
        return cls(
            lead=composed.get("lead"),
            statements=[b.statement for b in blocks],
            blocks=blocks,
            schedule_facts=[FactOut(**f) for f in composed["facts"]],
            closing=composed["closing"],
            also=rest or None,
        )


class TurnReply(BaseModel):
    turn_id: str
    claim_id: str
    reply: str = Field(
        description="What the claimant reads, composed by the runtime: whole sentences of the governing "
        "wording with their clause, the runtime's statements from the schedule, or its own routed reply"
    )
    outcome: Literal["answered", "routed_to_staff", "nothing_asked", "unavailable", "no_schedule"]
    citations: list[CitationOut] = Field(description="One per served sentence or list item")
    citations_verified: bool
    release: Release | None
    waiting_list_reference: str | None = Field(
        description="The waiting-list item's reference: for a route, or for the part of an answer "
        "in part that went to staff"
    )
    answered_in_part: bool = Field(
        default=False,
        description="True when the answer covers only part of the message: outcome stays answered and "
        "the rest is on the waiting list under waiting_list_reference",
    )
    model: str | None
    guidance_status: str | None
    route_reason: str | None = None
    answer: AnswerOut | None = Field(
        default=None,
        description="The structure of a served answer (outcome answered): the runtime's statements, "
        "one block per clause with its full text, the schedule facts. Null for every other outcome, "
        "including an answer drafted for a claims handler to check (route_reason drafted_for_review)",
    )


class ConversationMessage(MessageOut):
    outcome: str | None = None
    citations: list[CitationOut] = []
    answer: AnswerOut | None = Field(
        default=None,
        description="For an agent message that served an answer: its structure (as on TurnReply)",
    )
    unhelpful_reference: str | None = Field(
        default=None,
        description="For a served answer the claimant marked unhelpful: the waiting-list reference the "
        "question went to staff under",
    )


class UnhelpfulReply(BaseModel):
    """A served answer marked as not helping: the question is on the waiting list."""

    message_id: int = Field(description="The agent message that served the answer")
    waiting_list_reference: str = Field(description="The waiting-list item the question went to")
    reply: str = Field(description="What the claimant is told, in the runtime's words")


class Conversation(BaseModel):
    """One page of the conversation, oldest first: by default the latest messages; pass
    `before` (a message id) for the page before it."""

    claim_id: str
    status: str
    messages: list[ConversationMessage]
    has_more: bool = Field(description="older messages exist before this page")
    next_before: int | None = Field(description="the `before` value that fetches the previous page")


MAX_MESSAGE_ID = 2**31 - 1


@router.post(
    "/{claim_id}/messages",
    response_model=TurnReply,
    dependencies=[Depends(claim_message_quota)],
    responses=error_responses(409, 413, 503),
)
async def post_message(
    request: Request,
    claim: ClaimantClaim,
    body: NewMessage,
    svc: ServicesDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            max_length=200,
            description="The same key again, with the same text, returns the stored reply: no new turn. "
            "Printable ASCII only.",
            json_schema_extra={"pattern": KEY_PATTERN},
        ),
        AfterValidator(printable_key),
    ] = None,
) -> TurnReply:
    if claim.status != "open":
        # The agent talks about open claims only; a closed claim's conversation stays readable.
        raise HTTPException(409, f"claim {claim.claim_id} is {claim.status}; messages can no longer be sent")
    evaluated = claim.claim_id.startswith(CLONE_PREFIX)
    leave_out = (request.headers.get(LEAVE_OUT_HEADER) or "").split(",") if evaluated else []
    try:
        with leaving_out(*(k.strip()[:100] for k in leave_out)):
            result = await svc.runner.run(claim.claim_id, body.text, idempotency_key=idempotency_key)
    except IdempotencyConflict as exc:
        raise HTTPException(422, str(exc)) from None
    return TurnReply(
        turn_id=result.turn_id,
        claim_id=result.claim_id,
        reply=result.reply,
        outcome=result.outcome,
        citations=[CitationOut(**c.__dict__) for c in result.citations],
        citations_verified=result.citations_verified,
        release=Release(**result.release) if result.release else None,
        waiting_list_reference=result.waiting_list_reference,
        answered_in_part=result.answered_in_part,
        model=result.model,
        guidance_status=result.guidance_status,
        route_reason=result.route_reason,
        answer=AnswerOut.of(result.answer, result.reply),
    )


@router.get("/{claim_id}/messages", response_model=Conversation)
def get_messages(
    claim: ClaimantClaim,
    session: SessionDep,
    svc: ServicesDep,
    limit: Annotated[
        QueryInt | None, Query(ge=1, le=200, description="messages per page (default 50)")
    ] = None,
    before: Annotated[
        QueryInt | None,
        Query(ge=1, le=MAX_MESSAGE_ID, description="only messages older than this message id"),
    ] = None,
) -> Conversation:
    limit = min(limit or svc.settings.conversation_page_size, svc.settings.conversation_max_page_size)
    where = [Message.claim_id == claim.claim_id]
    if before is not None:
        where.append(Message.id < before)
    # Agent messages carry their turn's citations; staff answers those of their item.
    # Newest first with one extra row to tell whether an older page exists.
    rows = session.execute(
        select(Message, Turn.outcome, Turn.citations, Turn.composed, WaitingItem.answer_citations)
        .outerjoin(Turn, Turn.id == Message.turn_id)
        .outerjoin(WaitingItem, WaitingItem.answer_message_id == Message.id)
        .where(*where)
        .order_by(Message.id.desc())
        .limit(limit + 1)
    ).all()
    has_more = len(rows) > limit
    rows = list(reversed(rows[:limit]))
    flagged = unhelpful_references(session, [m.turn_id for m, *_ in rows if m.role == "agent" and m.turn_id])
    messages = [
        ConversationMessage(
            **MessageOut.fields_of(m),
            outcome=outcome if m.role == "agent" else None,
            citations=[CitationOut(**c) for c in (turn_citations or staff_citations or [])],
            answer=AnswerOut.of(composed, m.body) if outcome == "answered" else None,
            unhelpful_reference=flagged.get(m.turn_id) if m.role == "agent" and m.turn_id else None,
        )
        for m, outcome, turn_citations, composed, staff_citations in rows
    ]
    return Conversation(
        claim_id=claim.claim_id,
        status=claim.status,
        messages=messages,
        has_more=has_more,
        next_before=messages[0].id if has_more and messages else None,
    )


@router.post(
    "/{claim_id}/messages/{message_id}/unhelpful",
    response_model=UnhelpfulReply,
    summary="Say a served answer did not help: the question goes to a claims handler",
    responses=error_responses(409),
)
def mark_unhelpful(
    claim: ClaimantClaim,
    message_id: Annotated[int, Path(ge=1, le=MAX_MESSAGE_ID, description="The agent message that served it")],
    svc: ServicesDep,
) -> UnhelpfulReply:
    """Idempotent: the same answer marked again returns the same reference. 404 for a message
    that is not an answer served on this claim (a route, a staff answer, another claim's)."""
    if claim.status != "open":
        raise HTTPException(409, f"claim {claim.claim_id} is {claim.status}; messages can no longer be sent")
    # Its own session: the lock that keeps two clicks to one item opens its transaction.
    with svc.sessions() as session:
        try:
            item, _ = flag_unhelpful(session, claim.claim_id, message_id)
        except NotAnAnswer as exc:
            raise HTTPException(404, str(exc)) from None
        reference = item.reference
    return UnhelpfulReply(
        message_id=message_id, waiting_list_reference=reference, reply=notices.unhelpful(reference)
    )
