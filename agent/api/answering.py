"""Staff API for earned answering: each clause's mode, evidence and measured precision for every
staff user; moving clauses to `answers` (citing a release check, at the bar or with a written
reason) and back to `drafts` for policy owners; handlers flag a served answer as wrong."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Path
from sqlalchemy.orm import Session

from agent.answering import approval, evidence, retention
from agent.answering.bar import Bar
from agent.answering.gate import POOLED_TITLES, is_pooled
from agent.answering.measured import measured
from agent.answering.modes import history, modes_for
from agent.api.deps import (
    CurrentStaff,
    LibraryDep,
    PolicyOwner,
    Services,
    ServicesDep,
    SessionDep,
    api_router,
)
from agent.api.schemas.answering import (
    AnsweringOut,
    ClauseOut,
    EvidenceOut,
    FlagIn,
    ForgottenOut,
    MeasuredOut,
    ModeChangeOut,
    MovedOut,
    PromoteIn,
    ToAnswersIn,
    ToDraftsIn,
)
from agent.api.schemas.common import error_responses, url_part
from agent.api.staff import ItemKey
from agent.api.wording import actor
from agent.db import locks
from agent.db.tables import Claim, ReleaseCheck, StaffUser, Turn
from agent.staff import answer_evidence, corrections, holding, waiting_list
from agent.wording import lifecycle as wording
from agent.wording.checkpoints import measure_version
from knowledge.clauses import ClauseLibrary

router = api_router("/staff/api", "answering", 400, 401, 403, 404, 409, 413, 422, 503)
log = logging.getLogger(__name__)


# Schemas ------------------------------------------------------------------------------------


# Helpers --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Desk:
    """What a staff action on a version's answering runs with: the services, the clause
    library, the request's database session and the staff user acting."""

    svc: Services
    library: ClauseLibrary
    session: Session
    staff: StaffUser

    def bar(self) -> Bar:
        return Bar.of(self.svc.settings)


async def _staff_desk(
    staff: CurrentStaff, session: SessionDep, svc: ServicesDep, library: LibraryDep
) -> Desk:
    return Desk(svc, library, session, staff)


StaffDesk = Annotated[Desk, Depends(_staff_desk)]


async def _owner_desk(owner: PolicyOwner, desk: StaffDesk) -> Desk:
    """A policy owner's desk: anyone else is refused (403) before it is set up."""
    return desk


OwnerDesk = Annotated[Desk, Depends(_owner_desk)]


def clause_titles(library: ClauseLibrary, family: str, version: str) -> dict[str, str]:
    """clause ID -> title of a version as ingested (RegistryError 404 when it is not)."""
    manifest, _ = library.registry.read()
    return {e.clause_id: e.title for e in library.directory(manifest.entry(family, version)).entries}


def answering_of(
    session: Session, library: ClauseLibrary, family: str, version: str, bar: Bar
) -> AnsweringOut:
    """Every clause and pooled rule of the version with its mode and its figures on the latest
    measure (agent.answering.measured), the age of that measure, and the audit of mode changes."""
    titles = clause_titles(library, family, version)
    rows = evidence.verified(session, family, version)
    now = measured(session, family, version, bar)
    subjects = {**titles, **POOLED_TITLES}
    modes = modes_for(session, family, version, subjects)
    expecting: dict[str, int] = {}
    for row in rows:
        for cid in dict.fromkeys(row.clauses or ()):
            expecting[cid] = expecting.get(cid, 0) + 1
    waiting = evidence.counts(session, family).get(version, {}).get(evidence.AWAITING_REVIEW, 0)
    clauses = []
    for subject, title in subjects.items():
        f = now.of(bar, subject)
        clauses.append(
            ClauseOut(
                clause_id=subject,
                title=title,
                mode=modes[subject],
                pooled=is_pooled(subject),
                evidence_questions=expecting.get(subject, 0),
                served=f.served,
                wrong_or_irrelevant=f.wrong,
                right=f.served - f.wrong,
                precision=(f.served - f.wrong) / f.served if f.served else None,
                upper_bound=round(f.upper, 4),
                not_counted=f.not_counted,
                meets_bar=f.meets,
                more_needed=f.more_needed,
                misses=f.misses(bar),
            )
        )
    return AnsweringOut(
        family=family,
        version=version,
        bar=bar.describe(),
        measured_by=now.check.id if now.check else None,
        measured_at=now.check.created_at if now.check else None,
        evidence_rows_since=now.rows_since,
        evidence_questions=len(rows),
        awaiting_review=waiting,
        clauses=clauses,
        history=[ModeChangeOut.model_validate(c) for c in history(session, family, version)],
    )


def move_to_answers(desk: Desk, family: str, version: str, body: ToAnswersIn) -> MovedOut:
    """Shared by the API and the wording page: the check must be of this version as it stands."""
    manifest, _ = desk.library.registry.read()
    entry = manifest.entry(family, version)
    check = wording.check_for_approval(desk.session, entry, body.check_id)
    known = {e.clause_id for e in desk.library.directory(entry).entries}
    ids = sorted(known) if body.all else [c.strip() for c in body.clause_ids]
    changes, weighed = approval.to_answers(
        desk.session,
        family=family,
        version=version,
        clause_ids=ids,
        known=known,
        check=check,
        by=actor(desk.staff),
        bar=desk.bar(),
        reason=body.reason,
    )
    desk.session.commit()
    return MovedOut(
        family=family,
        version=version,
        changes=[ModeChangeOut.model_validate(c) for c in changes],
        measured=[
            MeasuredOut(
                clause_id=w.clause_id,
                served=w.figures.served,
                wrong_or_irrelevant=w.figures.wrong,
                upper_bound=round(w.figures.upper, 4),
                misses=w.misses,
            )
            for w in weighed
        ],
    )


def measure(desk: Desk, family: str, version: str) -> ReleaseCheck:
    """Measure the version again now (a release check of all its evidence), as a checkpoint would."""
    svc = desk.svc
    clause_titles(desk.library, family, version)  # 404 for a version not ingested
    return measure_version(
        desk.library.store,
        svc.sessions,
        family,
        version,
        model=svc.runner.model,
        memories=svc.runner.memories,
        settings=svc.settings,
        by=actor(desk.staff),
    )


def promote_version(desk: Desk, family: str, version: str, body: PromoteIn) -> MovedOut:
    """Every subject that meets the bar on the latest measure moves to `answers` (measured again
    first when evidence arrived since, unless told not to)."""
    session, bar = desk.session, desk.bar()
    known = set(clause_titles(desk.library, family, version))
    now = measured(session, family, version, bar)
    if body.measure and (now.check is None or now.rows_since):
        session.rollback()
        measure(desk, family, version)
    changes = approval.promote(session, family, version, known, bar, by=actor(desk.staff))
    session.commit()
    return MovedOut(
        family=family, version=version, changes=[ModeChangeOut.model_validate(c) for c in changes]
    )


def move_to_drafts(desk: Desk, family: str, version: str, body: ToDraftsIn) -> MovedOut:
    known = set(clause_titles(desk.library, family, version))
    ids = sorted(known) if body.all else [c.strip() for c in body.clause_ids]
    changes = approval.to_drafts(
        desk.session,
        family=family,
        version=version,
        clause_ids=ids,
        known=known,
        by=actor(desk.staff),
        reason=body.reason,
    )
    desk.session.commit()
    return MovedOut(
        family=family, version=version, changes=[ModeChangeOut.model_validate(c) for c in changes]
    )


# Routes -------------------------------------------------------------------------------------


@router.get("/wording/{family}/{version}/answering", response_model=AnsweringOut)
def answering(family: str, version: str, desk: StaffDesk) -> AnsweringOut:
    """Each clause's mode, evidence count and measured precision (per week), and the audit of
    the version's mode changes."""
    return answering_of(desk.session, desk.library, family, version, desk.bar())


@router.post("/wording/{family}/{version}/answering/answers", response_model=MovedOut)
def to_answers(family: str, version: str, body: ToAnswersIn, desk: OwnerDesk) -> MovedOut:
    """Move clauses to `answers`, citing a release check of this version as ingested now. A
    clause whose evidence misses the bar is refused (422, naming each clause and by what) unless
    `reason` is given; the reason is kept on the mode change and shown."""
    return move_to_answers(desk, family, version, body)


@router.post("/wording/{family}/{version}/measure", response_model=AnsweringOut)
def measure_now(family: str, version: str, desk: OwnerDesk) -> AnsweringOut:
    """Replay every verified evidence question of the version through the model the runtime
    serves (a release check, stored), and return the figures it gives each clause and rule."""
    check = measure(desk, family, version)
    desk.session.expire_all()
    log.info("version %s %s measured by %s: %s", family, version, desk.staff.username, check.id)
    return answering_of(desk.session, desk.library, family, version, desk.bar())


@router.post("/wording/{family}/{version}/answering/promote", response_model=MovedOut)
def promote(family: str, version: str, body: PromoteIn, desk: OwnerDesk) -> MovedOut:
    """Move every clause and rule that meets the bar on the latest measure to `answers`, in one
    action (each with an event); what still misses it stays in `drafts`."""
    return promote_version(desk, family, version, body)


@router.post("/wording/{family}/{version}/answering/drafts", response_model=MovedOut)
def to_drafts(family: str, version: str, body: ToDraftsIn, desk: OwnerDesk) -> MovedOut:
    """Move clauses back to `drafts` by hand, with a reason."""
    return move_to_drafts(desk, family, version, body)


TurnId = Annotated[str, Path(**url_part(32, "The turn that served the answer"))]
ClaimId = Annotated[str, Path(**url_part(40, "The claim whose kept words go"))]


@router.delete(
    "/claims/{claim_id}/evidence-words", response_model=ForgottenOut, responses=error_responses(404)
)
def forget_claim_words(claim_id: ClaimId, staff: PolicyOwner, session: SessionDep) -> ForgottenOut:
    """Drop the claimant's words kept as evidence from this claim's conversation, on request
    (the evidence rows stay, without words; the memory rebuilds without them)."""
    if session.get(Claim, claim_id) is None:
        raise HTTPException(404, f"no claim {claim_id[:40]!r}")
    forgotten = retention.forget_claim(session, claim_id)
    session.commit()
    log.info("claim %s evidence words forgotten by %s: %d rows", claim_id, staff.username, forgotten)
    return ForgottenOut(claim_id=claim_id, forgotten=forgotten)


@router.post("/turns/{turn_id}/flag", response_model=EvidenceOut, responses=error_responses(404, 409))
def flag(turn_id: TurnId, body: FlagIn, desk: StaffDesk) -> EvidenceOut:
    """Flag a served answer as wrong: evidence `wrong` against every clause it quoted, which may
    send a clause in `answers` back to `drafts`. The question's words are kept only when given."""
    session, by = desk.session, desk.staff.username
    turn = session.get(Turn, turn_id)
    if turn is None:
        raise HTTPException(404, f"no turn {turn_id[:40]!r}")
    if turn.family and turn.version:  # two flags at once: one row, one fall back
        locks.hold_evidence(session, turn.family, turn.version)
    row = answer_evidence.flag_wrong(
        session, desk.library, turn, by=by, question=body.question, bar=desk.bar()
    )
    corrections.correct(session, turn, by=by)
    session.commit()
    log.info("turn %s flagged wrong by %s: evidence %s", turn.id, by, row.id)
    return EvidenceOut.model_validate(row)


@router.post(
    "/items/{item_key}/confirm-unhelpful", response_model=EvidenceOut, responses=error_responses(404, 409)
)
def confirm_unhelpful(item_key: ItemKey, body: FlagIn, desk: StaffDesk) -> EvidenceOut:
    """Confirm a claimant's report that an answer did not help (an item with reason
    claimant_unhelpful): only then is it evidence, `wrong` against every clause the answer quoted."""
    session = desk.session
    item = waiting_list.find_item(session, item_key)
    turn = session.get(Turn, item.turn_id) if item.turn_id else None
    if turn is not None and turn.family and turn.version:  # two at once: one row, one fall back
        locks.hold_evidence(session, turn.family, turn.version)
    by = holding.evidence_author(item, desk.staff, override=body.override)
    row = answer_evidence.confirm_unhelpful(
        session, desk.library, item, by=by, question=body.question, bar=desk.bar()
    )
    session.commit()
    log.info("item %s unhelpful confirmed by %s: evidence %s", item.reference, desk.staff.username, row.id)
    return EvidenceOut.model_validate(row)
