"""A policy's terms, and the term in force on a claim's incident date.

Terms are half-open (start included, end excluded): on a renewal day the new term governs,
the day before it the old one. The term's start selects the governing wording, as
`ClauseLibrary.governing(family, date)` always has.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.db.tables import Claim, PolicyTerm
from agent.policy.schedule import ScheduleView


@dataclass(frozen=True)
class TermInForce:
    """The term a claim belongs to, and its schedule as the runtime reads it (None: no
    schedule on file for that term)."""

    policy_number: str
    term_start: date
    term_end: date
    plan: str
    schedule: ScheduleView | None


def terms_of(session: Session, policy_number: str) -> list[PolicyTerm]:
    return list(
        session.scalars(
            select(PolicyTerm)
            .where(PolicyTerm.policy_number == policy_number)
            .order_by(PolicyTerm.term_start)
        )
    )


def term_on(session: Session, policy_number: str, on: date | None) -> PolicyTerm | None:
    """The one term whose interval holds the date; None without a date or outside every term."""
    if on is None:
        return None
    return session.scalars(
        select(PolicyTerm).where(
            PolicyTerm.policy_number == policy_number,
            PolicyTerm.term_start <= on,
            PolicyTerm.term_end > on,
        )
    ).first()


def claim_term(session: Session, claim: Claim) -> TermInForce | None:
    """The term in force on the claim's incident date, with its schedule."""
    term = term_on(session, claim.policy_number, claim.incident_date)
    if term is None:
        return None
    return TermInForce(term.policy_number, term.term_start, term.term_end, term.plan, schedule_of(term))


def schedule_of(term: PolicyTerm) -> ScheduleView | None:
    """Endorsements switch clauses on or change them just as optional sections do, so the
    runtime's applicability statements read both from one list."""
    raw = term.schedule
    if raw is None:
        return None
    return ScheduleView(
        term.plan,
        list(dict.fromkeys([*raw.get("sections", []), *raw.get("endorsements", [])])),
        dict(raw.get("excess", {})),
        dict(raw.get("sums_insured", {})),
        dict(raw.get("details", {})),
        dict(raw.get("labels", {})),
    )


def overlapping(intervals: list[tuple[date, date]]) -> tuple[int, int] | None:
    """The first pair of positions (in the given order) whose half-open intervals overlap."""
    ordered = sorted(range(len(intervals)), key=lambda i: intervals[i][0])
    for a, b in itertools.pairwise(ordered):
        if intervals[b][0] < intervals[a][1]:
            return (min(a, b), max(a, b))
    return None
