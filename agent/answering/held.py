"""Why a composed answer drafted instead of going to the claimant, in words for staff and policy
owners: each subject that held it (agent.answering.gate) with its measured figures."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.answering.bar import Bar, Figures
from agent.answering.gate import MODEL, NEAR, POOLED_TITLES, SCHEDULE, Gated
from agent.answering.measured import Measured, measured
from agent.db.tables import Turn, WaitingItem


@dataclass(frozen=True)
class Drafted:
    """A drafted turn of a wording version and why it drafted."""

    turn_id: str
    at: datetime
    reference: str | None
    quoted: tuple[str, ...]
    why: tuple[str, ...]


def why_drafted(session: Session, turn: Turn | None, bar: Bar, now: Measured | None = None) -> list[str]:
    """One sentence per reason, with what would let it answer; empty when it did not draft."""
    if turn is None or turn.route_reason != "drafted_for_review" or not turn.family or not turn.version:
        return []
    gated = Gated.of(turn.gate)
    if gated is None:  # a turn recorded before the gate kept its decision
        return ["a clause it quotes had not earned answering claimants when it was asked"]
    if gated.serves:
        blocks = [b for b in (turn.composed or {}).get("blocks") or () if not b.get("added")]
        unknown = [b["title"] for b in blocks if (b.get("applies") or {}).get("status") == "unknown"]
        if unknown:
            return [
                f"the policy records do not say whether “{title}” is part of this claimant's cover: "
                "record their cover level, or answer from what you know"
                for title in unknown
            ]
        return [
            "the model doubted its own selection (no verified question like it backs it), "
            "so a handler checks it"
        ]
    now = now or measured(session, turn.family, turn.version, bar)
    found = []
    for subject in gated.held:
        name = "the answer from the schedule alone" if subject == SCHEDULE else subject
        found.append(f"{name} has not earned answering: {_figures(now.of(bar, subject), bar)}")
    for pooled in (NEAR, MODEL):
        if pooled in gated.subjects:
            rule = POOLED_TITLES[pooled]
            found.append(f"the rule “{rule}” does not answer yet: {_figures(now.of(bar, pooled), bar)}")
    return found


def _figures(f: Figures, bar: Bar) -> str:
    return "; ".join(f.misses(bar)) or "it meets the bar now (a policy owner can let it answer)"


def drafted_recently(
    session: Session, family: str, version: str, bar: Bar, *, limit: int = 10
) -> list[Drafted]:
    """The version's latest drafted turns, newest first, each with why it drafted."""
    turns = session.scalars(
        select(Turn)
        .where(Turn.family == family, Turn.version == version, Turn.route_reason == "drafted_for_review")
        .order_by(Turn.started_at.desc(), Turn.id.desc())
        .limit(limit)
    ).all()
    if not turns:
        return []
    now = measured(session, family, version, bar)  # read once for all of them
    references = dict(
        session.execute(
            select(WaitingItem.turn_id, WaitingItem.reference).where(
                WaitingItem.turn_id.in_([t.id for t in turns])
            )
        ).all()
    )
    return [
        Drafted(
            t.id,
            t.started_at,
            references.get(t.id),
            tuple(t.cited or ()),
            tuple(why_drafted(session, t, bar, now)),
        )
        for t in turns
    ]
