"""The automatic fall back: a subject in `answers` goes back to `drafts` by itself when a new
served answer of it is flagged wrong and its figures no longer meet the bar.

Its figures are the one measure (agent.answering.measured): the latest release check's replay
and every served answer flagged wrong since, which counts at once. A subject moved to `answers`
below the bar on a written reason goes back on its first served answer flagged wrong after that
move. One crossing, one change and one event: a subject already in `drafts` is left alone.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from sqlalchemy.orm import Session

from agent.answering.bar import Bar
from agent.answering.measured import measured
from agent.answering.modes import ModeChange, latest_change, modes_for, set_mode
from agent.events import outbox

log = logging.getLogger(__name__)

AUTOMATIC = "automatic fall back"


def demote_if_below_bar(
    session: Session, family: str, version: str, subjects: Iterable[str], bar: Bar
) -> list[ModeChange]:
    """Each of `subjects` (those a newly flagged answer counted for) now in `answers` whose figures
    miss the bar goes back to `drafts`. Adds the changes and their events; the caller commits."""
    answering = modes_for(session, family, version, list(dict.fromkeys(subjects)))
    subjects = [s for s, mode in answering.items() if mode == "answers"]
    if not subjects:  # nothing answering to weigh: the measure is not read
        return []
    now = measured(session, family, version, bar)
    changes = []
    for subject in subjects:
        current = latest_change(session, family, version, subject)
        if current is None or current.mode != "answers":
            continue
        f = now.of(bar, subject)
        if current.below_bar:
            reason = (
                f"Automatic: a served answer of {subject} was flagged wrong after it was moved below the bar"
            )
        elif f.meets:
            continue
        else:
            reason = f"Automatic: {f.line()}, above the bar's {bar.wrong_percent:g}%"
        change = set_mode(
            session, family, version, subject, "drafts", by=AUTOMATIC, reason=reason, automatic=True
        )
        outbox.add(
            session,
            "clause_demoted",
            {
                "family": family,
                "version": version,
                "clause_id": subject,
                "mode": "drafts",
                "served": f.served,
                "wrong_or_irrelevant": f.wrong,
                "upper_bound": round(f.upper, 4),
                "wrong_percent_allowed": bar.wrong_percent,
                "reason": reason,
            },
        )
        log.info("answering %s %s %s -> drafts automatically (%s)", family, version, subject, f.line())
        changes.append(change)
    return changes
