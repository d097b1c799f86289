"""The turn's waiting-list item (part of step 9): made in the turn's own transaction, with the
event for the insurer's systems and, for an answer drafted for review, the composed answer as
the item's draft."""

from __future__ import annotations

import statistics
import time
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.db.tables import Draft, Message, Turn, WaitingItem, utcnow
from agent.events import outbox
from agent.staff.waiting_list import create_item
from agent.turn.inbox import StoredMessage
from agent.turn.steps import Decision

# The wait a drafted reply promises: the median time to answer over this window, read at most
# this often (a busy system drafts many turns a minute).
WAIT_WINDOW = timedelta(days=7)
WAIT_READ_EVERY_S = 300.0
WAIT_SAMPLE = 500


def put_on_waiting_list(
    session: Session, record: Turn, message: StoredMessage, decision: Decision
) -> WaitingItem:
    """The claimant's whole message goes to staff (with the part an answer in part left, when
    it is a meaningful span), with the turn record that explains the route. The same message
    already waiting on this claim keeps its one item."""
    question = " ".join(message.text.split())
    waiting = session.scalars(
        select(WaitingItem).where(
            WaitingItem.claim_id == record.claim_id,
            WaitingItem.question == question,
            WaitingItem.status.in_(("open", "taken")),
        )
    ).first()
    if waiting is not None:
        return waiting
    item = create_item(
        session,
        claim_id=record.claim_id,
        turn_id=record.id,
        family=record.family,
        question=question,
        reason=decision.item_reason,  # type: ignore[arg-type]
    )
    item.part = decision.part
    outbox.add(session, "question_routed", routed_event(item, record))  # in the same transaction
    return item


def draft_from_turn(
    session: Session, item: WaitingItem, decision: Decision, record: Turn, reply: Message
) -> None:
    """A routed answer the runtime composed (drafted for review) becomes the item's draft, bound
    to the conversation as it stands with the reply and to the release it was composed from."""
    composed = decision.composed
    if composed is None or decision.outcome != "routed_to_staff" or record.version is None:
        return
    session.add(
        Draft(
            item_id=item.id,
            made_by=None,
            origin="turn",
            text=composed.text,
            # The selected spans, verbatim in their clauses: what the answer form cites.
            citations=[
                {"clause_id": b.clause_id, "title": b.title, "version": b.version, "quote": span}
                for b in composed.blocks
                for span in b.spans
            ],
            family=record.family,
            version=record.version,
            content_hash=record.directory_hash,
            last_message_id=reply.id,
            claim_status="open",
        )
    )


def routed_event(item: WaitingItem, record: Turn) -> dict[str, Any]:
    """For the insurer's systems: which claim, the reference and why (not the question's text)."""
    return {
        "claim_id": item.claim_id,
        "reference": item.reference,
        "reason": item.reason,
        "turn_id": record.id,
        "family": record.family,
        "version": record.version,
    }


class ExpectedWait:
    """What a drafted reply tells the claimant about when to expect the answer: the median time
    staff took to answer over the last week, or the configured sentence when there is none."""

    def __init__(self, fallback: str):
        self.fallback = fallback
        self._said: tuple[float, str] | None = None

    def sentence(self, session: Session) -> str:
        now = time.monotonic()
        if self._said is None or now - self._said[0] > WAIT_READ_EVERY_S:
            self._said = (now, self._read(session))
        return self._said[1]

    def _read(self, session: Session) -> str:
        since = utcnow() - WAIT_WINDOW
        rows = session.execute(
            select(WaitingItem.created_at, WaitingItem.answered_at)
            .where(WaitingItem.answered_at.is_not(None), WaitingItem.answered_at >= since)
            .order_by(WaitingItem.answered_at.desc())
            .limit(WAIT_SAMPLE)
        ).all()
        if not rows:
            return self.fallback
        minutes = statistics.median((answered - created).total_seconds() / 60 for created, answered in rows)
        return f"Over the last week our claims team answered in {_duration(minutes)} (the median)."


def _duration(minutes: float) -> str:
    if minutes < 90:
        return f"about {max(1, round(minutes))} minutes"
    if minutes < 48 * 60:
        return f"about {round(minutes / 60)} hours"
    return f"about {round(minutes / 1440)} days"
