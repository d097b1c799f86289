"""A policy owner moves clauses of a wording version to `answers`, citing a release check, or
back to `drafts` by hand.

The bar is weighed on the version's verified evidence: each inventory question the cited check
asked is scored by what the check served for it (the check of this very content, run through
the turn code), every other question by what it recorded (a handler's verdict on a draft, a flag).
Below the bar a clause moves only with a written reason, kept on its mode change and shown.
On approval the check's scores are written onto the inventory evidence, so the automatic fall
back (agent.answering.demotion) weighs them with what arrives later.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from agent.answering import evidence
from agent.answering.bar import Bar, Figures, Scored, figures, misses
from agent.answering.modes import ModeChange, set_mode
from agent.db.tables import Evidence, ReleaseCheck, utcnow

log = logging.getLogger(__name__)
MAX_REASON = 2000


class ApprovalError(ValueError):
    """A request that cannot be applied as asked (a clause the version does not hold, no clause)."""


class BelowBar(ApprovalError):
    """Clauses whose evidence misses the bar, with no written reason to move them anyway."""

    def __init__(self, missed: Mapping[str, list[str]], bar: Bar):
        self.missed = dict(missed)
        detail = "; ".join(f"{cid}: {', '.join(why)}" for cid, why in self.missed.items())
        super().__init__(
            f"below the bar ({bar.describe()}): {detail}. Give a written reason to move them anyway"
        )


@dataclass(frozen=True)
class Measured:
    clause_id: str
    figures: Figures
    misses: list[str]


def check_scores(report: Mapping[str, Any]) -> dict[str, tuple[tuple[str, ...], str]]:
    """question ID -> (the clauses the check's answer quoted, its outcome), from a stored check."""
    found = {}
    for row in report.get("questions") or []:
        asked = row.get("candidate") or {}
        if "id" not in row or "outcome" not in asked:
            continue
        served = str(asked["outcome"]).startswith("answered")
        if not served:
            outcome = "routed"
        elif not row.get("answerable", True):
            outcome = "irrelevant"
        else:
            outcome = "right" if asked.get("right") else "wrong"
        found[row["id"]] = (tuple(asked.get("cited") or ()), outcome)
    return found


def scored(rows: Iterable[Evidence], check: Mapping[str, tuple[tuple[str, ...], str]]) -> list[Scored]:
    """Each row as the bar weighs it: an inventory question the check asked by the check's answer."""
    found = []
    for r in rows:
        if r.source == "inventory" and r.key in check:
            served, outcome = check[r.key]
        else:
            served, outcome = tuple(r.served_clauses or ()), r.outcome
        found.append(Scored(r.key, tuple(r.clauses or ()), tuple(served), outcome))
    return found


def measure(
    session: Session, family: str, version: str, clause_ids: Iterable[str], check: ReleaseCheck, bar: Bar
) -> list[Measured]:
    rows = scored(evidence.verified(session, family, version), check_scores(check.report))
    return [
        Measured(cid, f := figures(rows, cid), misses(bar, f, len(rows))) for cid in dict.fromkeys(clause_ids)
    ]


def to_answers(
    session: Session,
    *,
    family: str,
    version: str,
    clause_ids: list[str],
    known: set[str],
    check: ReleaseCheck,
    by: str,
    bar: Bar,
    reason: str | None = None,
) -> tuple[list[ModeChange], list[Measured]]:
    """Move clauses to `answers` citing `check` (the caller has confirmed it is a check of this
    version as it stands). BelowBar, and nothing changes, when a clause misses the bar and no
    reason is given. Adds to the session; the caller commits."""
    if not clause_ids:
        raise ApprovalError("name at least one clause to move to answers")
    unknown = [c for c in clause_ids if c not in known]
    if unknown:
        raise ApprovalError(f"{', '.join(unknown)} is not a clause of {family} wording {version}")
    reason = (reason or "").strip() or None
    if reason and len(reason) > MAX_REASON:
        raise ApprovalError(f"the reason is longer than {MAX_REASON} characters")
    measured = measure(session, family, version, clause_ids, check, bar)
    missed = {m.clause_id: m.misses for m in measured if m.misses}
    if missed and reason is None:
        raise BelowBar(missed, bar)
    _score_inventory(session, family, version, check)
    changes = []
    for m in measured:
        below = bool(m.misses)
        note = f"Below the bar ({'; '.join(m.misses)}): {reason}" if below else reason
        changes.append(
            set_mode(
                session,
                family,
                version,
                m.clause_id,
                "answers",
                by=by,
                reason=note,
                release_check_id=check.id,
                below_bar=below,
            )
        )
        log.info(
            "answering %s %s %s -> answers by %s citing %s (%s)%s",
            family,
            version,
            m.clause_id,
            by,
            check.id,
            m.figures.line(),
            ", below the bar" if below else "",
        )
    return changes, measured


def to_drafts(
    session: Session,
    *,
    family: str,
    version: str,
    clause_ids: list[str],
    known: set[str],
    by: str,
    reason: str,
) -> list[ModeChange]:
    """Move clauses back to `drafts` by hand. Adds to the session; the caller commits."""
    if not clause_ids:
        raise ApprovalError("name at least one clause to move to drafts")
    unknown = [c for c in clause_ids if c not in known]
    if unknown:
        raise ApprovalError(f"{', '.join(unknown)} is not a clause of {family} wording {version}")
    if not reason.strip():
        raise ApprovalError("give a reason for moving clauses back to drafts")
    changes = [
        set_mode(session, family, version, cid, "drafts", by=by, reason=reason.strip()[:MAX_REASON])
        for cid in dict.fromkeys(clause_ids)
    ]
    log.info("answering %s %s %s -> drafts by %s", family, version, list(dict.fromkeys(clause_ids)), by)
    return changes


def _score_inventory(session: Session, family: str, version: str, check: ReleaseCheck) -> None:
    """The check's answers become the inventory evidence's scores (what later evidence is weighed with)."""
    scores = check_scores(check.report)
    now = utcnow()
    for row in evidence.verified(session, family, version):
        if row.source != "inventory" or row.key not in scores:
            continue
        served, outcome = scores[row.key]
        if (row.scored_by, row.outcome, list(row.served_clauses or [])) == (check.id, outcome, list(served)):
            continue
        row.served_clauses, row.outcome, row.scored_by, row.scored_at = list(served), outcome, check.id, now
    session.flush()
