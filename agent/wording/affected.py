"""What a wording version affected: the agent's replies that cited it (from the turn records),
the staff answers sent while it governed the claim or citing it, and the drafts made from it.

When a policy owner withdraws a version, these are what may need a follow-up from staff.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from agent.db.tables import Draft, Message, Turn, WaitingItem


@dataclass(frozen=True)
class AffectedReply:
    kind: Literal["agent", "staff", "draft"]
    claim_id: str
    at: datetime
    # Agent: the turn and its outcome. Staff: the item answered and who answered.
    # Draft: the item it was made for and its state.
    ref: str
    detail: str
    cited: list[str]


@dataclass(frozen=True)
class Affected:
    agent: list[AffectedReply]
    staff: list[AffectedReply]
    drafts: list[AffectedReply]

    @property
    def replies(self) -> list[AffectedReply]:
        """What claimants read: the agent's replies and the staff answers, oldest first."""
        return sorted([*self.agent, *self.staff], key=lambda r: r.at)


def affected_by(
    sessions: sessionmaker, family: str, version: str, clause_ids: set[str] | None = None
) -> Affected:
    with sessions() as session:
        return affected(session, family, version, clause_ids)


def affected(session: Session, family: str, version: str, clause_ids: set[str] | None = None) -> Affected:
    """Everything that stood on this family and version (optionally only what cited some IDs)."""

    def keep(cited: list[str]) -> bool:
        return not clause_ids or bool(clause_ids & set(cited))

    agent = [r for r in _agent_replies(session, family, version) if r.cited and keep(r.cited)]
    staff = [r for r in _staff_answers(session, family, version) if keep(r.cited)]
    drafts = [r for r in _drafts(session, family, version) if keep(r.cited)]
    return Affected(agent, staff, drafts)


def staff_answers_from(session: Session, family: str, version: str) -> list[tuple[WaitingItem, str]]:
    """Staff answers sent while this version governed the claim, or citing it: (item, message).
    An answer that cites nothing still stood on that wording."""
    rows = session.execute(
        select(WaitingItem, Message.body)
        .join(Message, Message.id == WaitingItem.answer_message_id)
        .where(WaitingItem.family == family)
        .order_by(WaitingItem.answered_at, WaitingItem.id)
    ).all()
    return [
        (item, body)
        for item, body in rows
        if item.answer_version == version
        or any(c.get("version") == version for c in item.answer_citations or [])
    ]


def _agent_replies(session: Session, family: str, version: str) -> list[AffectedReply]:
    turns = session.scalars(
        select(Turn).where(Turn.family == family, Turn.version == version).order_by(Turn.started_at)
    ).all()
    return [
        AffectedReply("agent", t.claim_id, t.started_at, t.id, t.outcome or "", list(t.cited or []))
        for t in turns
    ]


def _staff_answers(session: Session, family: str, version: str) -> list[AffectedReply]:
    return [
        AffectedReply(
            "staff",
            item.claim_id,
            item.answered_at or item.created_at,
            item.reference,
            f"answered by {item.answered_by}",
            [c["clause_id"] for c in item.answer_citations or [] if c.get("version") == version],
        )
        for item, _ in staff_answers_from(session, family, version)
    ]


def _drafts(session: Session, family: str, version: str) -> list[AffectedReply]:
    rows = session.execute(
        select(Draft, WaitingItem.reference, WaitingItem.claim_id, WaitingItem.status)
        .join(WaitingItem, WaitingItem.id == Draft.item_id)
        .where(Draft.family == family, Draft.version == version)
        .order_by(Draft.made_at, Draft.id)
    ).all()
    return [
        AffectedReply(
            "draft",
            claim_id,
            draft.made_at,
            reference,
            f"draft {draft.id} ({draft.origin}), item {status}",
            [c["clause_id"] for c in draft.citations or []],
        )
        for draft, reference, claim_id, status in rows
    ]
