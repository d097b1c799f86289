"""The figure a manager watches: of the questions the agent was asked, the share it routed to
staff, per policy family and per clause it fetched, each week (from the turn records).

A question is a turn (a message that asked nothing is not one); it was routed when the turn put
an item on the waiting list, whatever the outcome's name (routed, unavailable, answered in part).
"""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Text, cast, func, select
from sqlalchemy.orm import Session

from agent.db.tables import Turn, WaitingItem, utcnow

WEEKS = 8
NOT_A_QUESTION = ("nothing_asked",)
CSV_COLUMNS = ("week_starting", "family", "clause_id", "questions", "routed", "routed_share")


@dataclass(frozen=True)
class ShareRow:
    week: date  # the Monday the ISO week starts on
    family: str
    clause_id: str | None  # None: the family as a whole
    questions: int
    routed: int

    @property
    def share(self) -> float:
        return self.routed / self.questions if self.questions else 0.0


def week_of(at: datetime) -> date:
    return (at - timedelta(days=at.weekday())).date()


def routed_share(session: Session, *, now: datetime | None = None, weeks: int = WEEKS) -> list[ShareRow]:
    """Newest week first; in a week, families by name, each family's total before its clauses.
    Counted in the database per day, family, fetched clauses and routed (a few hundred groups
    a week, from the started_at index), then tallied per week and clause here."""
    now = now or utcnow()
    since = datetime.combine(week_of(now) - timedelta(weeks=weeks - 1), datetime.min.time(), now.tzinfo)
    # An item is created after its turn starts, so the window's items are enough.
    routed_turns = select(WaitingItem.turn_id).where(
        WaitingItem.turn_id.is_not(None), WaitingItem.created_at >= since
    )
    day = _day(session, Turn.started_at)
    returned = cast(Turn.returned, Text)
    routed = Turn.id.in_(routed_turns)
    rows = session.execute(
        select(day, Turn.family, returned, routed, func.count())
        .where(
            Turn.started_at >= since,
            Turn.family.is_not(None),
            (Turn.outcome.is_(None)) | (Turn.outcome.not_in(NOT_A_QUESTION)),
        )
        .group_by(day, Turn.family, returned, routed)
    ).all()
    counts: dict[tuple[date, str, str | None], list[int]] = defaultdict(lambda: [0, 0])
    for on, family, returned_json, was_routed, n in rows:
        week = week_of(datetime.combine(_as_date(on), datetime.min.time()))
        for clause_id in [None, *dict.fromkeys(json.loads(returned_json) if returned_json else [])]:
            tally = counts[(week, family, clause_id)]
            tally[0] += n
            tally[1] += n if was_routed else 0
    ordered = sorted(counts.items(), key=lambda kv: (-kv[0][0].toordinal(), kv[0][1], kv[0][2] or ""))
    return [ShareRow(week, family, clause, n, r) for (week, family, clause), (n, r) in ordered]


def _day(session: Session, column: Any) -> Any:
    """The UTC day of a stored time, in the dialect's own terms (SQLite keeps naive UTC text)."""
    if session.get_bind().dialect.name == "sqlite":
        return func.substr(column, 1, 10)
    return func.date(func.timezone("UTC", column))


def _as_date(value: date | str) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


def as_csv(rows: list[ShareRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        writer.writerow(
            [r.week.isoformat(), r.family, r.clause_id or "", r.questions, r.routed, f"{r.share:.3f}"]
        )
    return out.getvalue()
