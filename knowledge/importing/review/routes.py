"""The review page's routes: the parts with their units beside the source, a unit's edits,
the cover matrix row by row, what was removed, and writing the draft.

Each part's units are shown beside the source: an image of each PDF page (pypdfium2,
Apache-2.0/BSD), or the source lines of a Markdown, HTML or DOCX wording.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, TypeVar
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape

from knowledge.importing.accounting import RULES
from knowledge.importing.review.guard import own_path, same
from knowledge.importing.review.state import Review, ReviewRefused
from knowledge.rules import KINDS

_env = Environment(
    loader=PackageLoader("knowledge.importing.review", "templates"), autoescape=select_autoescape()
)
# Lines of a text source shown around a unit's own.
CONTEXT_LINES = 3

T = TypeVar("T")

# PDFium is not thread-safe, and the server renders in a thread pool: one page at a time.
_PDFIUM = threading.Lock()


def page_png(source: str, number: int, scale: float = 1.3) -> bytes:
    with _PDFIUM:
        return _render(source, number, scale)


@lru_cache(maxsize=64)
def _render(source: str, number: int, scale: float) -> bytes:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(source)
    try:
        if not 0 < number <= len(pdf):
            raise HTTPException(404, f"{source} has no page {number}")
        image = pdf[number - 1].render(scale=scale).to_pil()
        out = io.BytesIO()
        image.save(out, "PNG", optimize=False)
        return out.getvalue()
    finally:
        pdf.close()


def applicability(unit: dict) -> str:
    """What an owner judges in an applies line: plans and schedule entries (links are drafted
    from the text and checked by validation)."""
    parts = [f"plans: {' | '.join(unit['plans'])}"] if unit["plans"] else []
    for key in ("added_by", "removed_by", "changed_by"):
        if unit[key]:
            parts.append(f"{key.replace('_', ' ')}: {', '.join(unit[key])}")
    return "; ".join(parts)


@dataclass(frozen=True)
class Served:
    """What the app serves (kept as `app.state.served`): the review, the forms' CSRF token,
    and the source's lines when it is not a PDF."""

    review: Review
    csrf: str
    is_pdf: bool
    lines: list[str]

    def page(self, name: str, **context: object) -> HTMLResponse:
        review = self.review
        html = _env.get_template(name).render(
            review=review,
            report=review.report,
            progress=review.progress(),
            source=review.source,
            applies=applicability,
            csrf=self.csrf,
            estimate=review.estimate(),
            **context,
        )
        return HTMLResponse(html)

    def source_of(self, units: list[dict]) -> dict[str, object]:
        """The source beside the units: their PDF pages, or their lines with a few around."""
        if self.is_pdf:
            return {
                "pages": sorted(
                    {p for u in units for p in u.get("pages") or ([u["page"]] if u["page"] else [])}
                )
            }
        lines = self.lines
        wanted = sorted({n for u in units for n in u.get("lines", [])})
        if not wanted:
            return {"pages": [], "lines": ""}
        shown = sorted(
            {
                k
                for n in wanted
                for k in range(n - CONTEXT_LINES, n + CONTEXT_LINES + 1)
                if 0 < k <= len(lines)
            }
        )
        return {"pages": [], "lines": "\n".join(f"{k:>5}  {lines[k - 1]}" for k in shown)}


def _served(request: Request) -> Served:
    return request.app.state.served


Serving = Annotated[Served, Depends(_served)]


def check_csrf(served: Serving, token: str = Form("", alias="csrf")) -> None:
    if not same(token, served.csrf):
        raise HTTPException(403, "refused: the form's CSRF token is missing or wrong; reload the page")


guarded = [Depends(check_csrf)]
router = APIRouter()


def back(to: str) -> RedirectResponse:
    return RedirectResponse(own_path(to), status_code=303)


def refused(to: str, exc: ReviewRefused) -> RedirectResponse:
    """Back to the page `to`, which says why the change was refused."""
    return RedirectResponse(f"{to}?{urlencode({'error': str(exc)})}", status_code=303)


def nth(items: Sequence[T], index: int, what: str) -> T:
    """The item a page names by its position in a list; 404 for a position the list lacks."""
    if not 0 <= index < len(items):
        raise HTTPException(404, f"no such {what}")
    return items[index]


def _matrix_list(review: Review, name: str) -> list:
    """A list of the import report's cover matrix (its rows, its unread tables)."""
    return review.report.get("matrix", {}).get(name, [])


@router.get("/", response_class=HTMLResponse)
def index(served: Serving, result: str = "") -> HTMLResponse:
    return served.page("index.html", parts=served.review.parts(), rules=RULES, result=result)


@router.get("/part/{index}", response_class=HTMLResponse)
def part(served: Serving, index: int) -> HTMLResponse:
    review = served.review
    shown = nth(review.parts(), index, "part")
    units = review.units_of(shown)
    return served.page(
        "part.html",
        part=shown,
        index=index,
        units=units,
        flagged=review.flagged(),
        key_of=review.decision_key,
        group_of=review.group_of,
        **served.source_of(units),
    )


@router.post("/part/{index}/accept", dependencies=guarded)
def accept_part(served: Serving, index: int) -> RedirectResponse:
    accepted = nth(served.review.parts(), index, "part")
    served.review.decide(f"part:{accepted}", decision="accepted")
    return back(f"/part/{index}")


@router.get("/unit/{unit_id}", response_class=HTMLResponse)
def unit(served: Serving, unit_id: str, error: str = "") -> HTMLResponse:
    review = served.review
    found = next((u for u in review.report["units"] if u["id"] == unit_id), None)
    if found is None:
        raise HTTPException(404, f"no unit {unit_id}")
    edit = review.decisions.get("edits", {}).get(unit_id)
    mended = review.decisions.get("text_edits", {}).get(unit_id)
    return served.page(
        "unit.html",
        unit=found,
        edit=edit,
        body=mended["to"] if mended else review.body_of(unit_id),
        mended=mended,
        kind=review.decisions.get("kinds", {}).get(unit_id) or unit_id.split("-")[1],
        kinds=KINDS,
        why=review.flagged().get(unit_id, ""),
        error=error,
        **served.source_of([found]),
    )


@router.post("/unit/{unit_id}", dependencies=guarded)
def decide_unit(
    served: Serving,
    unit_id: str,
    action: str = Form(...),
    title: str = Form(""),
    applies: str = Form(""),
    text: str = Form(""),
    kind: str = Form(""),
    back_to: str = Form("/", alias="back"),
) -> Response:
    review = served.review
    try:
        if action == "save":
            review.edit_unit(unit_id, title, applies)
        elif action == "text":
            review.edit_text(unit_id, text)
        elif action == "kind":
            review.change_kind(unit_id, kind)
        elif action == "accept":
            review.decide(review.decision_key(unit_id), decision="accepted")
        else:
            raise HTTPException(400, f"unknown action {action!r}")
    except ReviewRefused as exc:
        return refused(f"/unit/{unit_id}", exc)
    return back(back_to)


@router.get("/matrix", response_class=HTMLResponse)
def matrix(served: Serving, error: str = "") -> HTMLResponse:
    review = served.review
    m = review.report.get("matrix", {})
    cells = {(c["row"], c["column"]): c for c in m.get("cells", [])}
    columns = list(dict.fromkeys(c["column"] for c in m.get("cells", [])))
    units = [{"page": c["page"], "lines": [c["line"]] if c["line"] else []} for c in m.get("cells", [])]
    return served.page(
        "matrix.html",
        matrix=m,
        cells=cells,
        columns=columns,
        rows=review.matrix_rows(),
        levels=review.levels(),
        names=review.level_names(),
        values=["", "included", "not included", "optional", "limited"],
        kinds=["cover", "liability", "option", "exclusion", "excess"],
        error=error,
        **served.source_of(units),
    )


@router.post("/matrix/{index}/accept", dependencies=guarded)
def accept_row(served: Serving, index: int) -> RedirectResponse:
    row = nth(_matrix_list(served.review, "rows"), index, "row")
    served.review.decide(f"matrix:{row}", decision="accepted")
    return back("/matrix")


async def row_form(review: Review, request: Request) -> tuple[str, str, dict[str, str], str]:
    form = await request.form()
    levels = review.levels()
    cells = {lv: str(form.get(f"cell{n}", "")) for n, lv in enumerate(levels)}
    return str(form.get("name", "")), str(form.get("kind", "")), cells, str(form.get("units", ""))


@router.post("/matrix/{index}/edit", dependencies=guarded)
async def edit_row(served: Serving, index: int, request: Request) -> Response:
    review = served.review
    form = await request.form()
    try:
        if form.get("action") == "delete":
            review.delete_row(index)
        else:
            review.edit_row(index, *(await row_form(review, request)))
    except ReviewRefused as exc:
        return refused("/matrix", exc)
    return back("/matrix")


@router.post("/matrix/add", dependencies=guarded)
async def add_row(served: Serving, request: Request) -> Response:
    try:
        served.review.add_row(*(await row_form(served.review, request)))
    except ReviewRefused as exc:
        return refused("/matrix", exc)
    return back("/matrix")


@router.post("/levels/rename", dependencies=guarded)
def rename_level(served: Serving, old: str = Form(...), new: str = Form(...)) -> Response:
    try:
        served.review.rename_level(old, new)
    except ReviewRefused as exc:
        return refused("/matrix", exc)
    return back("/matrix")


@router.post("/unread/{index}/accept", dependencies=guarded)
def accept_unread(served: Serving, index: int) -> Response:
    nth(_matrix_list(served.review, "unread"), index, "unread row")  # 404 for a row not there
    served.review.decide(f"unread:{index}", decision="noted")
    return back("/matrix")


@router.post("/removals/accept", dependencies=guarded)
def accept_removals(served: Serving) -> RedirectResponse:
    served.review.decide("removals", decision="accepted")
    return back("/")


@router.post("/write", response_class=HTMLResponse, dependencies=guarded)
def write(served: Serving) -> HTMLResponse:
    path, result = served.review.write()
    return served.page("index.html", parts=served.review.parts(), rules=RULES, result=f"{path}: {result}")


@router.get("/page/{number}.png")
def page_image(served: Serving, number: int) -> Response:
    if not served.is_pdf:
        raise HTTPException(404, "the source is not a PDF")
    return Response(page_png(str(served.review.source), number), media_type="image/png")
