"""Content gaps: where the wording has no answer, read from the questions routed to the waiting
list per family, and the routes taken on the model's own reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from agent.boundary.selection import BY_NATURE
from agent.db.hints import likely
from agent.db.tables import Turn, WaitingItem, utcnow
from agent.staff import presend


@dataclass(frozen=True)
class FamilyGaps:
    family: str
    last_7_days: dict[str, int]
    last_30_days: dict[str, int]

    @property
    def total_7(self) -> int:
        return sum(self.last_7_days.values())

    @property
    def total_30(self) -> int:
        return sum(self.last_30_days.values())


@dataclass(frozen=True)
class NoClauseQuestion:
    item: WaitingItem
    version: str | None
    requested: list[str]
    not_found: list[str]


@dataclass(frozen=True)
class ModelReasonRoute:
    """A question routed on the model's own reason (a decision, the claim's progress, a request,
    outside the wording) without the runtime checking any clause: the model may be wrong."""

    item: WaitingItem
    model_reason: str | None  # what the model suggested, as the turn recorded it


@dataclass(frozen=True)
class ContentGaps:
    families: list[FamilyGaps]
    no_clause: list[NoClauseQuestion]
    # Answers sent in the last 30 days without the pre-send check (it could not run), per family.
    unchecked_sends: dict[str, int]
    # Routes on the model's own reason in the last 30 days, newest first, so a pattern shows.
    model_reason: list[ModelReasonRoute] = field(default_factory=list)


def content_gaps(session: Session, *, now: datetime | None = None, limit: int = 100) -> ContentGaps:
    """Per family: questions routed in the last 7 and 30 days by reason, and the routed
    questions whose turns selected no clause (those no wording answers by their nature, such as
    a decision or a request, aside), so a policy owner sees where the wording has no answer.
    Those routed on the model's own reason (by their nature, no clause checked) are listed apart,
    newest first: if the model keeps calling cover questions decisions, staff see the pattern."""
    now = now or utcnow()
    since_7, since_30 = now - timedelta(days=7), now - timedelta(days=30)
    # The last 30 days are a small part of a list kept for years: SQLite would otherwise read
    # every item through the family index that orders the groups (50 ms at 100,000 items)
    # instead of the window's part of ix_waiting_created.
    recent = likely(session, WaitingItem.created_at >= since_30, 0.05)
    rows = session.execute(
        select(
            WaitingItem.family,
            WaitingItem.reason,
            func.count(),
            func.sum(case((WaitingItem.created_at >= since_7, 1), else_=0)),
        )
        .where(recent)
        .group_by(WaitingItem.family, WaitingItem.reason)
    ).all()
    families: dict[str, FamilyGaps] = {}
    for family, reason, n_30, n_7 in rows:
        gaps = families.setdefault(family or "unknown", FamilyGaps(family or "unknown", {}, {}))
        gaps.last_30_days[reason] = n_30
        if n_7:
            gaps.last_7_days[reason] = int(n_7)
    # Families by name (no family last), each newest first, `limit` in all: one family at a time,
    # each walking ix_waiting_family_created from its newest item and stopping at the limit,
    # instead of looking up the turn of every item of the 30 days to sort them.
    no_clause: list[Any] = []
    named = sorted({f for f, *_ in rows if f is not None})
    for family in [*named, *([None] if any(f is None for f, *_ in rows) else [])]:
        if len(no_clause) == limit:
            break
        no_clause += session.execute(
            select(WaitingItem, Turn.version, Turn.requested, Turn.not_found)
            .join(Turn, Turn.id == WaitingItem.turn_id)
            .where(
                WaitingItem.family == family if family is not None else WaitingItem.family.is_(None),
                WaitingItem.created_at >= since_30,
                Turn.guidance_status == "no_clause_selected",
                WaitingItem.reason.not_in(BY_NATURE),  # a request or advice is no gap in the wording
            )
            .order_by(WaitingItem.created_at.desc())
            .limit(limit - len(no_clause))
        ).all()
    on_model_word = session.execute(
        select(WaitingItem, Turn.model_route_reason)
        .outerjoin(Turn, Turn.id == WaitingItem.turn_id)
        .where(WaitingItem.reason.in_(BY_NATURE), WaitingItem.created_at >= since_30)
        .order_by(WaitingItem.created_at.desc(), WaitingItem.id.desc())
        .limit(limit)
    ).all()
    unchecked = session.execute(
        select(WaitingItem.family, func.count())
        .where(WaitingItem.answered_at >= since_30, WaitingItem.send_check == presend.UNAVAILABLE)
        .group_by(WaitingItem.family)
    ).all()
    return ContentGaps(
        [families[k] for k in sorted(families)],
        [
            NoClauseQuestion(item, version, list(req or []), list(nf or []))
            for item, version, req, nf in no_clause
        ],
        {family or "unknown": n for family, n in sorted(unchecked, key=lambda r: r[0] or "")},
        [ModelReasonRoute(item, model_reason) for item, model_reason in on_model_word],
    )
