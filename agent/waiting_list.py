"""The staff waiting list: routed questions become items that staff take, answer and close."""

from __future__ import annotations

from typing import Literal

from sqlalchemy.orm import Session

from agent.db import WaitingItem

Reason = Literal[
    "no_clause_selected",
    "clause_not_in_directory",
    "failed_check",
    "knowledge_unavailable",
    "no_schedule",
    "model_error",
    "needs_decision",
]
REASONS: tuple[str, ...] = Reason.__args__  # type: ignore[attr-defined]


def create_item(
    session: Session, *, claim_id: str, turn_id: str | None, family: str | None, question: str, reason: Reason
) -> WaitingItem:
    """Add a routed question; its reference (WL-000123) is what the claimant is given."""
    item = WaitingItem(
        claim_id=claim_id,
        turn_id=turn_id,
        family=family,
        question=question,
        reason=reason,
        reference="pending",
    )
    session.add(item)
    session.flush()  # assigns the id the reference is made from
    item.reference = f"WL-{item.id:06d}"
    session.flush()
    return item
