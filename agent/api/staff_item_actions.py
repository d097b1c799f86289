"""The actions on the staff page of an item: take, release, answer, send the draft, rebuild or
make a draft, close, and the evidence a handler records. Each goes back to the item page."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from agent.answering.bar import Bar
from agent.api.deps import LibraryDep, Services, ServicesDep, SessionDep
from agent.api.staff_item_page import CITATION_ROWS, MAX_ROWS, find_or_404, show_item
from agent.api.staff_web import PostingVisitor, Visitor
from agent.boundary.citation import Citation, Quote
from agent.db.tables import StaffUser, Turn, WaitingItem
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
STALE = "Not sent: things changed since this answer was written. Rebuild it from what holds now."


@dataclass(frozen=True)
class ItemForm:
    """A form posted from an item's page: the item page again when it is refused, the item
    (POST/redirect/GET) when it is done."""

    request: Request
    visitor: Visitor
    db: Session
    svc: Services
    library: ClauseLibrary
    item_key: str

    @property
    def staff(self) -> StaffUser:
        return self.visitor.staff

    def bar(self) -> Bar:
        return Bar.of(self.svc.settings)

    def item(self) -> WaitingItem:
        return find_or_404(self.db, self.item_key)

    def show(self, **shown: Any) -> HTMLResponse:
        """The item page again, with what `show_item` takes: why the form was refused and its
        status, what was typed, a notice."""
        return show_item(self.request, self.visitor, self.db, self.library, self.item_key, **shown)

    def to_item(self, item: WaitingItem, done: str) -> RedirectResponse:
        return RedirectResponse(f"/staff/items/{item.reference}?done={done}", status_code=303)

    def act(self, done: str, action: Callable[[int], object], form: dict | None = None) -> Response:
        """Run one staff action on the item; a refusal shows the item again with the reason and
        what was typed."""
        db = self.db
        try:
            item = waiting_list.find_item(db, self.item_key)
            result = action(item.id)
        except waiting_list.ItemNotFound as exc:
            raise HTTPException(404, str(exc)) from exc
        except waiting_list.Stale as exc:
            db.rollback()
            return self.show(error=STALE, status=409, form=form, stale=exc.reasons)
        except waiting_list.ItemConflict as exc:
            db.rollback()
            return self.show(error=str(exc), status=409, form=form)
        except waiting_list.CitationRefused as exc:
            db.rollback()
            message = f"Citation refused: {exc}. Not sent: your text is kept below."
            return self.show(error=message, status=422, form=form)
        except waiting_list.Unsendable as exc:
            db.rollback()
            return self.show(error=f"Not sent: {exc}.", status=422, form=form)
        except KnowledgeError as exc:
            db.rollback()
            message = f"The policy wording cannot be read right now ({type(exc).__name__}); try again."
            return self.show(error=message, status=503, form=form)
        if getattr(result, "send_check", None) == presend.UNAVAILABLE:
            done = "answered_unchecked"
        return self.to_item(item, done)

    def record(self, done: str, action: Callable[[], object]) -> Response:
        """Record evidence from the item page; refusals show the item again with the reason."""
        try:
            action()
            self.db.commit()
        except (answer_evidence.NotEvidence, holding.NotHolder) as exc:
            self.db.rollback()
            return self.show(error=str(exc), status=409)
        return self.to_item(self.item(), done)


async def _item_form(
    request: Request,
    item_key: str,
    visitor: PostingVisitor,
    db: SessionDep,
    svc: ServicesDep,
    library: LibraryDep,
) -> ItemForm:
    return ItemForm(request, visitor, db, svc, library, item_key)


Posted = Annotated[ItemForm, Depends(_item_form)]


@dataclass(frozen=True)
class EvidenceChoice:
    """The evidence fields of the answer and send-draft forms, as the handler left them."""

    record: str  # "decline": the handler records nothing
    keep_question: str
    question: str

    def keep(self, draft_wrong: bool = False) -> answer_evidence.Keep:
        """What to keep as evidence: the claimant's words only when the box is ticked."""
        return answer_evidence.Keep(
            record=self.record != "decline",
            question=self.question if self.keep_question == "yes" and self.question.strip() else None,
            draft_wrong=draft_wrong,
        )


async def _evidence_choice(
    evidence: Annotated[str, Form(max_length=10)] = "record",
    keep_question: Annotated[str, Form(max_length=10)] = "",
    question: Annotated[str, Form(max_length=answer_evidence.MAX_QUESTION)] = "",
) -> EvidenceChoice:
    return EvidenceChoice(evidence, keep_question, question)


EvidenceFields = Annotated[EvidenceChoice, Depends(_evidence_choice)]


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
def take(page: Posted) -> Response:
    return page.act("taken", lambda i: item_states.take(page.db, i, page.staff))


@router.post("/items/{item_key}/release")
def release(page: Posted) -> Response:
    return page.act("released", lambda i: item_states.release(page.db, i, page.staff))


@router.post("/items/{item_key}/answer")
def answer(
    page: Posted,
    evidence: EvidenceFields,
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
    draft_wrong: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    # Emptied rows are no citations: only rows with a clause ID or a quote count.
    rows = [(c, q) for c, q in zip(clause_id, quote, strict=False) if c.strip() or q.strip()]
    basis = _basis_of_form(basis_message, basis_family, basis_version, basis_hash, basis_status)
    form = {"text": text[:MAX_TEXT], "citations": rows[:MAX_ROWS], "basis": basis}
    problem = _form_problem(text, rows)
    if problem:
        return page.show(error=problem, status=422, form=form)
    if basis is None or not basis_status:
        message = "The form lost what it was written on; reload the item and write the answer again."
        form.pop("basis")
        return page.show(error=message, status=422, form=form)
    if not text.strip():
        return page.show(error="Write an answer first.", status=422, form=form)
    if any(bool(c.strip()) != bool(q.strip()) for c, q in rows):
        message = "To cite a clause, give both its clause ID and a quote from it (or neither)."
        return page.show(error=message, status=422, form=form)
    citations = [Quote(c.strip(), q) for c, q in rows if c.strip()]
    keep = evidence.keep(draft_wrong == "yes")
    return page.act(
        "answered",
        lambda i: answering.answer(
            page.db, page.library, i, page.staff, text.strip(), citations, basis, bar=page.bar(), keep=keep
        ),
        form,
    )


@router.post("/items/{item_key}/send-draft")
def send_draft(
    page: Posted,
    evidence: EvidenceFields,
    draft_id: Annotated[str, Form(max_length=12)] = "",
    model_words: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    """Send the draft as drafted in one action, when it is the latest and passes the pre-send
    check; the claimant's words are kept as the form beside the button shows them."""
    keep = evidence.keep()
    wanted = int(draft_id) if draft_id.isascii() and draft_id.isdigit() else 0

    def send(item_id: int) -> WaitingItem:
        return drafts.send_as_drafted(
            page.db,
            page.library,
            waiting_list.find_item(page.db, item_id),
            page.staff,
            wanted,
            keep=keep,
            bar=page.bar(),
            model_words_confirmed=model_words == "confirmed",
        )

    form = {"keep_question": evidence.keep_question == "yes", "question": evidence.question}
    return page.act("answered", send, form)


@router.post("/items/{item_key}/verdict")
def correct_verdict(page: Posted, outcome: Annotated[str, Form(max_length=12)] = "") -> Response:
    """Correct the verdict inferred from the item's answer in one click."""
    if outcome not in ("right", "wrong", "irrelevant"):
        return page.show(error="Choose right, wrong or irrelevant.", status=422)
    item = page.item()
    bar = page.bar()
    # Who records it is asked inside the action: a handler who does not hold the item is refused.
    return page.record(
        "verdict",
        lambda: answer_evidence.correct_verdict(
            page.db, item, outcome, by=holding.evidence_author(item, page.staff), bar=bar
        ),
    )


@router.post("/items/{item_key}/rebuild")
def rebuild(page: Posted, text: Annotated[str, Form(max_length=4000)] = "") -> Response:
    """Start again from what holds now: a new draft from the wording governing now (or, when
    none can be composed, a fresh basis for the handler's own text); the unsent text is kept."""
    item = page.item()
    try:
        draft = drafts.redraft(page.db, page.library, item, [], page.staff.username)
    except waiting_list.ItemConflict as exc:
        return page.show(error=str(exc), status=409, form={"text": text})
    except drafts.CannotDraft as exc:
        page.db.rollback()
        notice = (
            f"Rebuilt on what holds now, without a draft ({exc}): "
            "read the conversation again before you send."
        )
        return page.show(form={"text": text, "unsent": text}, notice=notice)
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
    return page.show(form=form, notice=notice)


@router.post("/items/{item_key}/draft")
def draft_from_wording(page: Posted, clause_ids: Annotated[str, Form(max_length=200)] = "") -> Response:
    """A draft for an item whose turn fetched no clauses: from the clause IDs given, or the
    clauses the offline model's directory match picks for the question."""
    item = page.item()
    ids = [c.strip() for c in clause_ids.replace(",", " ").split() if c.strip()][:CITATION_ROWS]
    form = {"clause_ids": clause_ids}
    try:
        drafts.redraft(page.db, page.library, item, ids, page.staff.username)
    except waiting_list.ItemConflict as exc:
        return page.show(error=str(exc), status=409, form=form)
    except drafts.CannotDraft as exc:
        page.db.rollback()
        status = 503 if isinstance(exc, drafts.DraftUnavailable) else 409
        return page.show(error=f"No draft: {exc}.", status=status, form=form)
    return page.to_item(item, "drafted")


@router.post("/items/{item_key}/close")
def close(page: Posted, reason: Annotated[str, Form(max_length=1000)] = "") -> Response:
    form = {"close_reason": reason}
    if not reason.strip():
        return page.show(error="Give a reason for closing without an answer.", status=422, form=form)
    return page.act("closed", lambda i: item_states.close(page.db, i, page.staff, reason.strip()), form)


@router.post("/items/{item_key}/flag")
def flag(page: Posted, turn_id: Annotated[str, Form(max_length=32)] = "") -> Response:
    """Flag a served answer of the item's conversation as wrong."""
    item = page.item()
    turn = page.db.get(Turn, turn_id)
    if turn is None or turn.claim_id != item.claim_id:
        raise HTTPException(404, f"no answer {turn_id[:40]!r} in this conversation")
    by, bar = page.staff.username, page.bar()
    return page.record(
        "flagged",
        lambda: (
            answer_evidence.flag_wrong(page.db, page.library, turn, by=by, question=None, bar=bar),
            corrections.correct(page.db, turn, by=by),
        ),
    )


@router.post("/items/{item_key}/confirm-unhelpful")
def confirm_unhelpful(page: Posted) -> Response:
    """Confirm a claimant's report that an answer did not help."""
    item = page.item()
    bar = page.bar()
    return page.record(
        "confirmed",
        lambda: answer_evidence.confirm_unhelpful(
            page.db, page.library, item, by=holding.evidence_author(item, page.staff), question=None, bar=bar
        ),
    )
