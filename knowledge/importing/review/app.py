"""The review page of an import, served on this machine for the policy owner:
`python -m knowledge review drafts/motor/2026.1.md [--port 8765]`.

Only the policy owner's browser can drive it: it listens on loopback only, answers only a
loopback Host (no DNS rebinding), and every request needs the secret key printed in its
address (kept as a SameSite=Strict cookie after the first visit); every state-changing
request also needs the form's CSRF token and a same-origin Origin, and redirects go only to
its own paths. Another web page open in the same browser can neither read nor change it.

Each part's units beside the source: an image of each PDF page (pypdfium2, Apache-2.0/BSD),
or the source lines of a Markdown, HTML or DOCX wording. The owner accepts or edits the
drafted titles and applies lines, checks the units that need a look of their own, the cover
matrix row by row and what was removed; then writes the draft and sees it validate.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import re
import secrets
import threading
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from fastapi import Depends, FastAPI, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape

from knowledge.importing.accounting import RULES
from knowledge.importing.cover_matrix import source_lines
from knowledge.importing.review.state import Review, ReviewRefused, open_review
from knowledge.rules import KINDS

_env = Environment(
    loader=PackageLoader("knowledge.importing.review", "templates"), autoescape=select_autoescape()
)
# Lines of a text source shown around a unit's own.
CONTEXT_LINES = 3
DEFAULT_PORT = 8765
COOKIE = "clausedesk_review"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
# A redirect target of the page's own: one path on this server, never "//host" or "/\\host".
_OWN_PATH = re.compile(r"^/(?![/\\])[\w\-./]*$")


def _hostname(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def own_path(to: str) -> str:
    """A redirect target: the path given if it is one of this page's own, else the start."""
    return to if _OWN_PATH.match(to) else "/"


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


def create_app(draft: Path, key: str | None = None) -> FastAPI:
    """The review app of a draft; `key` is the secret its address carries (made afresh when
    not given; `app.state.entry` is the path to open first, with the key)."""
    review = open_review(draft)
    key = key or secrets.token_urlsafe(24)
    csrf = hmac.new(key.encode(), b"csrf", hashlib.sha256).hexdigest()
    app = FastAPI(title="clausedesk import review", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.key = key
    app.state.entry = f"/?key={key}"
    app.state.draft = str(draft)

    def refuse(why: str) -> Response:
        return PlainTextResponse(f"refused: {why}", status_code=403)

    @app.middleware("http")
    async def guard(request: Request, call_next):  # type: ignore[no-untyped-def]
        if _hostname(request.headers.get("host", "")) not in LOOPBACK:
            return refuse("the review page answers only at 127.0.0.1 or localhost")
        given = request.query_params.get("key")
        if given is not None:
            if not _same(given, key):
                return refuse("that key is not this review's; open the address `knowledge review` printed")
            if request.method == "GET":
                # The key leaves the address bar (and the history) once it is kept as a cookie.
                answer = RedirectResponse(own_path(request.url.path), status_code=303)
                answer.set_cookie(COOKIE, key, httponly=True, samesite="strict", path="/")
                return answer
        elif not _same(request.cookies.get(COOKIE, ""), key):
            return refuse("open the address `knowledge review` printed (it holds the page's key)")
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("origin") or request.headers.get("referer") or ""
            here = f"{request.url.scheme}://{request.headers.get('host', '')}"
            if (
                origin
                and origin != "null"
                and f"{urlsplit(origin).scheme}://{urlsplit(origin).netloc}" != here
            ):
                return refuse("a request from another site")
            if origin == "null" or request.headers.get("sec-fetch-site") in ("cross-site", "same-site"):
                return refuse("a request from another site")
        return await call_next(request)

    def check_csrf(token: str = Form("", alias="csrf")) -> None:
        if not _same(token, csrf):
            raise HTTPException(403, "refused: the form's CSRF token is missing or wrong; reload the page")

    guarded = [Depends(check_csrf)]
    is_pdf = review.source.suffix.lower() == ".pdf"
    lines = [] if is_pdf else source_lines(review.source)

    def page(name: str, **context: object) -> HTMLResponse:
        html = _env.get_template(name).render(
            review=review,
            report=review.report,
            progress=review.progress(),
            source=review.source,
            applies=applicability,
            csrf=csrf,
            estimate=review.estimate(),
            **context,
        )
        return HTMLResponse(html)

    def source_of(units: list[dict]) -> dict[str, object]:
        if is_pdf:
            return {
                "pages": sorted(
                    {p for u in units for p in u.get("pages") or ([u["page"]] if u["page"] else [])}
                )
            }
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

    def back(to: str) -> RedirectResponse:
        return RedirectResponse(own_path(to), status_code=303)

    @app.get("/", response_class=HTMLResponse)
    def index(result: str = "") -> HTMLResponse:
        return page("index.html", parts=review.parts(), rules=RULES, result=result)

    @app.get("/part/{index}", response_class=HTMLResponse)
    def part(index: int) -> HTMLResponse:
        parts = review.parts()
        if not 0 <= index < len(parts):
            raise HTTPException(404, "no such part")
        units = review.units_of(parts[index])
        return page(
            "part.html",
            part=parts[index],
            index=index,
            units=units,
            flagged=review.flagged(),
            key_of=review.decision_key,
            group_of=review.group_of,
            **source_of(units),
        )

    @app.post("/part/{index}/accept", dependencies=guarded)
    def accept_part(index: int) -> RedirectResponse:
        parts = review.parts()
        if not 0 <= index < len(parts):
            raise HTTPException(404, "no such part")
        review.decide(f"part:{parts[index]}", decision="accepted")
        return back(f"/part/{index}")

    @app.get("/unit/{unit_id}", response_class=HTMLResponse)
    def unit(unit_id: str, error: str = "") -> HTMLResponse:
        found = next((u for u in review.report["units"] if u["id"] == unit_id), None)
        if found is None:
            raise HTTPException(404, f"no unit {unit_id}")
        edit = review.decisions.get("edits", {}).get(unit_id)
        mended = review.decisions.get("text_edits", {}).get(unit_id)
        return page(
            "unit.html",
            unit=found,
            edit=edit,
            body=mended["to"] if mended else review.body_of(unit_id),
            mended=mended,
            kind=review.decisions.get("kinds", {}).get(unit_id) or unit_id.split("-")[1],
            kinds=KINDS,
            why=review.flagged().get(unit_id, ""),
            error=error,
            **source_of([found]),
        )

    @app.post("/unit/{unit_id}", dependencies=guarded)
    def decide_unit(
        unit_id: str,
        action: str = Form(...),
        title: str = Form(""),
        applies: str = Form(""),
        text: str = Form(""),
        kind: str = Form(""),
        back_to: str = Form("/", alias="back"),
    ) -> Response:
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
            return RedirectResponse(f"/unit/{unit_id}?{urlencode({'error': str(exc)})}", status_code=303)
        return back(back_to)

    @app.get("/matrix", response_class=HTMLResponse)
    def matrix(error: str = "") -> HTMLResponse:
        m = review.report.get("matrix", {})
        cells = {(c["row"], c["column"]): c for c in m.get("cells", [])}
        columns = list(dict.fromkeys(c["column"] for c in m.get("cells", [])))
        units = [{"page": c["page"], "lines": [c["line"]] if c["line"] else []} for c in m.get("cells", [])]
        return page(
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
            **source_of(units),
        )

    @app.post("/matrix/{index}/accept", dependencies=guarded)
    def accept_row(index: int) -> RedirectResponse:
        rows = review.report.get("matrix", {}).get("rows", [])
        if not 0 <= index < len(rows):
            raise HTTPException(404, "no such row")
        review.decide(f"matrix:{rows[index]}", decision="accepted")
        return back("/matrix")

    async def row_form(request: Request) -> tuple[str, str, dict[str, str], str]:
        form = await request.form()
        levels = review.levels()
        cells = {lv: str(form.get(f"cell{n}", "")) for n, lv in enumerate(levels)}
        return str(form.get("name", "")), str(form.get("kind", "")), cells, str(form.get("units", ""))

    @app.post("/matrix/{index}/edit", dependencies=guarded)
    async def edit_row(index: int, request: Request) -> Response:
        form = await request.form()
        try:
            if form.get("action") == "delete":
                review.delete_row(index)
            else:
                review.edit_row(index, *(await row_form(request)))
        except ReviewRefused as exc:
            return RedirectResponse(f"/matrix?{urlencode({'error': str(exc)})}", status_code=303)
        return back("/matrix")

    @app.post("/matrix/add", dependencies=guarded)
    async def add_row(request: Request) -> Response:
        try:
            review.add_row(*(await row_form(request)))
        except ReviewRefused as exc:
            return RedirectResponse(f"/matrix?{urlencode({'error': str(exc)})}", status_code=303)
        return back("/matrix")

    @app.post("/levels/rename", dependencies=guarded)
    def rename_level(old: str = Form(...), new: str = Form(...)) -> Response:
        try:
            review.rename_level(old, new)
        except ReviewRefused as exc:
            return RedirectResponse(f"/matrix?{urlencode({'error': str(exc)})}", status_code=303)
        return back("/matrix")

    @app.post("/unread/{index}/accept", dependencies=guarded)
    def accept_unread(index: int) -> Response:
        unread = review.report.get("matrix", {}).get("unread", [])
        if not 0 <= index < len(unread):
            raise HTTPException(404, "no such unread row")
        review.decide(f"unread:{index}", decision="noted")
        return back("/matrix")

    @app.post("/removals/accept", dependencies=guarded)
    def accept_removals() -> RedirectResponse:
        review.decide("removals", decision="accepted")
        return back("/")

    @app.post("/write", response_class=HTMLResponse, dependencies=guarded)
    def write() -> HTMLResponse:
        path, result = review.write()
        return page("index.html", parts=review.parts(), rules=RULES, result=f"{path}: {result}")

    @app.get("/page/{number}.png")
    def page_image(number: int) -> Response:
        if not is_pdf:
            raise HTTPException(404, "the source is not a PDF")
        return Response(page_png(str(review.source), number), media_type="image/png")

    return app


def serve(draft: Path, port: int = DEFAULT_PORT) -> int:
    import uvicorn

    try:
        app = create_app(draft)
    except ReviewRefused as exc:
        print(f"error: {exc}")
        return 1
    print(
        f"review of {draft} on port {port} (--port to change; this machine only):\n"
        f"  http://127.0.0.1:{port}{app.state.entry}\n"
        "open that address (it holds the page's secret key); Ctrl-C to stop"
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    return 0


__all__ = ["DEFAULT_PORT", "Review", "create_app", "own_path", "serve"]
