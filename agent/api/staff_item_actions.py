"""The actions on the staff page of an item: take, release, answer, send the draft, rebuild or
make a draft, close, and the evidence a handler records. Each goes back to the item page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from agent.answering.bar import Bar
from agent.api.deps import LibraryDep, ServicesDep, SessionDep
from agent.api.staff_item_page import CITATION_ROWS, MAX_ROWS, find_or_404, show_item
from agent.api.staff_web import PostingVisitor, Visitor
from agent.boundary.citation import Citation, Quote
from agent.db.tables import Turn, WaitingItem
from agent.staff import (
    answer_evidence,
    answering,
    corrections,
    drafts,
    holding,
    item_states,
    presend,
    waiting_list,
)
from knowledge.clauses import ClauseLibrary
from knowledge.errors import KnowledgeError

router = APIRouter(prefix="/staff", include_in_schema=False)
MAX_TEXT = 4000


def _act(  # type: ignore[no-untyped-def]
    request: Request,
    visitor: Visitor,
    db: SessionDep,
    library: ClauseLibrary,
    item_key: str,
    done: str,
    action,
    form=None,
):
    """Run one staff action; on success go back to the item (POST/redirect/GET), on a
    refusal show the item again with the reason and what was typed."""
    try:
        item = waiting_list.find_item(db, item_key)
        result = action(item.id)
    except waiting_list.ItemNotFound as exc:
        raise HTTPException(404, str(exc)) from exc
    except waiting_list.Stale as exc:
        db.rollback()
        message = "Not sent: things changed since this answer was written. Rebuild it from what holds now."
        return show_item(
            request, visitor, db, library, item_key, error=message, status=409, form=form, stale=exc.reasons
        )
    except waiting_list.ItemConflict as exc:
        db.rollback()
        return show_item(request, visitor, db, library, item_key, error=str(exc), status=409, form=form)
    except waiting_list.CitationRefused as exc:
        db.rollback()
        return show_item(
            request,
            visitor,
            db,
            library,
            item_key,
            error=f"Citation refused: {exc}. Not sent: your text is kept below.",
            status=422,
            form=form,
        )
    except waiting_list.Unsendable as exc:
        db.rollback()
        return show_item(
            request, visitor, db, library, item_key, error=f"Not sent: {exc}.", status=422, form=form
        )
    except KnowledgeError as exc:
        db.rollback()
        message = f"The policy wording cannot be read right now ({type(exc).__name__}); try again."
        return show_item(request, visitor, db, library, item_key, error=message, status=503, form=form)
    if getattr(result, "send_check", None) == presend.UNAVAILABLE:
        done = "answered_unchecked"
    return RedirectResponse(f"/staff/items/{item.reference}?done={done}", status_code=303)


def _basis_of_form(
    message: str, family: str, version: str, content_hash: str, claim_status: str
) -> presend.Basis | None:
    """The hidden basis fields of the answer form; None when they were tampered with."""
    if message and not (message.isascii() and message.isdigit() and len(message) < 19):
        return None
    return presend.Basis(
        int(message) if message else None, family or None, version or None, content_hash or None, claim_status
    )


def _form_problem(text: str, rows: list[tuple[str, str]]) -> str | None:
    """What is wrong with the answer form's size, in words (None: nothing)."""
    if len(text) > MAX_TEXT:
        return f"Not sent: the answer is {len(text)} characters; at most {MAX_TEXT}."
    if len(rows) > MAX_ROWS:
        return f"Not sent: {len(rows)} quotes; an answer carries at most {MAX_ROWS}."
    if any(len(c) > 40 or len(q) > 2000 for c, q in rows):
        return "Not sent: a clause ID is at most 40 characters and a quote at most 2000."
    return None


@router.post("/items/{item_key}/take")
def take(
    request: Request, item_key: str, visitor: PostingVisitor, db: SessionDep, library: LibraryDep
) -> Response:
    return _act(
        request, visitor, db, library, item_key, "taken", lambda i: item_states.take(db, i, visitor.staff)
    )


@router.post("/items/{item_key}/release")
def release(
    request: Request, item_key: str, visitor: PostingVisitor, db: SessionDep, library: LibraryDep
) -> Response:
    return _act(
        request,
        visitor,
        db,
        library,
        item_key,
        "released",
        lambda i: item_states.release(db, i, visitor.staff),
    )


@router.post("/items/{item_key}/answer")
def answer(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
    # Lengths and counts are checked below, so a refusal shows the page with what was typed
    # (a validation error would answer raw JSON and lose the handler's text).
    text: Annotated[str, Form()] = "",
    clause_id: Annotated[list[str], Form()] = [],  # noqa: B006 (FastAPI copies it)
    quote: Annotated[list[str], Form()] = [],  # noqa: B006
    basis_message: Annotated[str, Form(max_length=20)] = "",
    basis_family: Annotated[str, Form(max_length=20)] = "",
    basis_version: Annotated[str, Form(max_length=20)] = "",
    basis_hash: Annotated[str, Form(max_length=64)] = "",
    basis_status: Annotated[str, Form(max_length=20)] = "",
    evidence: Annotated[str, Form(max_length=10)] = "record",
    keep_question: Annotated[str, Form(max_length=10)] = "",
    question: Annotated[str, Form(max_length=answer_evidence.MAX_QUESTION)] = "",
    draft_wrong: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    # Emptied rows are no citations: only rows with a clause ID or a quote count.
    rows = [(c, q) for c, q in zip(clause_id, quote, strict=False) if c.strip() or q.strip()]
    basis = _basis_of_form(basis_message, basis_family, basis_version, basis_hash, basis_status)
    form = {"text": text[:MAX_TEXT], "citations": rows[:MAX_ROWS], "basis": basis}
    problem = _form_problem(text, rows)
    if problem:
        return show_item(request, visitor, db, library, item_key, error=problem, status=422, form=form)
    if basis is None or not basis_status:
        message = "The form lost what it was written on; reload the item and write the answer again."
        form.pop("basis")
        return show_item(request, visitor, db, library, item_key, error=message, status=422, form=form)
    if not text.strip():
        return show_item(
            request, visitor, db, library, item_key, error="Write an answer first.", status=422, form=form
        )
    if any(bool(c.strip()) != bool(q.strip()) for c, q in rows):
        message = "To cite a clause, give both its clause ID and a quote from it (or neither)."
        return show_item(request, visitor, db, library, item_key, error=message, status=422, form=form)
    citations = [Quote(c.strip(), q) for c, q in rows if c.strip()]
    keep = _keep_of_form(evidence, keep_question, question, draft_wrong)
    return _act(
        request,
        visitor,
        db,
        library,
        item_key,
        "answered",
        lambda i: answering.answer(
            db, library, i, visitor.staff, text.strip(), citations, basis, bar=Bar.of(svc.settings), keep=keep
        ),
        form,
    )


def _keep_of_form(evidence: str, keep_question: str, question: str, draft_wrong: str) -> answer_evidence.Keep:
    """The evidence part of the answer form: the claimant's words only when the box is ticked."""
    return answer_evidence.Keep(
        record=evidence != "decline",
        question=question if keep_question == "yes" and question.strip() else None,
        draft_wrong=draft_wrong == "yes",
    )


@router.post("/items/{item_key}/send-draft")
def send_draft(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
    draft_id: Annotated[str, Form(max_length=12)] = "",
    evidence: Annotated[str, Form(max_length=10)] = "record",
    keep_question: Annotated[str, Form(max_length=10)] = "",
    question: Annotated[str, Form(max_length=answer_evidence.MAX_QUESTION)] = "",
    model_words: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    """Send the draft as drafted in one action, when it is the latest and passes the pre-send
    check; the claimant's words are kept as the form beside the button shows them."""
    keep = _keep_of_form(evidence, keep_question, question, "")
    wanted = int(draft_id) if draft_id.isascii() and draft_id.isdigit() else 0

    def send(item_id: int) -> WaitingItem:
        return drafts.send_as_drafted(
            db,
            library,
            waiting_list.find_item(db, item_id),
            visitor.staff,
            wanted,
            keep=keep,
            bar=Bar.of(svc.settings),
            model_words_confirmed=model_words == "confirmed",
        )

    form = {"keep_question": keep_question == "yes", "question": question}
    return _act(request, visitor, db, library, item_key, "answered", send, form)


@router.post("/items/{item_key}/verdict")
def correct_verdict(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
    outcome: Annotated[str, Form(max_length=12)] = "",
) -> Response:
    """Correct the verdict inferred from the item's answer in one click."""
    if outcome not in ("right", "wrong", "irrelevant"):
        return show_item(
            request, visitor, db, library, item_key, error="Choose right, wrong or irrelevant.", status=422
        )
    item = find_or_404(db, item_key)
    bar = Bar.of(svc.settings)
    return _evidence_action(
        request,
        visitor,
        db,
        library,
        item_key,
        "verdict",
        lambda: answer_evidence.correct_verdict(
            db, item, outcome, by=holding.evidence_author(item, visitor.staff), bar=bar
        ),
    )


@router.post("/items/{item_key}/rebuild")
def rebuild(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    library: LibraryDep,
    text: Annotated[str, Form(max_length=4000)] = "",
) -> Response:
    """Start again from what holds now: a new draft from the wording governing now (or, when
    none can be composed, a fresh basis for the handler's own text); the unsent text is kept."""
    item = find_or_404(db, item_key)
    try:
        draft = drafts.redraft(db, library, item, [], visitor.staff.username)
    except waiting_list.ItemConflict as exc:
        return show_item(
            request, visitor, db, library, item_key, error=str(exc), status=409, form={"text": text}
        )
    except drafts.CannotDraft as exc:
        db.rollback()
        notice = (
            f"Rebuilt on what holds now, without a draft ({exc}): "
            "read the conversation again before you send."
        )
        return show_item(
            request, visitor, db, library, item_key, form={"text": text, "unsent": text}, notice=notice
        )
    form = {
        "text": draft.text,
        "citations": [(c.clause_id, c.quote) for c in Citation.all_of(draft.citations)],
        "basis": drafts.draft_basis(draft),
        "unsent": text,
    }
    notice = (
        f"Draft rebuilt from {draft.family} wording {draft.version}: "
        "read it and the conversation before you send."
    )
    return show_item(request, visitor, db, library, item_key, form=form, notice=notice)


@router.post("/items/{item_key}/draft")
def draft_from_wording(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    library: LibraryDep,
    clause_ids: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """A draft for an item whose turn fetched no clauses: from the clause IDs given, or the
    clauses the offline model's directory match picks for the question."""
    item = find_or_404(db, item_key)
    ids = [c.strip() for c in clause_ids.replace(",", " ").split() if c.strip()][:CITATION_ROWS]
    try:
        drafts.redraft(db, library, item, ids, visitor.staff.username)
    except waiting_list.ItemConflict as exc:
        form = {"clause_ids": clause_ids}
        return show_item(request, visitor, db, library, item_key, error=str(exc), status=409, form=form)
    except drafts.CannotDraft as exc:
        db.rollback()
        status = 503 if isinstance(exc, drafts.DraftUnavailable) else 409
        form = {"clause_ids": clause_ids}
        return show_item(
            request, visitor, db, library, item_key, error=f"No draft: {exc}.", status=status, form=form
        )
    return RedirectResponse(f"/staff/items/{item.reference}?done=drafted", status_code=303)


@router.post("/items/{item_key}/close")
def close(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    library: LibraryDep,
    reason: Annotated[str, Form(max_length=1000)] = "",
) -> Response:
    form = {"close_reason": reason}
    if not reason.strip():
        message = "Give a reason for closing without an answer."
        return show_item(request, visitor, db, library, item_key, error=message, status=422, form=form)
    return _act(
        request,
        visitor,
        db,
        library,
        item_key,
        "closed",
        lambda i: item_states.close(db, i, visitor.staff, reason.strip()),
        form,
    )


def _evidence_action(
    request: Request,
    visitor: Visitor,
    db: SessionDep,
    library: ClauseLibrary,
    item_key: str,
    done: str,
    action: Callable[[], object],
) -> Response:
    """Record evidence from the item page; refusals show the item again with the reason."""
    try:
        action()
        db.commit()
    except (answer_evidence.NotEvidence, holding.NotHolder) as exc:
        db.rollback()
        return show_item(request, visitor, db, library, item_key, error=str(exc), status=409)
    item = find_or_404(db, item_key)
    return RedirectResponse(f"/staff/items/{item.reference}?done={done}", status_code=303)


@router.post("/items/{item_key}/flag")
def flag(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
    turn_id: Annotated[str, Form(max_length=32)] = "",
) -> Response:
    """Flag a served answer of the item's conversation as wrong."""
    item = find_or_404(db, item_key)
    turn = db.get(Turn, turn_id)
    if turn is None or turn.claim_id != item.claim_id:
        raise HTTPException(404, f"no answer {turn_id[:40]!r} in this conversation")
    bar = Bar.of(svc.settings)
    return _evidence_action(
        request,
        visitor,
        db,
        library,
        item_key,
        "flagged",
        lambda: (
            answer_evidence.flag_wrong(db, library, turn, by=visitor.staff.username, question=None, bar=bar),
            corrections.correct(db, turn, by=visitor.staff.username),
        ),
    )


@router.post("/items/{item_key}/confirm-unhelpful")
def confirm_unhelpful(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
) -> Response:
    """Confirm a claimant's report that an answer did not help."""
    item = find_or_404(db, item_key)
    bar = Bar.of(svc.settings)
    return _evidence_action(
        request,
        visitor,
        db,
        library,
        item_key,
        "confirmed",
        lambda: answer_evidence.confirm_unhelpful(
            db, library, item, by=holding.evidence_author(item, visitor.staff), question=None, bar=bar
        ),
    )
