"""How often a condition holds, told to SQLite's query planner.

SQLite keeps no statistics unless ANALYZE is run (no application runs it on its own), so it
guesses: an IN on an indexed column picks a few rows, a range a quarter of them. On a large
table the guess can make it read every row through an index that serves the ORDER BY or
GROUP BY, instead of the few rows the condition selects (or sort a large set it thinks small).
`likely()` wraps the condition in SQLite's likelihood(); PostgreSQL plans from its own
statistics and gets the condition as it is.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, literal_column
from sqlalchemy.orm import Session


def likely(session: Session, condition: Any, probability: float) -> ColumnElement[bool]:
    """The condition, holding for about `probability` of the rows (SQLite's planner only)."""
    if session.get_bind().dialect.name != "sqlite":
        return condition  # type: ignore[no-any-return]
    # likelihood() takes its probability as a literal, never a bound parameter.
    return func.likelihood(condition, literal_column(f"{probability:.2f}"))
