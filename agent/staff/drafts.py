"""What a handler answers from: the clauses of an item, read whole from the wording that governs
the claim now (through the clause library, like a turn), and a draft composed from them the
way claimant answers are (agent.boundary.compose), bound to what it was made from."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.answering.bar import Bar
from agent.boundary.checks import spans_verbatim
from agent.boundary.citation import Citation
from agent.boundary.compose import compose
from agent.boundary.exclusions import exclusions_of
from agent.boundary.selection import Point, Selection
from agent.boundary.units import units
from agent.db.tables import Claim, Draft, Policy, Schedule, StaffUser, Turn, WaitingItem, WithdrawalFollowUp
from agent.models.offline.choosing import select_clauses
from agent.models.offline.quotes import best_quotes
from agent.policy.schedule import ScheduleView
from agent.policy.terms import TermInForce
from agent.staff import answer_evidence, answering, draft_parts, item_states, presend, waiting_list
from knowledge.clauses import MAX_CLAUSES_PER_FETCH, ClauseLibrary, FetchedClause
from knowledge.errors import KnowledgeError, NoGoverningVersion

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ItemClauses:
    family: str
    version: str | None  # the governing version they were read from; None when none could be
    clauses: list[FetchedClause] = field(default_factory=list)
    # Clause IDs of the item that the governing wording does not hold (a retired or new ID).
    not_in_wording: list[str] = field(default_factory=list)
    problem: str | None = None  # why nothing could be read


def clause_ids_of(
    turn: Turn | None, withdrawn: WithdrawalFollowUp | None, draft: Draft | None = None
) -> list[str]:
    """The clauses the item is about: its draft's, else those the turn fetched, or for a
    withdrawal follow-up those the replies cited; at most one fetch's worth."""
    ids = [c.clause_id for c in Citation.all_of(draft.citations)] if draft is not None else []
    if not ids and turn is not None:
        ids = list(turn.returned or [])
    if not ids and withdrawn is not None:
        ids = [c["clause_id"] for r in withdrawn.replies for c in r.get("citations", [])]
    return list(dict.fromkeys(ids))[:MAX_CLAUSES_PER_FETCH]


def read_clauses(
    library: ClauseLibrary, policy: Policy, term: TermInForce | None, clause_ids: list[str]
) -> ItemClauses:
    """The clauses whole, from the wording governing the claim's term now."""
    if term is None:
        return ItemClauses(policy.family, None, problem="no term of the policy holds the incident date")
    try:
        entry = library.governing(policy.family, term.term_start)
    except NoGoverningVersion as exc:
        return ItemClauses(policy.family, None, problem=str(exc))
    except KnowledgeError as exc:
        return ItemClauses(
            policy.family, None, problem=f"the policy wording store cannot be read ({type(exc).__name__})"
        )
    if not clause_ids:
        return ItemClauses(policy.family, entry.version)
    try:
        fetched = library.fetch(library.directory(entry), clause_ids)
    except KnowledgeError as exc:
        return ItemClauses(
            policy.family,
            entry.version,
            problem=f"the clauses cannot be read from the store ({type(exc).__name__})",
        )
    return ItemClauses(policy.family, entry.version, fetched.clauses, fetched.not_found)


# Drafts ------------------------------------------------------------------------------------------

DRAFTABLE = ("open", "taken")


class CannotDraft(Exception):
    """No draft can be composed now: no wording governs, no schedule, or no clause fits."""


class DraftUnavailable(CannotDraft):
    """The store cannot be read: try again."""


def latest_draft(session: Session, item_id: int) -> Draft | None:
    return session.scalar(select(Draft).where(Draft.item_id == item_id).order_by(Draft.id.desc()).limit(1))


def draft_basis(draft: Draft) -> presend.Basis:
    return presend.Basis(
        draft.last_message_id, draft.family, draft.version, draft.content_hash, draft.claim_status
    )


def draft_stale(session: Session, library: ClauseLibrary, item: WaitingItem, draft: Draft) -> list[str]:
    """What changed since the draft was made (empty when the check cannot run: the send says so)."""
    return presend.check(session, library, item, draft_basis(draft)).stale


def draft_on_first_open(session: Session, library: ClauseLibrary, item: WaitingItem) -> Draft | None:
    """The item's draft, composed the first time it is opened when its turn fetched clauses.

    Lazily rather than when the turn routes: an item can wait days, and a draft composed on
    opening is composed from the wording that governs the claim when a handler reads it; the
    turn itself does no extra store reads, and a draft that cannot be composed (store down)
    never touches the claimant's turn. Commits when it makes one."""
    existing = latest_draft(session, item.id)
    turn = session.get(Turn, item.turn_id) if item.turn_id else None
    if existing is not None or item.status not in DRAFTABLE or turn is None or not turn.returned:
        return existing
    try:
        draft = build_draft(session, library, item, list(turn.returned), origin="turn", made_by=None)
    except CannotDraft:
        return None
    session.commit()
    return draft


def redraft(
    session: Session, library: ClauseLibrary, item: WaitingItem, clause_ids: list[str], made_by: str
) -> Draft:
    """A new draft asked for by a handler (a rebuild, or "draft from the wording"): from the
    clauses named, else those of the latest draft, else the turn's, else the offline match.
    Only on an open item or one this handler has taken (waiting_list.ItemConflict otherwise).
    Commits."""
    if item.status not in DRAFTABLE:
        raise CannotDraft(f"{item.reference} is {item.status}; drafts are for items still waiting")
    turn = session.get(Turn, item.turn_id) if item.turn_id else None
    previous = latest_draft(session, item.id)
    ids = (
        clause_ids
        or ([c.clause_id for c in Citation.all_of(previous.citations)] if previous else [])
        or (list(turn.returned or []) if turn else [])
    )
    origin = "turn" if turn is not None and ids and set(ids) <= set(turn.returned or []) else "wording"
    # A rebuild keeps every sentence the earlier draft quoted that its clause still holds.
    kept = Citation.all_of(previous.citations) if previous is not None else []
    draft = build_draft(session, library, item, ids or None, origin=origin, made_by=made_by, keep=kept)
    # After the store reads, so the item's row (and on SQLite the database) is locked only
    # for the commit.
    item_states.hold_to_draft(session, item.id, made_by)
    session.commit()
    return draft


def build_draft(
    session: Session,
    library: ClauseLibrary,
    item: WaitingItem,
    clause_ids: list[str] | None,
    *,
    origin: str,
    made_by: str | None,
    keep: list[Citation] | None = None,
) -> Draft:
    """Compose a draft from the wording governing the claim now: the clauses named, or those
    the offline model's directory match picks for the item's question; for each, the sentence
    that best matches the question (else the clause's first), through agent.boundary.compose.
    Adds it to the session (not committed)."""
    claim = session.get(Claim, item.claim_id)
    policy = session.get(Policy, claim.policy_number)
    schedule = session.get(Schedule, claim.policy_number)
    if schedule is None:
        raise CannotDraft(f"policy {policy.policy_number} has no schedule on file")
    view = ScheduleView.of(policy, schedule)
    basis, governing = presend.basis_now(session, library, item)
    if governing.unavailable or governing.entry is None:
        raise CannotDraft(
            governing.unavailable or f"no approved {policy.family} wording governs this claim now"
        )
    entry = governing.entry
    try:
        directory = library.directory(entry)
        ids = clause_ids or [
            c.clause_id
            for c in select_clauses(
                item.question, [(e.clause_id, e.title) for e in directory.entries], policy.family, policy.plan
            )
        ]
        if not ids:
            raise CannotDraft(f"no clause of {policy.family} wording {entry.version} matches the question")
        fetched = {c.clause_id: c for c in library.fetch(directory, ids[:MAX_CLAUSES_PER_FETCH]).clauses}
    except KnowledgeError as exc:
        raise DraftUnavailable(f"the clauses cannot be read from the store ({type(exc).__name__})") from exc
    if not fetched:
        raise CannotDraft(f"none of {', '.join(ids)} is in {policy.family} wording {entry.version}")
    points = [
        point
        for cid, c in fetched.items()
        for point in _still_held(keep or [], c)
        or [Point(clause_id=cid, span=_best_span(item.question, c, policy.plan))]
    ]
    try:  # the exclusions the runtime serves beside a cover they limit, as a turn composes them
        limiting = exclusions_of(library, directory)
    except KnowledgeError as exc:
        raise DraftUnavailable(f"the clauses cannot be read from the store ({type(exc).__name__})") from exc
    composed = compose(
        Selection(outcome="answered", points=points),
        fetched,
        view,
        entry.version,
        exclusions=limiting,
        levels=directory.plans_named,
    )
    draft = Draft(
        item_id=item.id,
        made_by=made_by,
        origin=origin,
        text=composed.text,
        # The spans, verbatim in their clauses, are what the answer form cites.
        citations=[
            Citation(
                clause_id=p.clause_id, quote=p.span, title=fetched[p.clause_id].title, version=entry.version
            ).as_dict()
            for p in points
        ],
        family=entry.family,
        version=entry.version,
        content_hash=entry.content_hash,
        last_message_id=basis.last_message_id,
        claim_status=basis.claim_status,
    )
    session.add(draft)
    session.flush()
    log.info(
        "draft %s for item %s from %s %s (%s) cites %s",
        draft.id,
        item.reference,
        entry.family,
        entry.version,
        origin,
        list(fetched),
    )
    return draft


def _still_held(earlier: list[Citation], clause: FetchedClause) -> list[Point]:
    """The sentences an earlier draft quoted from this clause that it still holds word for word."""
    fetched = {clause.clause_id: clause}
    points = [
        Point(clause_id=clause.clause_id, span=c.quote) for c in earlier if c.clause_id == clause.clause_id
    ]
    return [p for p in points if spans_verbatim([p], fetched).passed]


def lost_in_rebuild(session: Session, item_id: int) -> tuple[str | None, list[Citation]]:
    """What the latest draft lost of the one before it: (the wording change that explains it,
    when the versions differ, else None) and each quote the earlier draft held that this one
    does not. A rebuild keeps every sentence its clause still holds, so on the same wording the
    list is empty unless a handler named other clauses."""
    rows = list(
        session.scalars(select(Draft).where(Draft.item_id == item_id).order_by(Draft.id.desc()).limit(2))
    )
    if len(rows) < 2:
        return None, []
    latest, before = rows
    held = {(c.clause_id, " ".join(c.quote.split())) for c in Citation.all_of(latest.citations)}
    lost = [
        c for c in Citation.all_of(before.citations) if (c.clause_id, " ".join(c.quote.split())) not in held
    ]
    changed = None
    if (before.version, before.content_hash) != (latest.version, latest.content_hash):
        changed = f"{before.family} wording {before.version} → {latest.version}"
        if before.version == latest.version:
            changed = f"{before.family} wording {before.version} was ingested again with other content"
    return changed, lost


def _best_span(question: str, clause: FetchedClause, plan: str | None) -> str:
    """The clause sentence that best matches the question, else its first: the first candidate
    that passes the citation check a staff answer must pass."""
    scored = [span for _, span in best_quotes(question, {"text": clause.text, "title": clause.title}, plan)]
    candidates = [*scored, *(u.text for u in units(clause.text))]
    fetched = {clause.clause_id: clause}
    for span in candidates:
        if spans_verbatim([Point(clause_id=clause.clause_id, span=span)], fetched).passed:
            return span
    raise CannotDraft(f"{clause.clause_id} has no sentence a draft can quote")


# Sending as drafted ---------------------------------------------------------------------------


def send_as_drafted(
    session: Session,
    library: ClauseLibrary,
    item: WaitingItem,
    staff: StaffUser,
    draft_id: int,
    *,
    keep: answer_evidence.Keep,
    bar: Bar,
    model_words_confirmed: bool = False,
) -> WaitingItem:
    """Send the item's latest draft unchanged, in one action. Refused (and the item left exactly
    as it was, an open item not left taken) when the draft is not the latest, is stale, holds
    words a model wrote that the handler has not confirmed or that fail their checks now, or
    cites what the governing wording refuses. An open item is taken for the handler first."""
    draft = latest_draft(session, item.id)
    if draft is None or draft.id != draft_id:
        raise waiting_list.ItemConflict(f"{item.reference}: draft {draft_id} is not the item's latest draft")
    stale = draft_stale(session, library, item, draft)
    if stale:
        raise waiting_list.Stale(item.reference, stale)
    words = draft_parts.model_words(session, draft)
    if words is not None:
        if not model_words_confirmed:
            raise waiting_list.Unsendable(
                f"{item.reference}: the draft holds words a model wrote (“{words}”); read them and "
                "confirm them (model_words_confirmed), or edit the draft and send it as your own answer"
            )
        problems = draft_parts.lead_problems(session, library, draft, words)
        if problems:
            raise waiting_list.Unsendable(
                f"{item.reference}: the words a model wrote no longer pass their checks ("
                + "; ".join(problems)
                + "); edit the draft and send it as your own answer"
            )
    cited = Citation.all_of(draft.citations)  # each quote is checked again as a handler's would be
    took = item.status == "open"
    if took:
        item_states.take(session, item.id, staff)
    try:
        return answering.answer(
            session,
            library,
            item.id,
            staff,
            draft.text,
            cited,
            draft_basis(draft),
            bar=bar,
            keep=keep,
        )
    except Exception:
        session.rollback()
        if took:  # the send was refused: the item goes back as it was found
            try:
                item_states.release(session, item.id, staff)
                log.info("send of draft %s refused: item %s released to the list", draft.id, item.reference)
            except waiting_list.ItemConflict:  # no longer ours to release: the refusal still stands
                session.rollback()
        raise
