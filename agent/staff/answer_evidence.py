"""Staff work becomes evidence of the wording that governs the claim: a handler's answer (their
verdict on the item's draft and what they cited), an answer a handler flags as wrong, and an
answer a claimant said did not help, once a handler confirms it.

The claimant's words are kept only when the handler confirms them (they may carry personal
details), edited as the handler likes; a handler may also decline to record anything. After
new evidence on a clause in `answers`, the automatic fall back weighs it (agent.answering.demotion).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent import metrics
from agent.answering import evidence
from agent.answering.bar import Bar
from agent.answering.demotion import demote_if_below_bar
from agent.answering.gate import Gated
from agent.answering.verdicts import CORRECTIONS, judge
from agent.boundary.citation import Citation
from agent.db.tables import Claim, Evidence, Policy, Schedule, Turn, WaitingItem, utcnow
from agent.staff import draft_parts
from knowledge.clauses import ClauseLibrary
from knowledge.errors import KnowledgeError

log = logging.getLogger(__name__)
MAX_QUESTION = 2000


@dataclass(frozen=True)
class Keep:
    """What the handler chose to keep of an answer as evidence."""

    record: bool = True  # False: the handler declined, nothing is recorded
    question: str | None = None  # the question's words as the handler confirmed them; None: not kept
    draft_wrong: bool = False  # the handler says the draft was wrong, whatever it cited


class NotEvidence(Exception):
    """What was asked cannot be recorded as evidence (nothing served, no wording named)."""


def clause_hashes(library: ClauseLibrary, family: str, version: str) -> dict[str, str]:
    """clause ID -> SHA-256 of each clause of a version; empty when the store cannot say (the
    evidence is still kept; it carries over only once confirmed again)."""
    try:
        manifest, _ = library.registry.read()
        directory = library.directory(manifest.entry(family, version))
    except (KnowledgeError, KeyError) as exc:
        log.info("clause hashes of %s %s unavailable: %s", family, version, type(exc).__name__)
        return {}
    return {e.clause_id: e.sha256 for e in directory.entries}


def claimant_context(session: Session, turn_id: str | None) -> dict[str, object]:
    """Who asked: the claim and its policy, plan and schedule sections, so the question can be
    asked again on that claimant (a release check's replay) and recalled for their plan."""
    turn = session.get(Turn, turn_id) if turn_id else None
    claim = session.get(Claim, turn.claim_id) if turn is not None else None
    if claim is None:
        return {}
    policy = session.get(Policy, claim.policy_number)
    schedule = session.get(Schedule, claim.policy_number)
    return {
        "policy": claim.policy_number,
        "claim": claim.claim_id,
        "plan": policy.plan if policy else None,
        "sections": list(schedule.sections or []) if schedule else [],
    }


def _kept(keep: Keep) -> str | None:
    text = " ".join((keep.question or "").split())
    return text[:MAX_QUESTION] or None


def from_answer(
    session: Session,
    library: ClauseLibrary,
    item: WaitingItem,
    *,
    family: str | None,
    version: str | None,
    text: str,
    shown: list[Citation],
    keep: Keep,
    by: str,
    bar: Bar,
) -> Evidence | None:
    """The handler's answer as evidence of the governing version: their verdict on the latest
    draft (when there is one) and the clauses and sentences they cited. Nothing without a
    governing version, when declined, or when there is neither a draft of that version to score
    nor a kept question. In the caller's transaction."""
    if not keep.record or family is None or version is None:
        return None
    draft = draft_parts.latest(session, item.id)
    question = _kept(keep)
    verdict = outcome = None
    served: list[str] = []
    # Clauses the runtime added to the draft as qualifiers: neither side of the verdict.
    added = draft_parts.runtime_added(session, draft)
    if draft is not None and draft.version == version:  # a draft of another version scores nothing here
        drafted = Citation.all_of(draft.citations)
        judged = judge(draft.text, drafted, text, shown, said_wrong=keep.draft_wrong, runtime_added=added)
        verdict, outcome = judged.verdict, judged.outcome
        metrics.after_commit(session, partial(metrics.drafted, family, verdict))
        served = list(dict.fromkeys(c.clause_id for c in drafted if c.clause_id not in added))
    if outcome is None and question is None:  # neither a score nor words: nothing to learn from
        return None
    cited = list(dict.fromkeys(c.clause_id for c in shown if c.clause_id not in added))
    row = evidence.record(
        session,
        family=family,
        version=version,
        key=f"staff-{item.reference}",
        source="staff",
        by=by,
        question=question,
        clauses=cited,
        served=served,
        outcome=outcome,  # type: ignore[arg-type]
        verdict=verdict,
        hashes=clause_hashes(library, family, version),
        deciding=[{"clause_id": c.clause_id, "sentence": c.quote} for c in shown],
        context=claimant_context(session, item.turn_id),
        item_id=item.id,
        turn_id=item.turn_id,
    )
    demote_if_below_bar(session, family, version, served, bar)
    return row


def verdict_of(session: Session, item: WaitingItem) -> Evidence | None:
    """The evidence row of the item's answer when it scored a draft (a verdict to show and correct)."""
    return session.scalar(
        select(Evidence)
        .where(Evidence.item_id == item.id, Evidence.source == "staff", Evidence.verdict.is_not(None))
        .order_by(Evidence.id.desc())
        .limit(1)
    )


def correct_verdict(session: Session, item: WaitingItem, outcome: str, *, by: str, bar: Bar) -> Evidence:
    """A handler corrects the verdict inferred from their answer: the row's verdict and outcome
    are rewritten (said_right, said_wrong or said_irrelevant), and the automatic fall back weighs
    it again. In the caller's transaction."""
    row = verdict_of(session, item)
    if row is None:
        raise NotEvidence(f"{item.reference} has no verdict on a draft to correct")
    before = (row.verdict, row.outcome)
    row.verdict, row.outcome = CORRECTIONS[outcome], outcome
    row.scored_by, row.scored_at = by, utcnow()
    session.flush()
    log.info(
        "evidence %s of item %s verdict corrected by %s: %s/%s -> %s/%s",
        row.id,
        item.id,
        by,
        *before,
        row.verdict,
        row.outcome,
    )
    demote_if_below_bar(session, row.family, row.version, list(row.served_clauses or []), bar)
    return row


def flag_wrong(
    session: Session, library: ClauseLibrary, turn: Turn, *, by: str, question: str | None, bar: Bar
) -> Evidence:
    """A served answer a handler flags as wrong: evidence `wrong` against every clause it quoted.
    Flagging the same answer again changes nothing but the kept words. In the caller's transaction."""
    if (
        not (turn.outcome or "").startswith("answered")
        or not turn.cited
        or not turn.family
        or not turn.version
    ):
        raise NotEvidence(
            f"turn {turn.id} served no answer quoting the wording; only served answers are flagged"
        )
    return _served_wrong(session, library, turn, "flag", turn.id, by=by, question=question, bar=bar)


def confirm_unhelpful(
    session: Session, library: ClauseLibrary, item: WaitingItem, *, by: str, question: str | None, bar: Bar
) -> Evidence:
    """A claimant said an answer did not help (an item with reason claimant_unhelpful): once a
    handler confirms it, evidence `wrong` against every clause the answer quoted."""
    if item.reason != "claimant_unhelpful":
        raise NotEvidence(f"{item.reference} is not a claimant's report that an answer did not help")
    turn = _answered_turn(session, item)
    if turn is None:
        raise NotEvidence(f"{item.reference} names no served answer that quoted the wording")
    return _served_wrong(
        session, library, turn, "claimant", item.reference, by=by, question=question, bar=bar, item_id=item.id
    )


# The verdict each kind of report that a served answer was wrong records, by evidence source.
_WRONG_VERDICTS = {"flag": "flagged_wrong", "claimant": "unhelpful_confirmed"}


def _served_wrong(
    session: Session,
    library: ClauseLibrary,
    turn: Turn,
    source: str,
    reported: str,
    *,
    by: str,
    question: str | None,
    bar: Bar,
    item_id: int | None = None,
) -> Evidence:
    """Evidence `wrong` against every clause a served answer quoted, which may send a clause in
    `answers` back to `drafts`. Its key is the source and what was reported (the turn flagged,
    the item confirmed). The turn served an answer: its family and version are set."""
    family, version = turn.family or "", turn.version or ""
    quoted = list(dict.fromkeys(turn.cited))
    row = evidence.record(
        session,
        family=family,
        version=version,
        key=f"{source}-{reported}",
        source=source,
        by=by,
        question=_kept(Keep(question=question)),
        clauses=[],
        served=quoted,
        outcome="wrong",
        verdict=_WRONG_VERDICTS[source],
        hashes=clause_hashes(library, family, version),
        item_id=item_id,
        turn_id=turn.id,
    )
    row.routed = False  # what a right answer cites is not known from a flag or a report
    gated = Gated.of(turn.gate)
    demote_if_below_bar(session, family, version, gated.subjects if gated else quoted, bar)
    return row


def _answered_turn(session: Session, item: WaitingItem) -> Turn | None:
    """The served answer an unhelpful report is about: the item's turn when it served one."""
    turn = session.get(Turn, item.turn_id) if item.turn_id else None
    if turn is None or not (turn.outcome or "").startswith("answered") or not turn.cited:
        return None
    if not turn.family or not turn.version:
        return None
    return turn
