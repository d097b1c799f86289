"""The staff waiting list: routed questions become items that staff take, answer and close."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import ColumnElement, case, func, select, update
from sqlalchemy import text as sql_text
from sqlalchemy.orm import Session

from agent.answering.bar import Bar
from agent.boundary.checks import cited_were_fetched, spans_verbatim
from agent.boundary.citation import Citation, Quote
from agent.boundary.selection import BY_NATURE, Point
from agent.boundary.units import readable
from agent.db import locks
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
    utcnow,
)
from agent.events import outbox
from agent.models.errors import ModelReason
from agent.policy.schedule import unnamed_sections
from agent.policy.terms import TermInForce, claim_term
from agent.staff import answer_evidence, draft_parts, presend
from knowledge.clauses import MAX_CLAUSES_PER_FETCH, ClauseLibrary, Directory, verbatim
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
# An answer quotes at most three clauses (the design's limit), any number of their sentences:
# MAX_CITATIONS only bounds what one request may carry. Clauses the runtime added to a draft
# as qualifiers count toward neither.
MAX_ANSWER_CLAUSES = 3  # clauses one answer quotes (the runtime's qualifiers aside)
MAX_CITATIONS = 12


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


def _transition(session: Session, item_id: int, allowed: ColumnElement[bool], **values: Any) -> bool:
    """The one way an item changes state: a conditional UPDATE that applies only from an
    allowed state, so of any number of concurrent requests exactly one sees it apply
    (atomic on SQLite and PostgreSQL). Whether it applied; the caller commits."""
    done = session.execute(
        update(WaitingItem)
        .where(WaitingItem.id == item_id, allowed)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return done.rowcount == 1


def _settle(
    session: Session,
    item_id: int,
    staff: StaffUser,
    action: str,
    applied: bool,
    refusal: Callable[[WaitingItem], str],
) -> WaitingItem:
    """Commit a transition and return the item, or say why it was refused (ItemConflict)."""
    session.commit()
    item = _reload(session, item_id)
    if not applied:
        log.info("%s item %s by %s refused: status %s", action, item_id, staff.username, item.status)
        raise ItemConflict(refusal(item))
    log.info("item %s %s %s by %s", item.id, item.reference, action, staff.username)
    return item


def _taken_by(staff: StaffUser | str) -> ColumnElement[bool]:
    username = staff if isinstance(staff, str) else staff.username
    return (WaitingItem.status == "taken") & (WaitingItem.taken_by == username)


def hold_to_draft(session: Session, item_id: int, username: str) -> None:
    """A draft is replaced under the rule of closing: on an open item, or one this staff user
    has taken. A no-op conditional UPDATE of the item, in the caller's transaction: it locks
    the row until the caller commits the draft (a take by another handler waits for it, and a
    draft waits for a take in flight), and it applies only from an allowed state; else the
    transaction is rolled back and ItemConflict says who holds the item."""
    allowed = (WaitingItem.status == "open") | _taken_by(username)
    if not _transition(session, item_id, allowed, status=WaitingItem.status):
        session.rollback()
        item = _reload(session, item_id)
        log.info("draft of item %s by %s refused: status %s", item_id, username, item.status)
        raise ItemConflict(
            f"{item.reference} is {_state(item, session)}; only the handler holding it can replace its draft"
        )


def take(session: Session, item_id: int, staff: StaffUser) -> WaitingItem:
    """Atomic on SQLite and PostgreSQL: the conditional UPDATE locks the row, and of any
    number of concurrent takers exactly one sees rowcount 1. Commits."""
    taken = _transition(
        session,
        item_id,
        WaitingItem.status == "open",
        status="taken",
        taken_by=staff.username,
        taken_at=utcnow(),
    )
    return _settle(session, item_id, staff, "take", taken, lambda item: _not_open(item, session))


def release(session: Session, item_id: int, staff: StaffUser) -> WaitingItem:
    """Only the staff user who took an item can put it back on the list. Commits."""
    released = _transition(session, item_id, _taken_by(staff), status="open", taken_by=None, taken_at=None)
    return _settle(
        session,
        item_id,
        staff,
        "release",
        released,
        lambda item: f"{item.reference} is not taken by you ({_state(item, session)})",
    )


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
    item = _reload(session, item_id)
    _require_taken_by(item, staff, session, "answer")
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
    claim = session.get(Claim, item.claim_id)
    policy = session.get(Policy, claim.policy_number)
    # Clauses the runtime brought into the item's draft as qualifiers are outside the limit.
    added = draft_parts.runtime_added(session, draft_parts.latest(session, item.id))
    shown = verify_citations(
        library, policy, claim_term(session, claim), text, citations, runtime_added=added
    )
    # Unchecked, the wording the handler saw is the best record of what the answer stood on.
    release = basis if checked.unavailable else checked.now
    message = Message(
        claim_id=item.claim_id,
        role="staff",
        body=staff_message_body(text, shown),
        waiting_list_reference=item.reference,
        author=staff.display_name,
    )
    session.add(message)
    session.flush()
    done = _transition(
        session,
        item_id,
        _taken_by(staff),
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
        item = _reload(session, item_id)
        raise ItemConflict(f"{item.reference} is not taken by you ({_state(item, session)})")
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
    outbox.add(  # committed with the answer, or not at all
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
    session.commit()
    item = _reload(session, item_id)
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


def close(session: Session, item_id: int, staff: StaffUser, reason: str) -> WaitingItem:
    """Close without an answer: an open item, or one this staff user has taken. Commits."""
    closed = _transition(
        session,
        item_id,
        (WaitingItem.status == "open") | _taken_by(staff),
        status="closed",
        closed_at=utcnow(),
        closed_by=staff.username,
        close_reason=reason,
    )
    return _settle(
        session,
        item_id,
        staff,
        "close",
        closed,
        lambda item: f"{item.reference} cannot be closed by you ({_state(item, session)})",
    )


def verify_citations(
    library: ClauseLibrary,
    policy: Policy,
    term: TermInForce | None,
    text: str,
    citations: Sequence[Quote],
    *,
    runtime_added: frozenset[str] = frozenset(),
) -> list[Citation]:
    """The agent's citation checks, on the wording that governs the claim's term.

    Returns what the claimant is shown: a Citation per quote, the clause's whole text with
    its first quote.
    Raises CitationRefused, or the knowledge layer's errors when the store cannot be read.
    `runtime_added`: clauses the runtime put in a draft as qualifiers, outside the clause limit.
    """
    if not citations:
        return []
    if len(citations) > MAX_CITATIONS:
        raise CitationRefused(f"at most {MAX_CITATIONS} quotes per answer")
    chosen = list(dict.fromkeys(c.clause_id for c in citations if c.clause_id not in runtime_added))
    if len(chosen) > MAX_ANSWER_CLAUSES:
        raise CitationRefused(
            f"an answer quotes at most {MAX_ANSWER_CLAUSES} clauses (any number of their sentences); "
            f"this one quotes {len(chosen)}: {', '.join(chosen)}"
        )
    if term is None:
        raise CitationRefused(
            f"no term of policy {policy.policy_number} holds the claim's incident date, so no wording "
            "governs it yet; answer without citations, or once the incident date is recorded"
        )
    entry = library.governing(policy.family, term.term_start)
    directory = library.directory(entry)
    wording = f"{entry.family} wording {entry.version}"
    outside = [c.clause_id for c in citations if directory.get(c.clause_id) is None]
    if outside:
        raise CitationRefused(
            f"{', '.join(outside)} is not in the governing {wording} for policy "
            f"{policy.policy_number}; cite only clauses of that wording"
        )
    ids = list(dict.fromkeys(c.clause_id for c in citations))  # each clause fetched once, however many quotes
    fetched = {
        c.clause_id: c
        for n in range(0, len(ids), MAX_CLAUSES_PER_FETCH)  # runtime-added qualifiers may make it more
        for c in library.fetch(directory, ids[n : n + MAX_CLAUSES_PER_FETCH]).clauses
    }
    points = [Point(clause_id=c.clause_id, span=c.quote) for c in citations]
    failed = [
        c for c in (cited_were_fetched(points, fetched), spans_verbatim(points, fetched)) if not c.passed
    ]
    if failed:
        raise CitationRefused(f"{wording}: " + "; ".join(c.detail for c in failed))
    # The whole clause rides with its first quote, so the claimant's page can open it later
    # without reading the store on every poll.
    shown: list[Citation] = []
    for c in citations:
        clause = fetched[c.clause_id]
        first = all(s.clause_id != c.clause_id for s in shown)
        shown.append(
            Citation(
                clause_id=c.clause_id,
                quote=c.quote,
                title=clause.title,
                version=entry.version,
                full_text=readable(clause.text) if first else None,
            )
        )
    return shown


def _quoted_line(c: Citation) -> str:
    return f"{c.title} (your policy wording {c.version}): “{c.quote}”"


def staff_message_body(text: str, shown: list[Citation]) -> str:
    """The claimant's conversation shows a staff answer's citations in its text, each once: a
    quote the text already holds (a draft composed from the wording quotes them) is not repeated.
    A clause is named by its title, as the claimant reads it (its ID is the wording's code)."""
    lines = [text.strip()]
    lines += [_quoted_line(c) for c in shown if not verbatim(c.quote, text)]
    return "\n\n".join(lines)


def staff_text_of(body: str, shown: list[Citation]) -> str:
    """The handler's own words of a staff message: its body less the quotes appended to it."""
    appended = {_quoted_line(c) for c in shown}
    parts = body.split("\n\n")
    while len(parts) > 1 and parts[-1] in appended:
        parts.pop()
    return "\n\n".join(parts)


# Content gaps ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FamilyGaps:
    family: str
    last_7_days: dict[str, int]
    last_30_days: dict[str, int]

    @property
    def total_7(self) -> int:
        return sum(self.last_7_days.values())

    @property
    def total_30(self) -> int:
        return sum(self.last_30_days.values())


@dataclass(frozen=True)
class NoClauseQuestion:
    item: WaitingItem
    version: str | None
    requested: list[str]
    not_found: list[str]


@dataclass(frozen=True)
class ModelReasonRoute:
    """A question routed on the model's own reason (a decision, the claim's progress, a request,
    outside the wording) without the runtime checking any clause: the model may be wrong."""

    item: WaitingItem
    model_reason: str | None  # what the model suggested, as the turn recorded it


@dataclass(frozen=True)
class ContentGaps:
    families: list[FamilyGaps]
    no_clause: list[NoClauseQuestion]
    # Answers sent in the last 30 days without the pre-send check (it could not run), per family.
    unchecked_sends: dict[str, int]
    # Routes on the model's own reason in the last 30 days, newest first, so a pattern shows.
    model_reason: list[ModelReasonRoute] = field(default_factory=list)


def content_gaps(session: Session, *, now: datetime | None = None, limit: int = 100) -> ContentGaps:
    """Per family: questions routed in the last 7 and 30 days by reason, and the routed
    questions whose turns selected no clause (those no wording answers by their nature, such as
    a decision or a request, aside), so a policy owner sees where the wording has no answer.
    Those routed on the model's own reason (by their nature, no clause checked) are listed apart,
    newest first: if the model keeps calling cover questions decisions, staff see the pattern."""
    now = now or utcnow()
    since_7, since_30 = now - timedelta(days=7), now - timedelta(days=30)
    # The last 30 days are a small part of a list kept for years: SQLite would otherwise read
    # every item through the family index that orders the groups (50 ms at 100,000 items)
    # instead of the window's part of ix_waiting_created.
    recent = likely(session, WaitingItem.created_at >= since_30, 0.05)
    rows = session.execute(
        select(
            WaitingItem.family,
            WaitingItem.reason,
            func.count(),
            func.sum(case((WaitingItem.created_at >= since_7, 1), else_=0)),
        )
        .where(recent)
        .group_by(WaitingItem.family, WaitingItem.reason)
    ).all()
    families: dict[str, FamilyGaps] = {}
    for family, reason, n_30, n_7 in rows:
        gaps = families.setdefault(family or "unknown", FamilyGaps(family or "unknown", {}, {}))
        gaps.last_30_days[reason] = n_30
        if n_7:
            gaps.last_7_days[reason] = int(n_7)
    # Families by name (no family last), each newest first, `limit` in all: one family at a time,
    # each walking ix_waiting_family_created from its newest item and stopping at the limit,
    # instead of looking up the turn of every item of the 30 days to sort them.
    no_clause: list[Any] = []
    named = sorted({f for f, *_ in rows if f is not None})
    for family in [*named, *([None] if any(f is None for f, *_ in rows) else [])]:
        if len(no_clause) == limit:
            break
        no_clause += session.execute(
            select(WaitingItem, Turn.version, Turn.requested, Turn.not_found)
            .join(Turn, Turn.id == WaitingItem.turn_id)
            .where(
                WaitingItem.family == family if family is not None else WaitingItem.family.is_(None),
                WaitingItem.created_at >= since_30,
                Turn.guidance_status == "no_clause_selected",
                WaitingItem.reason.not_in(BY_NATURE),  # a request or advice is no gap in the wording
            )
            .order_by(WaitingItem.created_at.desc())
            .limit(limit - len(no_clause))
        ).all()
    on_model_word = session.execute(
        select(WaitingItem, Turn.model_route_reason)
        .outerjoin(Turn, Turn.id == WaitingItem.turn_id)
        .where(WaitingItem.reason.in_(BY_NATURE), WaitingItem.created_at >= since_30)
        .order_by(WaitingItem.created_at.desc(), WaitingItem.id.desc())
        .limit(limit)
    ).all()
    unchecked = session.execute(
        select(WaitingItem.family, func.count())
        .where(WaitingItem.answered_at >= since_30, WaitingItem.send_check == presend.UNAVAILABLE)
        .group_by(WaitingItem.family)
    ).all()
    return ContentGaps(
        [families[k] for k in sorted(families)],
        [
            NoClauseQuestion(item, version, list(req or []), list(nf or []))
            for item, version, req, nf in no_clause
        ],
        {family or "unknown": n for family, n in sorted(unchecked, key=lambda r: r[0] or "")},
        [ModelReasonRoute(item, model_reason) for item, model_reason in on_model_word],
    )


# Helpers --------------------------------------------------------------------------------------


def _reload(session: Session, item_id: int) -> WaitingItem:
    item = session.get(WaitingItem, item_id, populate_existing=True)
    if item is None:
        raise ItemNotFound(f"no waiting-list item {item_id}")
    return item


def _state(item: WaitingItem, session: Session) -> str:
    if item.status == "taken":
        return f"taken by {staff_names(session).get(item.taken_by or '', item.taken_by)}"
    return item.status


def _not_open(item: WaitingItem, session: Session) -> str:
    return f"{item.reference} is already {_state(item, session)}"


def _require_taken_by(item: WaitingItem, staff: StaffUser, session: Session, action: str) -> None:
    if item.status != "taken" or item.taken_by != staff.username:
        raise ItemConflict(f"take {item.reference} before you {action} it ({_state(item, session)})")
