"""Which answers a wording version affected: read from the turn records.

When a policy owner withdraws a version, these are the replies that cited it and may need
a follow-up from staff.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from agent.db.tables import Turn


@dataclass(frozen=True)
class AffectedAnswer:
    turn_id: str
    claim_id: str
    answered_at: datetime
    outcome: str
    cited: list[str]


def answers_citing(
    sessions: sessionmaker, family: str, version: str, clause_ids: set[str] | None = None
) -> list[AffectedAnswer]:
    """Turns whose reply cited a clause of this family and version (optionally only some IDs)."""
    with sessions() as session:
        turns = session.scalars(
            select(Turn).where(Turn.family == family, Turn.version == version).order_by(Turn.started_at)
        ).all()
    found = []
    for turn in turns:
        cited = list(turn.cited or [])
        if not cited or (clause_ids and not clause_ids & set(cited)):
            continue
        found.append(AffectedAnswer(turn.id, turn.claim_id, turn.started_at, turn.outcome or "", cited))
    return found
