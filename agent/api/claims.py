"""Claimant routes: send a message about a claim, read the conversation."""

from __future__ import annotations

import unicodedata
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Path, Query
from pydantic import AfterValidator
from sqlalchemy import select

from agent.api.deps import ClaimantClaim, ServicesDep, SessionDep, api_router, claim_message_quota
from agent.api.schemas.claims import (
    AnswerOut,
    Conversation,
    ConversationMessage,
    NewMessage,
    StaffAnswerOut,
    TurnReply,
    UnhelpfulReply,
)
from agent.api.schemas.common import QueryInt, error_responses, shape_of
from agent.boundary import replies as notices
from agent.boundary.citation import Citation
from agent.db.tables import Message, Turn, WaitingItem
from agent.staff.answer_citations import staff_text_of
from agent.staff.unhelpful import NotAnAnswer, flag_unhelpful, unhelpful_references
from agent.turn.inbox import IdempotencyConflict

router = api_router("/claims", "claimant", 400, 401, 404, 413, 422, 429)
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


MAX_MESSAGE_ID = 2**31 - 1


@router.post(
    "/{claim_id}/messages",
    response_model=TurnReply,
    dependencies=[Depends(claim_message_quota)],
    responses=error_responses(409, 413, 503),
)
async def post_message(
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
    try:
        result = await svc.runner.run(claim.claim_id, body.text, idempotency_key=idempotency_key)
    except IdempotencyConflict as exc:
        raise HTTPException(422, str(exc)) from None
    return shape_of(TurnReply, result, answer=AnswerOut.of(result.answer, result.reply))


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
    # The message's own fields come from its row; the rest from its turn or staff answer.
    messages = [
        shape_of(
            ConversationMessage,
            m,
            outcome=outcome if m.role == "agent" else None,
            citations=Citation.all_of(turn_citations or staff_citations),
            answer=AnswerOut.of(composed, m.body) if outcome == "answered" else None,
            unhelpful_reference=flagged.get(m.turn_id) if m.role == "agent" and m.turn_id else None,
            staff_answer=_staff_answer(m.body, staff_citations) if m.role == "staff" else None,
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


def _staff_answer(body: str, stored: list[dict[str, str]] | None) -> StaffAnswerOut:
    shown = Citation.all_of(stored)
    return StaffAnswerOut.of(staff_text_of(body, shown), shown)


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
