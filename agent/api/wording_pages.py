"""The staff wording page: versions, replies that cited them, release checks and the audit
trail for every staff user; run a check, approve and withdraw for policy owners. Plain
HTML forms with the staff page's session and CSRF token."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from agent.answering.approval import ApprovalError
from agent.answering.bar import Bar
from agent.answering.check_report import CheckReport, Summary
from agent.answering.held import drafted_recently
from agent.api.answering import Desk, answering_of, measure, move_to_answers, move_to_drafts, promote_version
from agent.api.deps import POLICY_OWNER, LibraryDep, Services, ServicesDep, SessionDep, has_role
from agent.api.schemas.answering import PromoteIn, ToAnswersIn, ToDraftsIn
from agent.api.staff_web import PAGE_SIZE, PostingVisitor, Visitor, VisitorDep, page_start, render
from agent.api.wording import actor, run_check
from agent.db.tables import ReleaseCheck
from agent.wording import learning_curve
from agent.wording import lifecycle as wording
from agent.wording.affected import affected
from agent.wording.release_check import render_body
from knowledge.clauses import ClauseLibrary
from knowledge.errors import KnowledgeError, KnowledgeUnavailable

router = APIRouter(prefix="/staff/wording", include_in_schema=False)


@dataclass(frozen=True)
class WordingPage:
    """A request to the wording page, answered with the page (again, when a form is refused)."""

    request: Request
    visitor: Visitor
    svc: Services
    library: ClauseLibrary
    db: Session

    def render(self, *, error: str | None = None, status: int = 200) -> HTMLResponse:
        svc, library, db = self.svc, self.library, self.db
        try:
            manifest, _ = library.registry.read()
            families = wording.overview(db, manifest)
            bar = Bar.of(svc.settings)
            answering = {
                (f.family, v.entry.version): answering_of(db, library, f.family, v.entry.version, bar)
                for f in families
                for v in f.versions
                if v.entry.status != "withdrawn"
            }
            drafted = {key: drafted_recently(db, key[0], key[1], bar) for key in answering}
            curves = {
                (f.family, v.entry.version): learning_curve.points(v.checks, v.entry.content_hash)
                for f in families
                for v in f.versions
            }
        except KnowledgeError as exc:
            families, answering, curves, drafted = [], {}, {}, {}
            name = type(exc).__name__
            error = error or f"The wording registry cannot be read right now ({name}); try again."
            status = 503
        context = {
            "families": families,
            "answering": answering,
            "curves": curves,
            "drafted": drafted,
            "curve_svg": learning_curve.svg,
            "summary_of": Summary.of,  # a stored check's summary, typed as the report's
            "owner": has_role(self.visitor.staff, POLICY_OWNER),
            "done": self.request.query_params.get("done"),
            "error": error,
            "today": date.today().isoformat(),
        }
        return render(self.request, "staff_wording.html", context, self.visitor, status)

    @property
    def desk(self) -> Desk:
        """What an answering action runs with, the visitor acting."""
        return Desk(self.svc, self.library, self.db, self.visitor.staff)

    def not_owner(self) -> HTMLResponse | None:
        """The page refusing (403) anyone but a policy owner; None for a policy owner."""
        if has_role(self.visitor.staff, POLICY_OWNER):
            return None
        message = "Only a policy owner can run release checks, approve or withdraw wording."
        return self.render(error=message, status=403)

    def refused(self, exc: Exception) -> HTMLResponse:
        """The page again with why a form was refused: 422 for clauses approval cannot move, 503
        while the wording store cannot be reached, 409 for anything else."""
        if isinstance(exc, ApprovalError):
            status = 422
        elif isinstance(exc, KnowledgeUnavailable):
            status = 503
        else:
            status = 409
        return self.render(error=str(exc), status=status)


def _viewing(
    request: Request, visitor: VisitorDep, svc: ServicesDep, library: LibraryDep, db: SessionDep
) -> WordingPage:
    return WordingPage(request, visitor, svc, library, db)


def _posting(
    request: Request, visitor: PostingVisitor, svc: ServicesDep, library: LibraryDep, db: SessionDep
) -> WordingPage:
    return WordingPage(request, visitor, svc, library, db)


Viewing = Annotated[WordingPage, Depends(_viewing)]
Posting = Annotated[WordingPage, Depends(_posting)]


@router.get("", response_class=HTMLResponse)
def wording_page(page: Viewing) -> HTMLResponse:
    return page.render()


@router.get("/{family}/{version}/affected", response_class=HTMLResponse)
def affected_page(
    request: Request, family: str, version: str, visitor: VisitorDep, db: SessionDep, offset: str = "0"
) -> HTMLResponse:
    """The agent's replies, the staff answers and the drafts that stood on one version: each
    kind's total and a page of each, oldest first."""
    start = page_start(offset)
    family, version = family[:20], version[:20]
    found = affected(db, family, version, limit=PAGE_SIZE, offset=start)
    here = f"/staff/wording/{quote(family, safe='')}/{quote(version, safe='')}/affected"
    context = {
        "family": family,
        "version": version,
        "found": found,
        "previous": f"{here}?offset={max(start - PAGE_SIZE, 0)}" if start > 0 else None,
        "next": f"{here}?offset={found.next_offset}" if found.next_offset is not None else None,
    }
    return render(request, "staff_affected.html", context, visitor)


@router.get("/checks/{check_id}", response_class=HTMLResponse)
def check_page(request: Request, check_id: str, visitor: VisitorDep, db: SessionDep) -> HTMLResponse:
    check = db.get(ReleaseCheck, check_id)
    if check is None:
        raise HTTPException(404, f"no release check {check_id}")
    report = CheckReport.of(check.report)
    return render(request, "staff_release_check.html", {"r": report, "body": render_body(report)}, visitor)


def _owners_only(post: Callable[..., Response]) -> Callable[..., Response]:
    """A form only a policy owner may post (its `page` argument says who posts it): anyone else
    is shown the page again, refused (403)."""

    @functools.wraps(post)  # FastAPI reads the wrapped route's parameters
    def guarded(*, page: WordingPage, **form: Any) -> Response:
        if (refused := page.not_owner()) is not None:
            return refused
        return post(page=page, **form)

    return guarded


def _done(message: str) -> RedirectResponse:
    return RedirectResponse("/staff/wording?" + urlencode({"done": message}), status_code=303)


@router.post("/{family}/{version}/check")
@_owners_only
def check(
    page: Posting,
    family: str,
    version: str,
    questions: Annotated[str, Form(max_length=6)] = "",
) -> Response:
    limit = questions.strip()
    if limit and not (limit.isascii() and limit.isdigit()):
        message = "Give the number of questions to ask as a whole number, or leave it empty for all."
        return page.render(error=message, status=422)
    try:
        done = run_check(
            page.svc, page.library, page.visitor.staff, family, version, int(limit) if limit else None
        )
    except KnowledgeError as exc:
        return page.refused(exc)
    return RedirectResponse(f"/staff/wording/checks/{done.id}", status_code=303)


@router.post("/{family}/{version}/approve")
@_owners_only
def approve(
    page: Posting,
    family: str,
    version: str,
    check_id: Annotated[str, Form(max_length=20)] = "",
    effective_from: Annotated[str, Form(max_length=10)] = "",
    effective_to: Annotated[str, Form(max_length=10)] = "",
    confirm: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    try:
        start = date.fromisoformat(effective_from)
        end = date.fromisoformat(effective_to) if effective_to.strip() else None
    except ValueError:
        message = "Give the effective dates as YYYY-MM-DD (the end may be left empty)."
        return page.render(error=message, status=422)
    if not check_id or confirm != "yes":
        message = f"Tick the box to confirm you read release check {check_id or '(none)'} before approving."
        return page.render(error=message, status=422)
    try:
        changed, check = wording.approve(
            page.library.registry,
            page.svc.sessions,
            family,
            version,
            effective_from=start,
            effective_to=end,
            approved_by=actor(page.visitor.staff),
            check_id=check_id,
            via="staff page",
        )
    except (wording.ApprovalRefused, KnowledgeError) as exc:
        return page.refused(exc)
    state = "approved" if changed else "was already approved"
    return _done(f"{family} {version} {state} from {start}, citing release check {check.id}.")


@router.post("/{family}/{version}/withdraw")
@_owners_only
def withdraw(
    page: Posting,
    family: str,
    version: str,
    reason: Annotated[str, Form(max_length=1000)] = "",
) -> Response:
    if not reason.strip():
        return page.render(error="Give a reason for the withdrawal.", status=422)
    try:
        done = wording.withdraw(
            page.library.registry,
            page.svc.sessions,
            family,
            version,
            withdrawn_by=actor(page.visitor.staff),
            reason=reason.strip(),
            via="staff page",
        )
    except KnowledgeError as exc:
        return page.refused(exc)
    state = "withdrawn" if done.changed else "was already withdrawn"
    items = f" ({', '.join(done.created)})" if done.created else ""
    return _done(
        f"{family} {version} {state}; {len(done.created)} follow-up items put on the waiting list{items}."
    )


def _clause_ids(text: str) -> list[str]:
    return [c for c in text.replace(",", " ").split() if c]


@router.post("/{family}/{version}/answering/answers")
@_owners_only
def to_answers(
    page: Posting,
    family: str,
    version: str,
    check_id: Annotated[str, Form(max_length=20)] = "",
    clause_ids: Annotated[str, Form(max_length=2000)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
    every: Annotated[str, Form(alias="all", max_length=10)] = "",
) -> Response:
    """Move clauses (or every clause) to answers citing the latest release check of this content."""
    try:
        body = ToAnswersIn(
            clause_ids=_clause_ids(clause_ids), all=every == "yes", check_id=check_id, reason=reason or None
        )
        moved = move_to_answers(page.desk, family, version, body)
    except (ValueError, wording.ApprovalRefused, KnowledgeError) as exc:  # ApprovalError is a ValueError
        page.db.rollback()
        return page.refused(exc)
    below = [c.clause_id for c in moved.changes if c.below_bar]
    note = f" ({', '.join(below)} below the bar, on your reason)" if below else ""
    ids = ", ".join(c.clause_id or "" for c in moved.changes)
    return _done(f"{family} {version}: {ids} now answer claimants{note}.")


@router.post("/{family}/{version}/measure")
@_owners_only
def measure_now(page: Posting, family: str, version: str) -> Response:
    """Measure the version again now: a release check replaying all its evidence."""
    try:
        check = measure(page.desk, family, version)
    except KnowledgeError as exc:
        return page.refused(exc)
    return _done(f"{family} {version} measured again: release check {check.id}.")


@router.post("/{family}/{version}/answering/promote")
@_owners_only
def promote(page: Posting, family: str, version: str) -> Response:
    """Move every clause and rule that meets the bar on the latest measure to answers."""
    try:
        moved = promote_version(page.desk, family, version, PromoteIn())
    except (ValueError, KnowledgeError) as exc:
        page.db.rollback()
        return page.refused(exc)
    ids = ", ".join(c.clause_id or "" for c in moved.changes)
    return _done(f"{family} {version}: {ids or 'nothing new'} meets the bar and now answers claimants.")


@router.post("/{family}/{version}/answering/drafts")
@_owners_only
def to_drafts(
    page: Posting,
    family: str,
    version: str,
    clause_ids: Annotated[str, Form(max_length=2000)] = "",
    reason: Annotated[str, Form(max_length=1000)] = "",
) -> Response:
    """Move clauses back to drafts by hand."""
    try:
        body = ToDraftsIn(clause_ids=_clause_ids(clause_ids), reason=reason)
        moved = move_to_drafts(page.desk, family, version, body)
    except (ValueError, KnowledgeError) as exc:  # ApprovalError is a ValueError
        page.db.rollback()
        return page.refused(exc)
    ids = ", ".join(c.clause_id or "" for c in moved.changes)
    return _done(f"{family} {version}: {ids} back to drafts.")
