"""The staff waiting list: routed questions become items that staff take, answer and close.

Here: the items, the list and one item's view, and the refusals of staff actions. Taking,
releasing and closing are agent.staff.item_states; answering, agent.staff.answering; what an
answer quotes, agent.staff.answer_citations; where the wording has no answer,
agent.staff.content_gaps."""

from __future__ import annotations

import dataclasses
import logging
import re
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import ColumnElement, func, select
from sqlalchemy import text as sql_text
from sqlalchemy.orm import Session

from agent.db.hints import likely
from agent.db.tables import (
    WAITING,
    Claim,
    Message,
    Policy,
    StaffUser,
    Turn,
    WaitingItem,
    WithdrawalFollowUp,
)
from agent.models.errors import ModelReason
from agent.policy.schedule import unnamed_sections
from agent.policy.terms import TermInForce, claim_term
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.errors import KnowledgeError

log = logging.getLogger(__name__)

Reason = Literal[
    "no_clause_selected",
    "clause_not_in_directory",
    "clauses_do_not_answer",
    "failed_check",
    "knowledge_unavailable",
    "no_schedule",
    "no_term_for_incident",
    ModelReason,  # each way a model or its provider can fail
    "needs_decision",
    "claim_progress",  # how the claim is going: staff's to answer
    "request_for_staff",  # something for the insurer to do, or a complaint
    "outside_the_wording",  # advice, a price, another product: no wording answers it
    "interrupted",
    "wording_withdrawn",
    "answered_in_part",  # the rest of a question the composed answer covers only in part
    "drafted_for_review",  # a policy question answered from clauses not yet earning answers: a draft
    "model_found_no_question",  # the model said nothing was asked; the runtime read a question
    "urgent",  # the runtime read urgency: a person sees it whatever was answered
    "complaint",  # a concern about how the claim is handled
    "action_requested",  # the claimant asked us to do something
    "claim_decision",  # the runtime read a question about a decision on the claim or the premium
    "claimant_unhelpful",  # the claimant said a served answer did not help: evidence once confirmed
    "answer_flagged_wrong",  # a served answer flagged wrong: the claimant told, a handler follows up
]
REASONS: tuple[str, ...] = Reason.__args__  # type: ignore[attr-defined]


def create_item(
    session: Session, *, claim_id: str, turn_id: str | None, family: str | None, question: str, reason: Reason
) -> WaitingItem:
    """Add a routed question; its reference (WL-000123) is what the claimant is given."""
    item = WaitingItem(
        claim_id=claim_id,
        turn_id=turn_id,
        family=family,
        question=question,
        reason=reason,
        reference="pending",
    )
    session.add(item)
    session.flush()  # assigns the id the reference is made from
    item.reference = f"WL-{item.id:06d}"
    session.flush()
    return item


# Staff work on the list ----------------------------------------------------------------------

STATUSES = ("open", "taken", "answered", "closed")
# "waiting" is what the queue shows by default: items nobody has finished yet.
STATUS_FILTERS = {**{s: (s,) for s in STATUSES}, "waiting": ("open", "taken")}


class WaitingListError(Exception):
    """Base of the outcomes a staff action can be refused with."""


class ItemNotFound(WaitingListError):
    pass


class ItemConflict(WaitingListError):
    """The item is not in a state this staff user can act on (taken by another, answered…)."""


class CitationRefused(WaitingListError):
    """A cited clause is not in the governing wording, or the quote is not in the clause."""


class Unsendable(WaitingListError):
    """A draft cannot go out as drafted: words a model wrote are in it unconfirmed, or they no
    longer pass their checks."""


class Stale(WaitingListError):
    """What the answer was made from changed before it was sent: each reason in plain words."""

    def __init__(self, reference: str, reasons: list[str]):
        self.reasons = reasons
        super().__init__(f"{reference}: the answer is stale: " + "; ".join(reasons))


@dataclass(frozen=True)
class Page:
    items: list[WaitingItem]
    total: int
    limit: int
    offset: int
    by_reason: dict[str, int]
    by_family: dict[str, int]


@dataclass(frozen=True)
class ItemView:
    """Everything staff need to handle one item."""

    item: WaitingItem
    claim: Claim
    policy: Policy
    schedule_summary: str | None
    conversation: list[Message]
    turn: Turn | None
    staff_names: dict[str, str]
    # For a wording_withdrawn item: the withdrawn version and the replies that relied on it.
    withdrawn: WithdrawalFollowUp | None = None
    # The term in force on the claim's incident date (None: no term holds it).
    term: TermInForce | None = None
    # What the schedule lists that no clause of the governing wording names (read as not listed).
    schedule_warnings: tuple[str, ...] = ()


def list_items(
    session: Session,
    *,
    status: str | None = None,
    reason: str | None = None,
    family: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> Page:
    """Oldest first; counts per reason and per family are for the status filter alone."""
    by_status = [_status_is(status)] if status else []
    where = [*by_status]
    if reason:
        where.append(WaitingItem.reason == reason)
    if family:
        where.append(WaitingItem.family == family)
    total = session.scalar(select(func.count()).select_from(WaitingItem).where(*where)) or 0
    walk = where
    if status == "waiting" and not (reason or family):
        # SQLite would take the IN on status for a few rows, read every waiting item through a
        # status index and sort them at each page; told that about half the items are waiting,
        # it walks ix_waiting_waiting_created in order instead.
        walk = [likely(session, sql_text(WAITING), 0.5)]
    items = session.scalars(
        select(WaitingItem)
        .where(*walk)
        .order_by(WaitingItem.created_at, WaitingItem.id)
        .limit(limit)
        .offset(offset)
    ).all()

    def counts(column) -> dict[str, int]:  # type: ignore[no-untyped-def]
        rows = session.execute(select(column, func.count()).where(*by_status).group_by(column)).all()
        return {key or "unknown": n for key, n in sorted(rows, key=lambda r: r[0] or "")}

    return Page(list(items), total, limit, offset, counts(WaitingItem.reason), counts(WaitingItem.family))


def _status_is(status: str) -> ColumnElement[bool]:
    """The default queue's filter as the literal SQL of its partial index (tables.WAITING), so
    SQLite and PostgreSQL walk that index in created_at order instead of sorting the items."""
    if status == "waiting":
        return sql_text(WAITING)  # type: ignore[return-value]
    return WaitingItem.status.in_(STATUS_FILTERS[status])


def _governing_directory(library: ClauseLibrary, family: str, term: TermInForce) -> Directory | None:
    try:
        return library.directory(library.governing(family, term.term_start))
    except KnowledgeError as exc:  # the store unreadable, or no wording governs the term
        log.warning("wording of %s for %s unknown: %s", family, term.policy_number, type(exc).__name__)
        return None


_REFERENCE = re.compile(r"[Ww][Ll]-[0-9]{1,12}")
_ITEM_ID = re.compile(r"[0-9]{1,10}")
MAX_ITEM_ID = 2**31 - 1


def find_item(session: Session, key: str | int) -> WaitingItem:
    """An item by its id or by the reference the claimant was given (WL-000123)."""
    text = str(key).strip()
    item = None
    if _REFERENCE.fullmatch(text):
        item = session.scalar(select(WaitingItem).where(WaitingItem.reference == text.upper()))
    elif _ITEM_ID.fullmatch(text) and int(text) <= MAX_ITEM_ID:
        # ASCII digits only: int() would also read '１' (fullwidth) or fail on '²'.
        item = session.get(WaitingItem, int(text))
    if item is None:
        raise ItemNotFound(f"no waiting-list item {text[:40]!r}")
    return item


def item_view(session: Session, item: WaitingItem, library: ClauseLibrary | None = None) -> ItemView:
    """The item with its claim; `library` reads the governing wording's currency, in which the
    schedule's amounts are shown (an AUD schedule in AUD, as the runtime reads it)."""
    claim = session.get(Claim, item.claim_id)
    policy = session.get(Policy, claim.policy_number)
    term = claim_term(session, claim)  # the schedule of the claim's own term
    schedule = term.schedule if term else None
    warnings: tuple[str, ...] = ()
    if schedule is not None and library is not None:
        directory = _governing_directory(library, policy.family, term)
        # Unknown (the store unreadable, no wording governing): amounts without a currency code
        # rather than one that may be false.
        currency = (directory.currency or "NZD") if directory else ""
        schedule = dataclasses.replace(schedule, currency=currency)
        unknown, known = unnamed_sections(directory, schedule.sections) if directory else ([], [])
        if unknown:
            warnings = (
                f"The schedule lists {', '.join(unknown)}, which no clause of the {policy.family} wording "
                f"{directory.version} names, so nothing is added by it; the wording names "
                f"{', '.join(known) or 'no optional sections'}.",
            )
    summary = "; ".join(schedule.facts()) if schedule else None
    conversation = session.scalars(
        select(Message).where(Message.claim_id == claim.claim_id).order_by(Message.id)
    ).all()
    turn = session.get(Turn, item.turn_id) if item.turn_id else None
    withdrawn = session.scalar(select(WithdrawalFollowUp).where(WithdrawalFollowUp.item_id == item.id))
    return ItemView(
        item,
        claim,
        policy,
        summary,
        list(conversation),
        turn,
        staff_names(session),
        withdrawn,
        term,
        warnings,
    )


def staff_names(session: Session) -> dict[str, str]:
    return dict(session.execute(select(StaffUser.username, StaffUser.display_name)).all())
