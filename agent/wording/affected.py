"""Which answers a wording version affected: read from the turn records.

When a policy owner withdraws a version, these are the replies that cited it and may need
a follow-up from staff.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import String, cast, func, or_, select
from sqlalchemy.orm import sessionmaker

from agent.db.tables import Turn


@dataclass(frozen=True)
class AffectedAnswer:
    turn_id: str
    claim_id: str
    answered_at: datetime
    outcome: str
    cited: list[str]


def _citing(family: str, version: str, clause_ids: set[str] | None):  # type: ignore[no-untyped-def]
    # A turn cited something exactly when its citations were verified (an answer); the index
    # on (family, version, citations_verified, started_at) finds them without reading others.
    where = [Turn.family == family, Turn.version == version, Turn.citations_verified.is_(True)]
    if clause_ids:
        # The stored JSON list holds each ID in quotes; the exact test follows in Python.
        where.append(
            or_(*(cast(Turn.cited, String).like(f'%"{_literal(c)}"%', escape="\\") for c in clause_ids))
        )
    return where


def _literal(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def answers_citing(
    sessions: sessionmaker,
    family: str,
    version: str,
    clause_ids: set[str] | None = None,
    *,
    limit: int | None = None,
) -> list[AffectedAnswer]:
    """Turns whose reply cited a clause of this family and version (optionally only some
    IDs), oldest first: all of them, or the latest `limit`."""
    query = (
        select(Turn.id, Turn.claim_id, Turn.started_at, Turn.outcome, Turn.cited)
        .where(*_citing(family, version, clause_ids))
        .order_by(Turn.started_at.desc())
        .limit(limit)
    )
    with sessions() as session:
        rows = session.execute(query).all()
    found = []
    for turn_id, claim_id, started_at, outcome, cited in reversed(rows):
        cited = list(cited or [])
        if not cited or (clause_ids and not clause_ids & set(cited)):
            continue
        found.append(AffectedAnswer(turn_id, claim_id, started_at, outcome or "", cited))
    return found


def count_citing(
    sessions: sessionmaker, family: str, version: str, clause_ids: set[str] | None = None
) -> int:
    with sessions() as session:
        return session.scalar(select(func.count()).where(*_citing(family, version, clause_ids))) or 0
