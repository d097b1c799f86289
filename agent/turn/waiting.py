"""The turn's waiting-list item (part of step 9): made in the turn's own transaction, with the
event for the insurer's systems and, for an answer drafted for review, the composed answer as
the item's draft."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime, timedelta
from datetime import time as dtime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.boundary.citation import Citation
from agent.db.tables import Draft, Message, Turn, WaitingItem, utcnow
from agent.events import outbox
from agent.staff.waiting_list import create_item
from agent.turn.inbox import StoredMessage
from agent.turn.steps import Decision

# The wait a drafted reply promises: the 90th percentile of working-hours time to answer over
# this window, from at least this many answers, never under the floor; read at most this often
# (a busy system drafts many turns a minute).
WAIT_WINDOW = timedelta(days=28)
WAIT_MIN_ANSWERS = 30
WAIT_FLOOR_HOURS = 4
WAIT_READ_EVERY_S = 300.0
WAIT_SAMPLE = 2000
# Working hours: Monday to Friday, 9 to 5, where the insurer's claims team works.
WORK_ZONE = "Pacific/Auckland"
WORKDAY_START, WORKDAY_END = 9, 17


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
                Citation(clause_id=b.clause_id, quote=span, title=b.title, version=b.version).as_dict()
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
    """What a drafted reply tells the claimant about when to expect the answer: a promise the
    team keeps. The 90th percentile of the working-hours time staff took to answer over the
    last 28 days, rounded up and never under four working hours, once there are at least 30
    answers to take it from; the configured sentence until then."""

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
        return promise([working_hours(created, answered) for created, answered in rows], self.fallback)


def promise(hours: list[float], fallback: str) -> str:
    """The sentence for these working-hours times to answer (the configured one when there are
    too few to promise from)."""
    if len(hours) < WAIT_MIN_ANSWERS:
        return fallback
    ranked = sorted(hours)
    p90 = ranked[math.ceil(0.9 * len(ranked)) - 1]
    promised = max(WAIT_FLOOR_HOURS, math.ceil(p90))
    if promised <= WORKDAY_END - WORKDAY_START:
        return f"Our claims team answers 9 in 10 questions within {promised} working hours."
    days = math.ceil(promised / (WORKDAY_END - WORKDAY_START))
    return f"Our claims team answers 9 in 10 questions within {days} working days."


def working_hours(start: datetime, end: datetime) -> float:
    """The hours between two moments that fall in working hours (Monday to Friday, 9 to 5,
    in the insurer's time zone); naive moments are UTC, as the database keeps them."""
    zone = ZoneInfo(WORK_ZONE)
    start, end = (_aware(t).astimezone(zone) for t in (start, end))
    total, day = 0.0, start.date()
    while day <= end.date():
        if day.weekday() < 5:
            opens = datetime.combine(day, dtime(WORKDAY_START), zone)
            closes = datetime.combine(day, dtime(WORKDAY_END), zone)
            overlap = (min(end, closes) - max(start, opens)).total_seconds()
            total += max(0.0, overlap) / 3600
        day += timedelta(days=1)
    return total


def _aware(t: datetime) -> datetime:
    return t if t.tzinfo else t.replace(tzinfo=UTC)
