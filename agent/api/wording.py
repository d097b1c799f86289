"""Staff API for the wording lifecycle: every staff user reads the versions, audit trail
and release checks; only policy owners run checks, approve and withdraw."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import HTTPException, Query
from pydantic import Field

from agent.answering.check_report import CheckReport
from agent.api.deps import (
    CurrentStaff,
    LibraryDep,
    PolicyOwner,
    RegistryDep,
    Services,
    ServicesDep,
    SessionDep,
    api_router,
)
from agent.api.schemas.common import PLAIN_PATTERN, QueryInt
from agent.api.schemas.wording import (
    AffectedListOut,
    AffectedOut,
    AffectedTotals,
    ApprovalOut,
    ApproveIn,
    CheckOut,
    WithdrawalOut,
    WithdrawIn,
)
from agent.api.staff import MAX_OFFSET
from agent.db.tables import ReleaseCheck, StaffUser
from agent.wording import lifecycle as wording
from agent.wording.affected import MAX_PAGE, PAGE, AffectedReply, affected
from agent.wording.measurement import measure_replay
from agent.wording.release_check import run_release_check
from knowledge.clauses import ClauseLibrary

router = api_router("/staff/api/wording", "wording", 400, 401, 403, 404, 409, 413, 422, 503)
log = logging.getLogger(__name__)
MAX_FILTER_CLAUSES = 20  # clause IDs in one `affected` filter
MAX_CHECK_QUESTIONS = 10_000  # a limit on a check's questions, far above any inventory


def actor(staff: StaffUser) -> str:
    return f"{staff.display_name} ({staff.username})"


def run_check(
    svc: Services,
    library: ClauseLibrary,
    staff: StaffUser,
    family: str,
    version: str,
    questions: int | None = None,
) -> ReleaseCheck:
    """A release check with this system's store, model and bar, stored under its ID; at most
    `questions` of the inventory when given."""
    report = run_release_check(
        library.store,
        family,
        version,
        model=svc.runner.model,
        created_by=actor(staff),
        questions=questions,
        settings=svc.runner.settings,
        replay=measure_replay(svc.sessions, family, version),
        memories=svc.runner.memories,
    )
    with svc.sessions.begin() as session:
        check = wording.store_check(session, report)
    log.info("release check %s of %s %s by %s", check.id, family, version, staff.username)
    return check


# Schemas ------------------------------------------------------------------------------------


# Routes -------------------------------------------------------------------------------------


@router.get("")
def overview(staff: CurrentStaff, session: SessionDep, registry: RegistryDep) -> list[dict[str, Any]]:
    manifest, _ = registry.read()
    return [
        {
            "family": f.family,
            "versions": [
                {
                    **v.entry.model_dump(mode="json", include=_ENTRY_FIELDS),
                    "agent_replies_citing": v.agent_replies,
                    "staff_answers_citing": v.staff_answers,
                    "drafts_from": v.drafts,
                    "release_checks": [c.id for c in v.checks],
                }
                for v in f.versions
            ],
            "audit": [
                {
                    "at": a.at,
                    "actor": a.actor,
                    "action": a.action,
                    "version": a.version,
                    "reason": a.reason,
                    "detail": a.detail,
                }
                for a in f.audit
            ],
        }
        for f in wording.overview(session, manifest)
    ]


_ENTRY_FIELDS = {
    "version",
    "status",
    "effective_from",
    "effective_to",
    "approved_by",
    "approved_at",
    "release_check",
    "withdrawn_by",
    "withdrawn_at",
    "withdraw_reason",
    "clause_count",
}


# Control characters never pass (the request guard answers 400); the schema says so.
ClauseId = Annotated[str, Field(min_length=1, max_length=40, json_schema_extra={"pattern": PLAIN_PATTERN})]


@router.get("/{family}/{version}/affected", response_model=AffectedListOut)
def affected_list(
    family: str,
    version: str,
    staff: CurrentStaff,
    session: SessionDep,
    # A plain array, not "array or null": a query string cannot say null, and an `anyOf` with
    # null makes a fuzzer's boolean (sent as the string "false") look like a refused type.
    clause: Annotated[
        list[ClauseId],
        Query(max_length=MAX_FILTER_CLAUSES, description="only what cited this clause ID (repeatable)"),
    ] = [],  # noqa: B006 -- FastAPI copies a query default; it is never mutated
    limit: Annotated[QueryInt, Query(ge=1, le=MAX_PAGE, description="rows of each kind on a page")] = PAGE,
    offset: Annotated[QueryInt, Query(ge=0, le=MAX_OFFSET, description="rows of each kind to skip")] = 0,
) -> AffectedListOut:
    """What a version affected: agent replies citing it, staff answers sent while it governed
    the claim or citing it, drafts made from it. Each kind's total and one page of each
    (rows offset + 1 to offset + limit), oldest first; page on with `next_offset`."""
    clauses = sorted(set(clause))
    found = affected(session, family, version, set(clauses), limit=limit, offset=offset)

    def rows(replies: list[AffectedReply]) -> list[AffectedOut]:
        return [AffectedOut.model_validate(r) for r in replies]

    return AffectedListOut(
        family=family,
        version=version,
        clauses=clauses,
        totals=AffectedTotals(
            agent_replies=found.totals.agent, staff_answers=found.totals.staff, drafts=found.totals.drafts
        ),
        limit=limit,
        offset=offset,
        next_offset=found.next_offset,
        agent_replies=rows(found.agent),
        staff_answers=rows(found.staff),
        drafts=rows(found.drafts),
    )


@router.get("/checks/{check_id}")
def get_check(check_id: str, staff: CurrentStaff, session: SessionDep) -> dict[str, Any]:
    check = session.get(ReleaseCheck, check_id)
    if check is None:
        raise HTTPException(404, f"no release check {check_id}")
    return CheckReport.of(check.report).as_dict()


@router.post("/{family}/{version}/check", response_model=CheckOut)
def check(
    family: str,
    version: str,
    staff: PolicyOwner,
    svc: ServicesDep,
    library: LibraryDep,
    questions: Annotated[
        QueryInt | None,
        Query(ge=0, le=MAX_CHECK_QUESTIONS, description="ask at most this many of the inventory, in order"),
    ] = None,
) -> CheckOut:
    """Run the version's inventory through the turn code (and the version it would follow), judge
    every served answer on the question's facts, and say whether it meets the bar."""
    return CheckOut.of(run_check(svc, library, staff, family, version, questions))


@router.post("/{family}/{version}/approve", response_model=ApprovalOut)
def approve(
    family: str, version: str, body: ApproveIn, staff: PolicyOwner, svc: ServicesDep, registry: RegistryDep
) -> ApprovalOut:
    changed, check = wording.approve(
        registry,
        svc.sessions,
        family,
        version,
        effective_from=body.effective_from,
        effective_to=body.effective_to,
        approved_by=actor(staff),
        check_id=body.check_id,
        via="staff API",
    )
    return ApprovalOut(family=family, version=version, changed=changed, check_id=check.id)


@router.post("/{family}/{version}/withdraw", response_model=WithdrawalOut)
def withdraw(
    family: str, version: str, body: WithdrawIn, staff: PolicyOwner, svc: ServicesDep, registry: RegistryDep
) -> WithdrawalOut:
    done = wording.withdraw(
        registry,
        svc.sessions,
        family,
        version,
        withdrawn_by=actor(staff),
        reason=body.reason,
        via="staff API",
    )
    return WithdrawalOut(
        family=family,
        version=version,
        changed=done.changed,
        follow_ups_created=done.created,
        follow_ups_existing=done.existing,
    )
