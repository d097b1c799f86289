"""The figure a manager watches: of the questions the agent was asked, the share it routed to
staff, per policy family and per clause it fetched, each week (from the turn records).

A question is a turn (a message that asked nothing is not one); it was routed when the turn put
an item on the waiting list, whatever the outcome's name (routed, unavailable, answered in part).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import select
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
    """Newest week first; in a week, families by name, each family's total before its clauses."""
    now = now or utcnow()
    since = datetime.combine(week_of(now) - timedelta(weeks=weeks - 1), datetime.min.time(), now.tzinfo)
    routed_turns = select(WaitingItem.turn_id).where(WaitingItem.turn_id.is_not(None))
    rows = session.execute(
        select(Turn.started_at, Turn.family, Turn.returned, Turn.id.in_(routed_turns)).where(
            Turn.started_at >= since,
            Turn.family.is_not(None),
            (Turn.outcome.is_(None)) | (Turn.outcome.not_in(NOT_A_QUESTION)),
        )
    ).all()
    counts: dict[tuple[date, str, str | None], list[int]] = defaultdict(lambda: [0, 0])
    for started_at, family, returned, routed in rows:
        for clause_id in [None, *dict.fromkeys(returned or [])]:
            tally = counts[(week_of(started_at), family, clause_id)]
            tally[0] += 1
            tally[1] += bool(routed)
    ordered = sorted(counts.items(), key=lambda kv: (-kv[0][0].toordinal(), kv[0][1], kv[0][2] or ""))
    return [ShareRow(week, family, clause, n, r) for (week, family, clause), (n, r) in ordered]


def as_csv(rows: list[ShareRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in rows:
        writer.writerow(
            [r.week.isoformat(), r.family, r.clause_id or "", r.questions, r.routed, f"{r.share:.3f}"]
        )
    return out.getvalue()
