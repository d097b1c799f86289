"""Answering a taken waiting-list item: the pre-send check, the citations verified, the staff
message in the claimant's conversation, the answer as evidence of the wording and its event, in
one transaction."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from sqlalchemy.orm import Session

from agent.answering.bar import Bar
from agent.boundary.citation import Citation, Quote
from agent.db import locks
from agent.db.tables import Claim, Message, Policy, StaffUser, WaitingItem, utcnow
from agent.events import outbox
from agent.policy.terms import claim_term
from agent.staff import answer_evidence, draft_parts, presend
from agent.staff.answer_citations import staff_message_body, verify_citations
from agent.staff.item_states import reload_item, require_taken_by, state_of, taken_by, transition
from agent.staff.waiting_list import ItemConflict, Stale
from knowledge.clauses import ClauseLibrary

log = logging.getLogger(__name__)


def answer(
    session: Session,
    library: ClauseLibrary,
    item_id: int,
    staff: StaffUser,
    text: str,
    citations: Sequence[Quote],
    basis: presend.Basis,
    *,
    bar: Bar,
    keep: answer_evidence.Keep | None = None,
) -> WaitingItem:
    """Answer a taken item. The pre-send check first: if what the answer was made from
    (`basis`) changed, Stale says why; if the check cannot run, the answer goes out with the
    warning recorded on the item. Citations are verified against the claim's governing wording
    with the agent's own checks, and the answer joins the claimant's conversation as a staff
    message under the item's reference. In the same transaction the answer becomes evidence of
    the governing wording (`keep`: what the handler kept of it; by default the verdict on the
    draft and the citations, not the claimant's words). Commits."""
    item = reload_item(session, item_id)
    require_taken_by(item, staff, session, "answer")
    checked = _checked_before_sending(session, library, item, staff, basis)
    shown = _verified_citations(session, library, item, text, citations)
    # Unchecked, the wording the handler saw is the best record of what the answer stood on.
    release = basis if checked.unavailable else checked.now
    message = _add_message(session, item, staff, text, shown)
    _mark_answered(session, item_id, staff, message, shown, release, checked)
    if release.family and release.version:  # evidence and fall back one writer at a time
        locks.hold_evidence(session, release.family, release.version)
    answer_evidence.from_answer(
        session,
        library,
        item,
        family=release.family,
        version=release.version,
        text=text,
        shown=shown,
        keep=keep or answer_evidence.Keep(),
        by=staff.username,
        bar=bar,
    )
    _announce(session, item, staff, message, shown)
    session.commit()
    item = reload_item(session, item_id)
    log.info(
        "item %s %s answered by %s message %s cited %s pre-send check %s",
        item.id,
        item.reference,
        staff.username,
        message.id,
        [c.clause_id for c in shown],
        checked.status,
    )
    return item


def _checked_before_sending(
    session: Session, library: ClauseLibrary, item: WaitingItem, staff: StaffUser, basis: presend.Basis
) -> presend.SendCheck:
    """The pre-send check of what the answer was made from; Stale when it changed."""
    checked = presend.check(session, library, item, basis)
    if checked.stale:
        log.info(
            "item %s %s answer by %s stale: %d reasons",
            item.id,
            item.reference,
            staff.username,
            len(checked.stale),
        )
        raise Stale(item.reference, checked.stale)
    return checked


def _verified_citations(
    session: Session, library: ClauseLibrary, item: WaitingItem, text: str, citations: Sequence[Quote]
) -> list[Citation]:
    """The answer's citations checked on the wording governing the claim's term."""
    claim = session.get(Claim, item.claim_id)
    policy = session.get(Policy, claim.policy_number)
    # Clauses the runtime brought into the item's draft as qualifiers are outside the limit.
    added = draft_parts.runtime_added(session, draft_parts.latest(session, item.id))
    return verify_citations(library, policy, claim_term(session, claim), text, citations, runtime_added=added)


def _add_message(
    session: Session, item: WaitingItem, staff: StaffUser, text: str, shown: list[Citation]
) -> Message:
    """The answer in the claimant's conversation, under the item's reference."""
    message = Message(
        claim_id=item.claim_id,
        role="staff",
        body=staff_message_body(text, shown),
        waiting_list_reference=item.reference,
        author=staff.display_name,
    )
    session.add(message)
    session.flush()
    return message


def _mark_answered(
    session: Session,
    item_id: int,
    staff: StaffUser,
    message: Message,
    shown: list[Citation],
    release: presend.Basis,
    checked: presend.SendCheck,
) -> None:
    """The item answered, if this staff user still holds it; ItemConflict otherwise."""
    done = transition(
        session,
        item_id,
        taken_by(staff),
        status="answered",
        answered_at=utcnow(),
        answered_by=staff.username,
        answer_message_id=message.id,
        answer_citations=[c.as_dict() for c in shown],
        answer_version=release.version,
        answer_content_hash=release.content_hash,
        send_check=checked.status,
        send_warning=checked.unavailable,
    )
    if not done:  # released or answered by another request meanwhile
        session.rollback()
        item = reload_item(session, item_id)
        raise ItemConflict(f"{item.reference} is not taken by you ({state_of(item, session)})")


def _announce(
    session: Session, item: WaitingItem, staff: StaffUser, message: Message, shown: list[Citation]
) -> None:
    """The staff_answered event, in the outbox: committed with the answer, or not at all."""
    outbox.add(
        session,
        "staff_answered",
        {
            "claim_id": item.claim_id,
            "reference": item.reference,
            "message_id": message.id,
            "answered_by": staff.username,
            "body": message.body,
            "citations": [c.as_dict() for c in shown],
        },
    )
