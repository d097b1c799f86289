"""The automatic fall back: a clause in `answers` whose recent evidence falls below the bar goes
back to `drafts` by itself.

After any new evidence on a clause, its last WINDOW scored answers (the served or drafted
answers that quoted it, newest first) are weighed: wrong or irrelevant above the bar's share
sends it back, with an automatic mode change whose reason names the figures and an event for
the insurer's systems. A clause moved to `answers` below the bar on a written reason is weighed
only on evidence scored after that move.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.answering.bar import Bar, Figures, over_threshold
from agent.answering.evidence import SERVED, VERIFIED
from agent.answering.modes import ModeChange, latest_change, set_mode
from agent.db.tables import Evidence
from agent.events import outbox

log = logging.getLogger(__name__)

WINDOW = 20
AUTOMATIC = "automatic fall back"


def demote_if_below_bar(
    session: Session, family: str, version: str, clause_ids: Iterable[str], bar: Bar
) -> list[ModeChange]:
    """Each of `clause_ids` now in `answers` whose recent evidence is below the bar goes back to
    `drafts`. Adds the changes and their events to the session; the caller commits."""
    changes = []
    rows = session.scalars(
        select(Evidence)
        .where(
            Evidence.family == family,
            Evidence.version == version,
            Evidence.status == VERIFIED,
            Evidence.outcome.in_(SERVED),
        )
        .order_by(Evidence.scored_at.desc(), Evidence.id.desc())
    ).all()
    for cid in dict.fromkeys(clause_ids):
        now = latest_change(session, family, version, cid)
        if now is None or now.mode != "answers":
            continue
        window = [
            r
            for r in rows
            if cid in (r.served_clauses or [])
            and (not now.below_bar or (r.scored_at is not None and r.scored_at > now.changed_at))
        ][:WINDOW]
        wrong = sum(r.outcome != "right" for r in window)
        figures = Figures(cid, len(window), len(window), wrong)
        if not over_threshold(bar, figures):
            continue
        since = " since it was moved below the bar" if now.below_bar else ""
        reason = (
            f"Automatic: {wrong} of the last {len(window)} scored answers quoting {cid}{since} were wrong "
            f"or irrelevant ({figures.wrong_share:.0%}), above the bar's {bar.wrong_percent:g}%"
        )
        change = set_mode(
            session, family, version, cid, "drafts", by=AUTOMATIC, reason=reason, automatic=True
        )
        outbox.add(
            session,
            "clause_demoted",
            {
                "family": family,
                "version": version,
                "clause_id": cid,
                "mode": "drafts",
                "window": len(window),
                "wrong_or_irrelevant": wrong,
                "wrong_percent_allowed": bar.wrong_percent,
                "reason": reason,
            },
        )
        log.info(
            "answering %s %s %s -> drafts automatically: %d of %d wrong",
            family,
            version,
            cid,
            wrong,
            len(window),
        )
        changes.append(change)
    return changes
