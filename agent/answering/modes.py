"""Answering modes: whether a wording version's clauses answer claimants directly or draft for staff.

Every approved wording starts in `drafts`: a policy question is put on the waiting list with
the composed answer as the item's draft. A clause moves to `answers` when a policy owner
approves it, citing a release check whose evidence meets the bar (or, below it, with a written
reason); it moves back by hand, or by itself when its recent evidence falls below the bar.
Each change is one row of `answering_modes`: the latest row of a clause decides, else the
latest row of its version (clause_id NULL), else `drafts`. A turn is served only when every
clause it would quote is in `answers`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import bindparam, func, or_, select
from sqlalchemy.orm import Session

from agent import metrics
from agent.db.tables import AnsweringMode, utcnow

Mode = Literal["drafts", "answers"]
MODES: tuple[Mode, ...] = ("drafts", "answers")
DEFAULT: Mode = "drafts"


@dataclass(frozen=True)
class ModeChange:
    family: str
    version: str
    clause_id: str | None
    mode: Mode
    changed_at: datetime
    changed_by: str
    reason: str | None
    release_check_id: str | None
    automatic: bool
    below_bar: bool = False  # moved to answers on a written reason, its evidence under the bar

    @classmethod
    def of(cls, row: AnsweringMode) -> ModeChange:
        return cls(
            row.family,
            row.version,
            row.clause_id,
            row.mode,  # type: ignore[arg-type]
            row.changed_at,
            row.changed_by,
            row.reason,
            row.release_check_id,
            row.automatic,
            row.below_bar,
        )


# Built once: the turn reads the modes of its quoted clauses on every served answer.
_LATEST = (
    select(AnsweringMode.clause_id, func.max(AnsweringMode.id).label("id"))
    .where(
        AnsweringMode.family == bindparam("family"),
        AnsweringMode.version == bindparam("version"),
        or_(AnsweringMode.clause_id.is_(None), AnsweringMode.clause_id.in_(bindparam("ids", expanding=True))),
    )
    .group_by(AnsweringMode.clause_id)
    .subquery()
)
_MODES = select(AnsweringMode.clause_id, AnsweringMode.mode).join(_LATEST, AnsweringMode.id == _LATEST.c.id)


def modes_for(session: Session, family: str, version: str, clause_ids: Iterable[str]) -> dict[str, Mode]:
    """The mode of each clause: its own latest change, else its version's, else drafts. One query."""
    ids = list(dict.fromkeys(clause_ids))
    rows = session.execute(_MODES, {"family": family, "version": version, "ids": ids}).all()
    found: dict[str | None, Mode] = {cid: mode for cid, mode in rows}  # type: ignore[misc]
    fallback = found.get(None, DEFAULT)
    return {cid: found.get(cid, fallback) for cid in ids}


def set_mode(
    session: Session,
    family: str,
    version: str,
    clause_id: str | None,
    mode: Mode,
    *,
    by: str,
    reason: str | None = None,
    release_check_id: str | None = None,
    automatic: bool = False,
    below_bar: bool = False,
) -> ModeChange:
    """Record a change (adds it to the session; the caller commits)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    row = AnsweringMode(
        family=family,
        version=version,
        clause_id=clause_id,
        mode=mode,
        changed_at=utcnow(),
        changed_by=by,
        reason=reason,
        release_check_id=release_check_id,
        automatic=automatic,
        below_bar=below_bar,
    )
    session.add(row)
    session.flush()
    metrics.after_commit(session, lambda: metrics.mode_changed(family, version, clause_id, mode, automatic))
    return ModeChange.of(row)


def history(session: Session, family: str, version: str | None = None) -> list[ModeChange]:
    """Every change of a family (or one version), oldest first: the audit shown on the wording page."""
    query = select(AnsweringMode).where(AnsweringMode.family == family)
    if version is not None:
        query = query.where(AnsweringMode.version == version)
    return [ModeChange.of(r) for r in session.scalars(query.order_by(AnsweringMode.id))]


def latest_change(session: Session, family: str, version: str, clause_id: str) -> ModeChange | None:
    """The change that put a clause in its mode now: its own latest, else its version's."""
    for cid in (clause_id, None):
        query = select(AnsweringMode).where(AnsweringMode.family == family, AnsweringMode.version == version)
        query = query.where(
            AnsweringMode.clause_id == cid if cid is not None else AnsweringMode.clause_id.is_(None)
        )
        row = session.scalar(query.order_by(AnsweringMode.id.desc()).limit(1))
        if row is not None:
            return ModeChange.of(row)
    return None
