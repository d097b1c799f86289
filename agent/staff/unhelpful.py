"""A claimant's "This didn't help" on a served answer: the question goes on the waiting list.

The item refers to the answer's turn (and so to the agent message that served it), so a
handler can later confirm it as evidence against the clauses that answer quoted. Saying it
twice about the same answer keeps one item. Like any item on a turn, it counts that question as
routed in the routed share (agent.staff.routed_share): it did end with a person.
"""

from __future__ import annotations

import logging

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from agent.db.tables import Message, Turn, WaitingItem
from agent.events import outbox
from agent.staff.waiting_list import create_item

log = logging.getLogger(__name__)

REASON = "claimant_unhelpful"


class NotAnAnswer(LookupError):
    """The message is not an answer served on this claim."""


def served_answer(session: Session, claim_id: str, message_id: int) -> tuple[Message, Turn]:
    """The agent message and its turn, when the message served an answer on this claim."""
    row = session.execute(
        select(Message, Turn)
        .join(Turn, Turn.id == Message.turn_id)
        .where(Message.id == message_id, Message.claim_id == claim_id, Message.role == "agent")
    ).first()
    # Served: outcome answered with a composed answer (clause blocks, or schedule facts alone),
    # the same messages the conversation shows with an `answer`.
    if row is None or row.Turn.outcome != "answered" or "blocks" not in (row.Turn.composed or {}):
        raise NotAnAnswer(f"message {message_id} is not an answer given on claim {claim_id}")
    return row.Message, row.Turn


def flag_unhelpful(session: Session, claim_id: str, message_id: int) -> tuple[WaitingItem, bool]:
    """Put the question the answer served on the waiting list; (item, whether it is new).
    Commits. Raises NotAnAnswer."""
    _, turn = served_answer(session, claim_id, message_id)
    turn_id, family, version, asked = turn.id, turn.family, turn.version, turn.message_id
    # A new transaction that first locks the turn row (a no-op UPDATE of a column no kept count
    # reads: PostgreSQL holds the row, SQLite the database), so two clicks at once find one item
    # instead of making two.
    session.rollback()
    session.execute(update(Turn).where(Turn.id == turn_id).values(finished_at=Turn.finished_at))
    existing = session.scalar(
        select(WaitingItem).where(WaitingItem.turn_id == turn_id, WaitingItem.reason == REASON)
    )
    if existing is not None:
        session.commit()
        return existing, False
    question = session.get(Message, asked)
    assert question is not None  # a turn's message is stored before the turn
    item = create_item(
        session,
        claim_id=claim_id,
        turn_id=turn_id,
        family=family,
        question=" ".join(question.body.split()),
        reason=REASON,
    )
    outbox.add(
        session,
        "question_routed",
        {
            "claim_id": claim_id,
            "reference": item.reference,
            "reason": REASON,
            "turn_id": turn_id,
            "family": family,
            "version": version,
        },
    )
    session.commit()
    log.info("claim %s message %s turn %s unhelpful: item %s", claim_id, message_id, turn_id, item.reference)
    return item, True


def unhelpful_references(session: Session, turn_ids: list[str]) -> dict[str, str]:
    """The unhelpful item's reference per turn, for the turns that have one."""
    if not turn_ids:
        return {}
    rows = session.execute(
        select(WaitingItem.turn_id, WaitingItem.reference).where(
            WaitingItem.turn_id.in_(turn_ids), WaitingItem.reason == REASON
        )
    ).all()
    return {turn_id: reference for turn_id, reference in rows}
