"""The staff page of one waiting-list item: its claim, conversation, draft and answer form."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from sqlalchemy import select

from agent.answering.bar import Bar
from agent.answering.held import why_drafted
from agent.api.deps import LibraryDep, SessionDep
from agent.api.staff import detail_of, draft_of
from agent.api.staff_web import Visitor, VisitorDep, render
from agent.boundary.citation import Citation
from agent.db.tables import Turn
from agent.staff import answer_citations, drafts, presend, waiting_list
from knowledge.clauses import ClauseLibrary

router = APIRouter(prefix="/staff", include_in_schema=False)

DONE = {
    "answered_unchecked": "Your answer was added to the claimant's conversation, but the pre-send check "
    "could not run; the warning is recorded on the item.",
    "drafted": "A draft was composed from the wording that governs the claim now; edit it before you send.",
    "taken": "You have taken this item.",
    "released": "You released this item; it is back on the list.",
    "answered": "Your answer was added to the claimant's conversation.",
    "closed": "The item is closed.",
    "flagged": "The answer is recorded as wrong against every clause it quoted.",
    "confirmed": "The claimant's report is recorded as evidence against every clause the answer quoted.",
    "verdict": "The verdict on the draft is corrected.",
}
# Citation rows on the answer form: at least one per clause an answer may quote, one more than
# the draft fills, never more quotes than the API takes.
CITATION_ROWS = answer_citations.MAX_ANSWER_CLAUSES
MAX_ROWS = answer_citations.MAX_CITATIONS


def show_item(
    request: Request,
    visitor: Visitor,
    db: SessionDep,
    library: ClauseLibrary,
    item_key: str,
    *,
    error: str | None = None,
    status: int = 200,
    form: dict | None = None,
    stale: list[str] | None = None,
    notice: str | None = None,
) -> HTMLResponse:
    """The item; `form` keeps what the handler typed (and the basis it was typed on) when a
    send is refused; `stale` lists why a send was stale."""
    item = find_or_404(db, item_key)
    view = waiting_list.item_view(db, item, library)
    now = presend.basis_now(db, library, item)
    draft = drafts.draft_on_first_open(db, library, item)
    shown = None if draft is None else draft_of(db, draft, drafts.draft_stale(db, library, item, draft))
    detail = detail_of(db, view, now, shown)
    form = dict(form or {})
    if draft is not None and "text" not in form:
        # The draft fills the form, on the basis it was made from: sent stale, the check says why.
        form.update(
            text=draft.text,
            citations=[(c.clause_id, c.quote) for c in Citation.all_of(draft.citations)],
            basis=drafts.draft_basis(draft),
        )
    # A refused send keeps the basis it was written on; a fresh page is written on now.
    form.setdefault("basis", now[0])
    citations = list(form.get("citations") or [])[:MAX_ROWS]
    rows = min(max(CITATION_ROWS, len(citations) + 1), MAX_ROWS)
    form["citations"] = citations + [("", "")] * (rows - len(citations))
    clauses = drafts.read_clauses(
        library, view.policy, view.term, drafts.clause_ids_of(view.turn, view.withdrawn, draft)
    )
    # The replies that served an answer quoting the wording: those a handler can flag as wrong.
    turn_ids = [m.turn_id for m in view.conversation if m.role == "agent" and m.turn_id]
    served = db.scalars(
        select(Turn.id).where(Turn.id.in_(turn_ids), Turn.outcome.like("answered%"), Turn.citations_verified)
    ).all()
    context = {
        "d": detail,
        "why_drafted": why_drafted(db, view.turn, Bar.of(request.app.state.services.settings)),
        "served_turns": set(served),
        "done": notice or DONE.get(request.query_params.get("done", "")),
        "error": error,
        "form": form,
        "stale": stale or [],
        "clauses": clauses,
        "max_clauses": answer_citations.MAX_ANSWER_CLAUSES,
        "max_rows": MAX_ROWS,
    }
    return render(request, "staff_item.html", context, visitor, status)


@router.get("/items/{item_key}", response_class=HTMLResponse)
def item_page(
    request: Request, item_key: str, visitor: VisitorDep, db: SessionDep, library: LibraryDep
) -> HTMLResponse:
    return show_item(request, visitor, db, library, item_key)


def find_or_404(db: SessionDep, item_key: str):  # type: ignore[no-untyped-def]
    try:
        return waiting_list.find_item(db, item_key)
    except waiting_list.ItemNotFound as exc:
        raise HTTPException(404, str(exc)) from exc
