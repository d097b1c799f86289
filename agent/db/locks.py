"""Named locks held until the caller's transaction ends, on either database.

What reads and then writes on the strength of what it read (evidence of a wording, and the
automatic fall back that weighs it) takes the wording's lock first: two handlers flagging at
once then run one after the other, the second seeing the first's row and mode change.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import text
from sqlalchemy.orm import Session


def _key(name: str) -> int:
    """A stable signed 64-bit key for PostgreSQL's advisory locks."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def hold(session: Session, name: str) -> None:
    """Wait for the lock `name`, then hold it until the session's transaction commits or rolls
    back. Take it before reading what the transaction will act on."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _key(name)})
        return
    # SQLite admits one writer at a time: a write statement, even one that changes nothing,
    # takes the database's write lock now (waiting out busy_timeout) and keeps it to the end.
    session.execute(text("UPDATE alembic_version SET version_num = version_num WHERE 0"))


def hold_evidence(session: Session, family: str, version: str) -> None:
    """The lock on a wording version's evidence and answering modes."""
    hold(session, f"evidence:{family}:{version}")
