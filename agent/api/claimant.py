"""Claimant routes: send a message about a claim, read the conversation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, HTTPException
from pydantic import BaseModel
from sqlalchemy import select

from agent.api.deps import ClaimantClaim, ServicesDep, SessionDep
from agent.api.schemas import CitationOut, MessageOut, non_blank
from agent.db import Message, Turn, WaitingItem
from agent.inbox import IdempotencyConflict

router = APIRouter(prefix="/claims", tags=["claimant"])
MAX_CHARS = 2000


class NewMessage(BaseModel):
    text: non_blank("message text is empty", MAX_CHARS, "The claimant's message")  # type: ignore[valid-type]


class Release(BaseModel):
    family: str
    version: str


class TurnReply(BaseModel):
    turn_id: str
    claim_id: str
    reply: str
    outcome: str
    citations: list[CitationOut]
    citations_verified: bool
    release: Release | None
    waiting_list_reference: str | None
    model: str | None
    guidance_status: str | None
    route_reason: str | None = None


class ConversationMessage(MessageOut):
    outcome: str | None = None
    citations: list[CitationOut] = []


class Conversation(BaseModel):
    claim_id: str
    status: str
    messages: list[ConversationMessage]


@router.post("/{claim_id}/messages", response_model=TurnReply)
async def post_message(
    claim: ClaimantClaim,
    body: NewMessage,
    svc: ServicesDep,
    idempotency_key: Annotated[
        str | None,
        Header(
            max_length=200,
            description="The same key again, with the same text, returns the stored reply: no new turn.",
        ),
    ] = None,
) -> TurnReply:
    if claim.status != "open":
        # The agent talks about open claims only; a closed claim's conversation stays readable.
        raise HTTPException(409, f"claim {claim.claim_id} is {claim.status}; messages can no longer be sent")
    try:
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
        waiting_list_reference=result.waiting_reference,
        model=result.model,
        guidance_status=result.guidance_status,
        route_reason=result.route_reason,
    )


@router.get("/{claim_id}/messages", response_model=Conversation)
def get_messages(claim: ClaimantClaim, session: SessionDep) -> Conversation:
    # Agent messages carry their turn's citations; staff answers those of their item.
    rows = session.execute(
        select(Message, Turn.outcome, Turn.citations, WaitingItem.answer_citations)
        .outerjoin(Turn, Turn.id == Message.turn_id)
        .outerjoin(WaitingItem, WaitingItem.answer_message_id == Message.id)
        .where(Message.claim_id == claim.claim_id)
        .order_by(Message.id)
    ).all()
    messages = [
        ConversationMessage(
            **MessageOut.fields_of(m),
            outcome=outcome if m.role == "agent" else None,
            citations=[CitationOut(**c) for c in (turn_citations or staff_citations or [])],
        )
        for m, outcome, turn_citations, staff_citations in rows
    ]
    return Conversation(claim_id=claim.claim_id, status=claim.status, messages=messages)
