"""Whose words and clauses a draft holds: the runtime composes a draft from the selection, but a
draft made from a turn drafted for review may also hold words a model wrote (the explained
style's lead) and clauses the runtime itself added as qualifiers. Both are read from the turn
record's composed answer, the one place that says which is which.

Words a model wrote are shown to the handler as such, checked again at send time, and never go
out as drafted unconfirmed; clauses the runtime added count toward neither the three-clause
limit nor the handler's verdict.
"""

from __future__ import annotations

import logging

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.boundary.checks import FreeText, check_lead
from agent.boundary.citation import Citation
from agent.boundary.selection import Point
from agent.db.tables import Claim, Draft, Policy, Schedule, Turn, WaitingItem
from agent.policy.schedule import ScheduleView
from knowledge.clauses import MAX_CLAUSES_PER_FETCH, ClauseLibrary, verbatim

log = logging.getLogger(__name__)


def latest(session: Session, item_id: int) -> Draft | None:
    return session.scalar(select(Draft).where(Draft.item_id == item_id).order_by(Draft.id.desc()).limit(1))


def _composed(session: Session, draft: Draft | None) -> dict:
    """The turn's composed answer when the draft is that answer (made by the runtime from the
    turn, not by a handler's rebuild), else {}."""
    if draft is None or draft.origin != "turn" or draft.made_by is not None:
        return {}
    item = session.get(WaitingItem, draft.item_id)
    turn = session.get(Turn, item.turn_id) if item is not None and item.turn_id else None
    return dict(turn.composed or {}) if turn is not None else {}


def model_words(session: Session, draft: Draft | None) -> str | None:
    """The words a model wrote that the draft holds (the explained style's lead), or None."""
    lead = _composed(session, draft).get("lead")
    if draft is None or not isinstance(lead, str) or not verbatim(lead, draft.text):
        return None
    return lead.strip()


def runtime_added(session: Session, draft: Draft | None) -> frozenset[str]:
    """Clause IDs the runtime brought into the draft as qualifiers (not the model's selection)."""
    blocks = _composed(session, draft).get("blocks") or []
    return frozenset(b["clause_id"] for b in blocks if isinstance(b, dict) and b.get("added"))


def lead_problems(session: Session, library: ClauseLibrary, draft: Draft, words: str) -> list[str]:
    """The free-text checks of a model's lead, run again on the draft's clauses as the store holds
    them and the claimant's schedule now: each failure in plain words (empty: it passes)."""
    claim = session.get(Claim, session.get(WaitingItem, draft.item_id).claim_id)
    policy = session.get(Policy, claim.policy_number)
    schedule = session.get(Schedule, claim.policy_number)
    if schedule is None:
        return [f"policy {policy.policy_number} has no schedule on file to check the model's words against"]
    manifest, _ = library.registry.read()
    directory = library.directory(manifest.entry(draft.family, draft.version))
    cited = Citation.all_of(draft.citations)
    ids = list(dict.fromkeys(c.clause_id for c in cited))
    fetched = {
        c.clause_id: c
        for n in range(0, len(ids), MAX_CLAUSES_PER_FETCH)
        for c in library.fetch(directory, ids[n : n + MAX_CLAUSES_PER_FETCH]).clauses
    }
    points = tuple(Point(clause_id=c.clause_id, span=c.quote) for c in cited)
    checks = check_lead(FreeText(words, points), fetched, ScheduleView.of(policy, schedule))
    failed = [f"{c.name}: {c.detail}" for c in checks if not c.passed]
    log.info("draft %s model words checked again: %d failed", draft.id, len(failed))
    return failed
