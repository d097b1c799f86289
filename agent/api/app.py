"""The FastAPI application: wiring of settings, database, knowledge store and model."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.templating import Jinja2Templates
from pydantic_ai.models import Model
from sqlalchemy import text

from agent.api import claimant, staff, staff_pages, wording, wording_pages
from agent.api.deps import Services
from agent.db import make_engine, make_sessionmaker, upgrade
from agent.models import build_model
from agent.settings import Settings, get_settings
from agent.turn import ClaimNotFound, TurnRunner
from knowledge.clauses import ClauseLibrary
from knowledge.errors import KnowledgeError
from knowledge.manifest import Registry
from knowledge.store import ObjectStore

TEMPLATES = Jinja2Templates(directory=Path(__file__).resolve().parent.parent / "templates")


def create_app(
    settings: Settings | None = None, *, model: Model | None = None, store: ObjectStore | None = None
) -> FastAPI:
    settings = settings or get_settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    store = store or ObjectStore(settings.store)
    runner = TurnRunner(sessions, ClauseLibrary(store), model or build_model(settings), settings)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # Messages a killed process left unanswered are found now and then on a schedule.
        sweep = asyncio.create_task(runner.recover_forever())
        try:
            yield
        finally:
            sweep.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweep

    app = FastAPI(
        lifespan=lifespan,
        title="clausedesk",
        version="0.1.0",
        description="Claim message API and staff waiting list for Kowhai Mutual.",
    )
    app.state.services = Services(settings, sessions, runner)
    app.state.engine = engine
    app.include_router(claimant.router)
    app.include_router(staff.router)
    app.include_router(staff_pages.router)
    app.include_router(wording.router)
    app.include_router(wording_pages.router)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
            problems.append(f"{where}: {err.get('msg', 'invalid')}")
        return JSONResponse(status_code=422, content={"detail": "; ".join(problems)})

    @app.exception_handler(ClaimNotFound)
    async def claim_not_found(_: Request, exc: ClaimNotFound) -> JSONResponse:
        return JSONResponse(status_code=404, content={"detail": f"no claim {exc}"})

    @app.get("/health", tags=["system"])
    def health() -> JSONResponse:
        status = {"database": "ok", "knowledge": "ok", "model": runner.model.model_name}
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except Exception as exc:  # report, don't crash: this is the health page
            status["database"] = f"unavailable: {type(exc).__name__}"
        try:
            Registry(store).read()
        except KnowledgeError as exc:
            status["knowledge"] = f"unavailable: {exc}"
        ok = status["database"] == "ok" and status["knowledge"] == "ok"
        return JSONResponse(status_code=200 if ok else 503, content=status)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def chat_page(request: Request) -> HTMLResponse:
        return TEMPLATES.TemplateResponse(request, "chat.html", {})

    logging.getLogger(__name__).info("clausedesk app ready: model %s", runner.model.model_name)
    return app
