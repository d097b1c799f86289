"""Rows as the runtime writes them, for tests that count and list them: a claimant message with
its turn record, a waiting item for a turn, a staff answer item. Defaults are a motor 2026.2
turn on CLM-204518 (a home turn goes on CLM-310442); any column can be given."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from agent.db.tables import Message, Turn, WaitingItem, utcnow

CLAIM, HOME_CLAIM = "CLM-204518", "CLM-310442"


def turn(s: Session, n: int, **values: Any) -> Turn:
    """Turn `n` and the claimant message it answers."""
    claim = HOME_CLAIM if values.get("family") == "home" else CLAIM
    message = Message(claim_id=claim, role="claimant", body=f"question {n}")
    s.add(message)
    s.flush()
    values = {"family": "motor", "version": "2026.2", "outcome": "answered", **values}
    record = Turn(claim_id=claim, message_id=message.id, **values)
    s.add(record)
    s.flush()
    return record


@dataclass(frozen=True)
class ItemRow:
    id: int
    reference: str


def item(s: Session, n: int, routed: Turn, **values: Any) -> ItemRow:
    """The waiting item a routed turn made (reference WL-7nnnnn). Written with the columns it is
    given only, so the migration tests can write one as an older schema took it."""
    values = {"question": "?", "reason": "needs_decision", "status": "open", "created_at": utcnow(), **values}
    row = {
        "reference": f"WL-7{n:05d}",
        "claim_id": routed.claim_id,
        "turn_id": routed.id,
        "family": routed.family,
    }
    added = s.execute(insert(WaitingItem.__table__).values(**row, **values).returning(WaitingItem.id))
    return ItemRow(added.scalar_one(), row["reference"])


def answered_item(s: Session, reference: str, version: str, quoted: list[str], **values: Any) -> WaitingItem:
    """An item staff answered under wording `version`, quoting MTR-BEN-03 of each `quoted` version."""
    answer = Message(claim_id=CLAIM, role="staff", body=f"answer {reference}")
    s.add(answer)
    s.flush()
    values = {"answered_at": utcnow(), **values}
    row = WaitingItem(
        reference=reference,
        claim_id=CLAIM,
        family="motor",
        question="?",
        reason="needs_decision",
        status="answered",
        answer_message_id=answer.id,
        answer_version=version,
        answer_citations=[
            {"clause_id": "MTR-BEN-03", "title": "Hire car", "version": v, "quote": "q"} for v in quoted
        ],
        **values,
    )
    s.add(row)
    s.flush()
    return row
