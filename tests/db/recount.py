"""The kept tables counted again from the turn records and waiting items, row by row in Python,
as their definitions say (agent.staff.routed_share, agent.wording.affected): what the triggers
must have kept."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.db.tables import CitingCount, RoutedShareDay, Turn, TurnCitation, WaitingItem
from agent.staff.routed_share import week_of


def share_days(session: Session) -> dict[tuple[date, str, str], tuple[int, int]]:
    """(day, family, clause or '') -> (questions, routed): a question is a turn with a family that
    asked something; it is routed while an item points at it."""
    routed = set(session.scalars(select(WaitingItem.turn_id).where(WaitingItem.turn_id.is_not(None))))
    tally: Counter[tuple[date, str, str, str]] = Counter()
    for t in session.scalars(select(Turn)):
        if t.family is None or t.outcome == "nothing_asked":
            continue
        day = t.started_at.astimezone(UTC).date()
        for clause in ["", *dict.fromkeys(c for c in t.returned or [] if isinstance(c, str))]:
            tally[(day, t.family, clause, "q")] += 1
            tally[(day, t.family, clause, "r")] += t.id in routed
    keys = {k[:3] for k in tally}
    return {k: (tally[(*k, "q")], tally[(*k, "r")]) for k in keys}


def kept_share_days(session: Session) -> dict[tuple[date, str, str], tuple[int, int]]:
    kept = select(RoutedShareDay).where((RoutedShareDay.questions != 0) | (RoutedShareDay.routed != 0))
    rows = session.scalars(kept)
    return {(r.day, r.family, r.clause_id): (r.questions, r.routed) for r in rows}


def share_weeks(session: Session, now: datetime, weeks: int = 8) -> list[tuple[Any, ...]]:
    """routed_share()'s rows, turn by turn: (week, family, clause or None, questions, routed)."""
    since = week_of(now) - timedelta(weeks=weeks - 1)
    tally: Counter[tuple[date, str, str | None, str]] = Counter()
    for (day, family, clause), (q, r) in share_days(session).items():
        if day >= since:
            week = day - timedelta(days=day.weekday())
            tally[(week, family, clause or None, "q")] += q
            tally[(week, family, clause or None, "r")] += r
    keys = sorted({k[:3] for k in tally}, key=lambda k: (-k[0].toordinal(), k[1], k[2] or ""))
    return [(*k, tally[(*k, "q")], tally[(*k, "r")]) for k in keys]


def citing(session: Session) -> tuple[dict[tuple[str, str, str], int], set[tuple[Any, ...]]]:
    """(family, version, clause or '') -> turn records that cited it; and the rows per cited clause."""
    counts: Counter[tuple[str, str, str]] = Counter()
    rows = set()
    for t in session.scalars(select(Turn)):
        if t.family is None or t.version is None or not t.cited:
            continue
        counts[(t.family, t.version, "")] += 1
        for clause in dict.fromkeys(c for c in t.cited if isinstance(c, str)):
            counts[(t.family, t.version, clause)] += 1
            rows.add((t.id, clause, t.family, t.version, t.started_at))
    return dict(counts), rows


def kept_citing(session: Session) -> tuple[dict[tuple[str, str, str], int], set[tuple[Any, ...]]]:
    counts = {
        (c.family, c.version, c.clause_id): c.replies
        for c in session.scalars(select(CitingCount).where(CitingCount.replies != 0))
    }
    rows = {
        (c.turn_id, c.clause_id, c.family, c.version, c.started_at)
        for c in session.scalars(select(TurnCitation))
    }
    return counts, rows


def assert_kept(session: Session, now: datetime | None = None) -> None:
    """Every kept table equals its recount (and routed_share() the turn-by-turn tally)."""
    from agent.staff.routed_share import routed_share

    assert kept_share_days(session) == share_days(session)
    assert kept_citing(session) == citing(session)
    now = now or datetime.now(UTC)
    shown = [(r.week, r.family, r.clause_id, r.questions, r.routed) for r in routed_share(session, now=now)]
    assert shown == share_weeks(session, now)
