"""What a wording version affected: the agent's replies that cited it (from the turn records),
the staff answers sent while it governed the claim or citing it, and the drafts made from it.

When a policy owner withdraws a version, these are what may need a follow-up from staff.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import Text, cast, func, or_, select, text
from sqlalchemy.orm import Session, sessionmaker

from agent.db.tables import CITING, Draft, Message, Turn, WaitingItem


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

    agent = [r for r in _agent_replies(session, family, version, clause_ids) if r.cited and keep(r.cited)]
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


def _agent_replies(
    session: Session, family: str, version: str, clause_ids: set[str] | None = None
) -> list[AffectedReply]:
    """The turns that cited something (the partial index ix_turns_citing), only the columns
    shown; with clause IDs, only the records whose cited list mentions one (affected() then
    keeps the exact matches)."""
    where = [Turn.family == family, Turn.version == version, text(CITING)]
    if clause_ids:
        where.append(or_(*(cast(Turn.cited, Text).contains(f'"{c}"', autoescape=True) for c in clause_ids)))
    rows = session.execute(
        select(Turn.claim_id, Turn.started_at, Turn.id, Turn.outcome, Turn.cited)
        .where(*where)
        .order_by(Turn.started_at)
    ).all()
    return [
        AffectedReply("agent", claim_id, at, turn_id, outcome or "", list(cited or []))
        for claim_id, at, turn_id, outcome, cited in rows
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


@dataclass(frozen=True)
class Counts:
    """How many of each kind stood on a version: what affected() lists, counted."""

    agent: int = 0
    staff: int = 0
    drafts: int = 0


def counts(session: Session) -> dict[str, dict[str, Counts]]:
    """family -> version -> the lengths of affected()'s three lists, without reading them: one
    grouped count per kind (agent replies from the index of turns that cited something; staff
    answers from the answered items' version and citations; drafts)."""
    found: dict[tuple[str, str], list[int]] = {}

    def add(family: str | None, version: str | None, kind: int, n: int) -> None:
        if family is not None and version is not None:
            found.setdefault((family, version), [0, 0, 0])[kind] += n

    agent = session.execute(
        select(Turn.family, Turn.version, func.count())
        .where(text(CITING))
        .group_by(Turn.family, Turn.version)
    )
    for family, version, n in agent:
        add(family, version, 0, n)
    # An answer's message always exists (a foreign key), so no join to the messages is needed.
    answers = session.execute(
        select(WaitingItem.family, WaitingItem.answer_version, WaitingItem.answer_citations).where(
            WaitingItem.answer_message_id.is_not(None)
        )
    )
    for family, answer_version, citations in answers:  # once per version it stood on
        for version in {answer_version, *(c.get("version") for c in citations or [])}:
            add(family, version, 1, 1)
    drafts = session.execute(
        select(Draft.family, Draft.version, func.count())
        .join(WaitingItem, WaitingItem.id == Draft.item_id)
        .group_by(Draft.family, Draft.version)
    )
    for family, version, n in drafts:
        add(family, version, 2, n)
    by_family: dict[str, dict[str, Counts]] = {}
    for (family, version), (a, st, d) in found.items():
        by_family.setdefault(family, {})[version] = Counts(a, st, d)
    return by_family
