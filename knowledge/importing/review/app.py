"""The review page of an import, served on this machine for the policy owner:
`python -m knowledge review drafts/motor/2026.1.md [--port 8765]`.

Only the policy owner's browser can drive it: it listens on loopback only, answers only a
loopback Host (no DNS rebinding), and every request needs the secret key printed in its
address (kept as a SameSite=Strict cookie after the first visit); every state-changing
request also needs the form's CSRF token and a same-origin Origin, and redirects go only to
its own paths (see `guard`). Another web page open in the same browser can neither read nor
change it.

The owner accepts or edits the drafted titles and applies lines beside the source, checks
the units that need a look of their own, the cover matrix row by row and what was removed;
then writes the draft and sees it validate (the pages: `routes`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from pathlib import Path

from fastapi import FastAPI

from knowledge.importing.cover_matrix import source_lines
from knowledge.importing.review.guard import guard
from knowledge.importing.review.routes import Served, router
from knowledge.importing.review.state import ReviewRefused, open_review

DEFAULT_PORT = 8765


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
    is_pdf = review.source.suffix.lower() == ".pdf"
    app.state.served = Served(review, csrf, is_pdf, [] if is_pdf else source_lines(review.source))
    app.middleware("http")(guard)
    app.include_router(router)
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


__all__ = ["DEFAULT_PORT", "create_app", "serve"]
