"""When a handler flags a served answer as wrong, the claimant is told and a handler follows up.

The claimant's conversation gets the runtime's correction notice (agent.boundary.replies.corrected,
never a model's words); the question goes on the waiting list as `answer_flagged_wrong`, so a handler
sends the right answer; the insurer's systems get an `answer_flagged` event. Flagging the same
answer again does none of this twice.
"""

from __future__ import annotations

import logging

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.boundary import replies as notices
from agent.db.tables import Message, Turn, WaitingItem
from agent.events import outbox
from agent.staff.waiting_list import create_item

log = logging.getLogger(__name__)
REASON = "answer_flagged_wrong"


def correct(session: Session, turn: Turn, *, by: str) -> WaitingItem | None:
    """Tell the claimant and put the question back on the waiting list; None when done before.
    In the caller's transaction."""
    if session.scalar(
        select(WaitingItem.id).where(WaitingItem.turn_id == turn.id, WaitingItem.reason == REASON)
    ):
        return None
    asked = session.get(Message, turn.message_id)
    item = create_item(
        session,
        claim_id=turn.claim_id,
        turn_id=turn.id,
        family=turn.family,
        question=" ".join(asked.body.split()) if asked is not None else "",
        reason=REASON,
    )
    session.add(
        Message(
            claim_id=turn.claim_id,
            role="agent",
            body=notices.corrected(item.reference),
            waiting_list_reference=item.reference,
        )
    )
    outbox.add(
        session,
        "answer_flagged",
        {
            "claim_id": turn.claim_id,
            "turn_id": turn.id,
            "reference": item.reference,
            "family": turn.family,
            "version": turn.version,
            "cited": list(turn.cited or ()),
            "flagged_by": by,
        },
    )
    log.info("turn %s flagged wrong by %s: correction sent, item %s", turn.id, by, item.reference)
    return item
