"""Reading the turn log: the records people query (`python -m agent turns`)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from agent.db.tables import Turn

# Kept out of a printed record: the model's own messages (replayed as history) are the bulk of
# every row and are read by the runner, not by people.
NOT_PRINTED = frozenset({"model_messages"})


def latest_turns(
    session: Session, *, claim_id: str | None = None, outcome: str | None = None, last: int = 20
) -> list[Turn]:
    """The latest `last` turns, oldest first, optionally of one claim or with one outcome."""
    query = select(Turn)
    if claim_id is not None:
        query = query.where(Turn.claim_id == claim_id)
    if outcome is not None:
        query = query.where(Turn.outcome == outcome)
    rows = session.scalars(query.order_by(Turn.started_at.desc(), Turn.id.desc()).limit(last)).all()
    return list(reversed(rows))


def as_record(turn: Turn) -> dict[str, Any]:
    """Every column of the record (but the model's messages), JSON-ready."""
    return {
        column.key: _plain(getattr(turn, column.key))
        for column in inspect(Turn).column_attrs
        if column.key not in NOT_PRINTED
    }


def as_line(turn: Turn) -> str:
    """One line a person scans: when, which claim, what came of it, from which wording."""
    release = f"{turn.family} {turn.version}" if turn.version else turn.family or "-"
    reason = f" ({turn.route_reason})" if turn.route_reason else ""
    cited = ",".join(turn.cited or []) or "-"
    latency = f"{turn.latency_ms:.0f} ms" if turn.latency_ms is not None else "-"
    return (
        f"{turn.started_at:%Y-%m-%d %H:%M:%S}  {turn.id}  {turn.claim_id:<14} "
        f"{(turn.outcome or '-') + reason:<40} {release:<16} cited {cited:<24} "
        f"{turn.model_name or '-'}  {latency}"
    )


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value
