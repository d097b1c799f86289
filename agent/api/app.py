"""The FastAPI application: wiring of settings, database, knowledge store and model."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel
from pydantic_ai.models import Model
from sqlalchemy import text

from agent.api import claims, staff, staff_pages, wording, wording_pages
from agent.api.deps import Services
from agent.api.middleware import RequestGuard, SecurityHeaders
from agent.api.rendering import TEMPLATES
from agent.api.schemas import error_responses
from agent.api.throttle import Throttle
from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.models.selection import build_model, warm_up
from agent.production import check_production
from agent.settings import Settings, get_settings
from agent.turn.runner import ClaimNotFound, TurnRunner
from knowledge.clauses import ClauseLibrary
from knowledge.errors import KnowledgeError
from knowledge.manifest import Registry
from knowledge.store import ObjectStore


class HealthOut(BaseModel):
    database: str
    knowledge: str
    model: str


def create_app(
    settings: Settings | None = None, *, model: Model | None = None, store: ObjectStore | None = None
) -> FastAPI:
    settings = settings or get_settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    # Production refuses development secrets and accounts before serving anything.
    check_production(settings, sessions)
    store = store or ObjectStore(settings.store)
    warm_up(settings)  # litellm's import (seconds) at start-up, not in the first turn
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
    app.state.throttle = Throttle(settings)
    # Outermost last: security headers wrap even the guard's own refusals.
    app.add_middleware(RequestGuard, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders, hsts=settings.production)
    app.include_router(claims.router)
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

    @app.get(
        "/health",
        tags=["system"],
        response_model=HealthOut,
        responses={
            503: {"model": HealthOut, "description": "the database or the knowledge store is down"},
            **error_responses(400, 413),
        },
    )
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
