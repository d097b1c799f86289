"""Claimants' words kept as evidence do not stay for ever.

A staff answer, a flag or a confirmed report may keep the claimant's question (only when a
handler confirmed it: it may carry personal details). Those words are dropped after the
retention setting (`CLAUSEDESK_EVIDENCE_WORDS_DAYS`; unset: kept until deleted) and, on request,
for one claim. The row stays, with its clauses and score: only the words go, so the memory (which
reads only rows with words) rebuilds without them and a replay skips them. The policy owner's
own inventory questions are not claimants' words and are kept.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from agent.db.tables import Evidence, Turn, WaitingItem, utcnow

log = logging.getLogger(__name__)
CLAIMANTS_WORDS = ("staff", "flag", "claimant")  # the sources whose question is a claimant's words


def _forget(rows: list[Evidence]) -> int:
    for row in rows:
        row.question = None
    return len(rows)


def forget_older_than(session: Session, days: int) -> int:
    """Drop the words of evidence kept longer than `days`; how many rows. In the caller's transaction."""
    cutoff = utcnow() - timedelta(days=days)
    rows = session.scalars(
        select(Evidence).where(
            Evidence.source.in_(CLAIMANTS_WORDS), Evidence.question.is_not(None), Evidence.created_at < cutoff
        )
    ).all()
    forgotten = _forget(list(rows))
    log.info("evidence words older than %d days forgotten: %d rows", days, forgotten)
    return forgotten


def forget_claim(session: Session, claim_id: str) -> int:
    """Drop the words of every evidence row that came from a claim's conversation; how many rows."""
    turns = select(Turn.id).where(Turn.claim_id == claim_id)
    items = select(WaitingItem.id).where(WaitingItem.claim_id == claim_id)
    rows = session.scalars(
        select(Evidence).where(
            Evidence.source.in_(CLAIMANTS_WORDS),
            Evidence.question.is_not(None),
            or_(Evidence.turn_id.in_(turns), Evidence.item_id.in_(items)),
        )
    ).all()
    forgotten = _forget(list(rows))
    log.info("evidence words of claim %s forgotten on request: %d rows", claim_id, forgotten)
    return forgotten
