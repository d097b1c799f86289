"""The outbox: an event is a row written in the same transaction as the change it reports
(a staff answer, a withdrawal notice, a routed question), so it exists exactly when the
change does, whatever crashes after. agent.events.delivery sends it."""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy.orm import Session

from agent.db.tables import OutboxEvent, new_id, utcnow

Kind = Literal["question_routed", "staff_answered", "withdrawal_notice", "clause_demoted"]


def add(session: Session, kind: Kind, data: dict[str, Any]) -> OutboxEvent:
    """Queue an event in the caller's transaction; its ID is what a receiver deduplicates by."""
    now = utcnow()
    event = OutboxEvent(id=new_id(), kind=kind, payload=data, created_at=now, next_attempt_at=now, attempts=0)
    session.add(event)
    return event


def envelope(event: OutboxEvent) -> dict[str, Any]:
    return {
        "id": event.id,
        "kind": event.kind,
        "created_at": event.created_at.isoformat(),
        "data": event.payload,
    }
