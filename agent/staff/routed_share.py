"""The figure a manager watches: of the questions the agent was asked, the share it routed to
staff, per policy family and per clause it fetched, each week (from the turn records).

A question is a turn with a family (a message that asked nothing is not one); it was routed when
a waiting-list item points at the turn, whatever the outcome's name (routed, unavailable,
answered in part) and however late the item came. The database keeps these counts per day
(agent.db.tables.RoutedShareDay, migration 0014).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.db.tables import RoutedShareDay, utcnow

WEEKS = 8
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
    Read from the counts kept per UTC day, family and fetched clause at every write of a turn
    record or waiting item (RoutedShareDay: a few thousand rows for the window, whatever the
    number of turns), then tallied per week here."""
    now = (now or utcnow()).astimezone(UTC)
    since = week_of(now) - timedelta(weeks=weeks - 1)
    rows = session.execute(
        select(
            RoutedShareDay.day,
            RoutedShareDay.family,
            RoutedShareDay.clause_id,
            RoutedShareDay.questions,
            RoutedShareDay.routed,
        ).where(RoutedShareDay.day >= since, RoutedShareDay.questions > 0)
    ).all()
    counts: dict[tuple[date, str, str | None], list[int]] = defaultdict(lambda: [0, 0])
    for day, family, clause_id, questions, routed in rows:
        tally = counts[(day - timedelta(days=day.weekday()), family, clause_id or None)]
        tally[0] += questions
        tally[1] += routed
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
