"""The FastAPI application: wiring of settings, database, knowledge store and model."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from functools import partial

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi_offline import FastAPIOffline
from pydantic_ai.models import Model
from sqlalchemy import Engine, text
from sqlalchemy.orm import sessionmaker
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from agent import metrics
from agent.answering import retention
from agent.api import (
    answering,
    claims,
    intake,
    staff,
    staff_item_actions,
    staff_item_page,
    staff_list_pages,
    staff_login,
    wording,
    wording_pages,
)
from agent.api import metrics as metrics_route
from agent.api.claimant_tokens import ClaimantTokens
from agent.api.deps import RegistryDep, Services
from agent.api.errors import install_refusals
from agent.api.middleware import DOCS_ASSETS, EvaluationLeaveOut, ForwardedFor, RequestGuard, SecurityHeaders
from agent.api.rendering import TEMPLATES
from agent.api.schemas.claims import MAX_CHARS
from agent.api.schemas.common import HealthOut, error_responses
from agent.db.revision import SchemaNotReady
from agent.db.tables import make_engine, make_sessionmaker, require_current
from agent.events.delivery import Delivery
from agent.models.memory import Memories
from agent.models.selection import warm_up
from agent.production import check_production
from agent.settings import Settings, get_settings
from agent.throttle import Throttle
from agent.turn.runner import TurnRunner
from agent.wording.checkpoints import Checkpoints
from agent.wording.memory_examples import runtime_memory, served_model
from knowledge.clauses import ClauseLibrary
from knowledge.errors import KnowledgeError
from knowledge.store import ObjectStore, on_failure

log = logging.getLogger(__name__)


class NotReadyToServe(SchemaNotReady, SystemExit):
    """The database is not at this code's schema. Also a SystemExit: uncaught, however the app
    was started (`serve`, uvicorn's --factory, another server), the process ends with this one
    line and what to run, not a traceback."""

    def __init__(self, message: str):
        super().__init__(f"clausedesk cannot start: {message}")
        self.code = self.args[0]


HTTP_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


async def forget_forever(sessions: sessionmaker, days: int, every_s: float = 3600.0) -> None:
    """Apply the retention of claimants' kept words at start-up and then every hour."""

    def forget() -> None:
        with sessions.begin() as session:
            retention.forget_older_than(session, days)

    while True:
        try:
            await asyncio.to_thread(forget)
        except Exception:  # a failed pass must not stop the next one
            log.exception("the retention of evidence words failed; the next pass tries again")
        await asyncio.sleep(every_s)


def create_app(
    settings: Settings | None = None,
    *,
    model: Model | None = None,
    store: ObjectStore | None = None,
    memories: Memories | None = None,
) -> FastAPI:
    settings = settings or get_settings()
    engine = _current_engine(settings)
    sessions = make_sessionmaker(engine)
    # Production refuses development secrets and accounts before serving anything.
    check_production(settings, sessions)
    store = store or ObjectStore(settings.store)
    on_failure(metrics.store_error)  # knowledge never imports agent: it tells whoever listens
    warm_up(settings)  # litellm's import (seconds) at start-up, not in the first turn
    # One memory of verified questions per process: the serving gate and the offline model read it.
    memories = memories or runtime_memory(settings, sessions)
    model = model or served_model(settings, sessions, memories)  # as every check builds it
    runner = TurnRunner(sessions, ClauseLibrary(store), model, settings, memories=memories)
    delivery = Delivery(sessions, settings)  # refuses an events URL without its secret
    app = _new_app(settings, _lifespan(settings, sessions, runner, delivery))
    checkpoints = Checkpoints(store, sessions, model, memories, settings)
    checkpoints.listen()
    _keep_state(app, settings, engine, Services(settings, sessions, runner, checkpoints))
    _add_middleware(app, settings)
    _include_routers(app)
    _install_error_handlers(app)
    _add_system_routes(app, settings, engine, runner)
    logging.getLogger(__name__).info("clausedesk app ready: model %s", runner.model.model_name)
    return app


def _current_engine(settings: Settings) -> Engine:
    """The database's engine, once it is at this code's schema (NotReadyToServe otherwise)."""
    engine = make_engine(settings.database_url)
    # Migrations are a deployment step (`python -m agent seed`, or `serve` at start-up), not
    # the app's: an app on a database that is not at this code's revision refuses to start.
    try:
        require_current(engine)
    except SchemaNotReady as exc:
        engine.dispose()
        raise NotReadyToServe(str(exc)) from None
    return engine


def _lifespan(
    settings: Settings, sessions: sessionmaker, runner: TurnRunner, delivery: Delivery
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The background work of a serving process, started with it and stopped with it."""

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Messages a killed process left unanswered are found now and then on a schedule.
        sweep = asyncio.create_task(runner.recover_forever())
        # Events wait in the outbox until a URL is configured; then every process sends them.
        tasks = [sweep, *([asyncio.create_task(delivery.run_forever())] if settings.events_url else [])]
        if settings.evidence_words_days is not None:  # claimants' kept words go after their time
            tasks.append(asyncio.create_task(forget_forever(sessions, settings.evidence_words_days)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            app.state.services.checkpoints.close()

    return lifespan


def _new_app(settings: Settings, lifespan: Callable[[FastAPI], AbstractAsyncContextManager[None]]) -> FastAPI:
    # The interactive viewers (Swagger UI at /docs, ReDoc at /redoc) come from the packaged
    # assets that fastapi-offline ships, served here under DOCS_ASSETS: they work with no
    # internet. Development only; /openapi.json stays in production: it is the contract clients
    # are built from and holds no secret (no example tokens, no internal hosts).
    make_app = FastAPI if settings.production else partial(FastAPIOffline, static_url=DOCS_ASSETS)
    return make_app(
        lifespan=lifespan,
        docs_url=None if settings.production else "/docs",
        redoc_url=None if settings.production else "/redoc",
        title="clausedesk",
        version="0.1.0",
        description="Claim message API and staff waiting list for Kowhai Mutual.",
    )


def _keep_state(app: FastAPI, settings: Settings, engine: Engine, services: Services) -> None:
    app.state.services = services
    app.state.engine = engine
    app.state.throttle = Throttle(settings)
    app.state.claimant_tokens = ClaimantTokens(settings)  # refuses incomplete settings now


def _add_middleware(app: FastAPI, settings: Settings) -> None:
    # Outermost last: security headers wrap even the guard's own refusals.
    app.add_middleware(ForwardedFor, trusted=settings.trusted_proxies)
    app.add_middleware(RequestGuard, max_body_bytes=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders, hsts=settings.production)
    if settings.honours_leave_out:
        app.add_middleware(EvaluationLeaveOut)


def _include_routers(app: FastAPI) -> None:
    app.include_router(claims.router)
    app.include_router(staff.router)
    app.include_router(staff_login.router)
    app.include_router(staff_list_pages.router)
    app.include_router(staff_item_page.router)
    app.include_router(staff_item_actions.router)
    app.include_router(wording.router)
    app.include_router(answering.router)
    app.include_router(wording_pages.router)
    app.include_router(intake.router)
    app.include_router(metrics_route.router)


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid_request(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
            problems.append(f"{where}: {err.get('msg', 'invalid')}")
        return JSONResponse(status_code=422, content={"detail": "; ".join(problems)})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            # Starlette names only the first route that matched the path; a path served by
            # several routes (GET and POST on a claim's messages) allows all their methods.
            allowed = [
                method
                for method in HTTP_METHODS
                if any(
                    route.matches({**request.scope, "method": method})[0] == Match.FULL
                    for route in app.router.routes
                )
            ]
            exc.headers = {**(exc.headers or {}), "Allow": ", ".join(allowed)}
        return await http_exception_handler(request, exc)

    install_refusals(app)


def _add_system_routes(app: FastAPI, settings: Settings, engine: Engine, runner: TurnRunner) -> None:
    """The health check and the claimant's chat page."""

    @app.get(
        "/health",
        tags=["system"],
        response_model=HealthOut,
        responses={
            503: {"model": HealthOut, "description": "the database or the knowledge store is down"},
            **error_responses(400, 413),
        },
    )
    def health(registry: RegistryDep) -> JSONResponse:
        status = {
            "database": "ok",
            "knowledge": "ok",
            "model": runner.model.model_name,
            "throttling": app.state.throttle.shared_status(),
            "instance": settings.instance,
        }
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except Exception as exc:  # report, don't crash: this is the health page
            status["database"] = f"unavailable: {type(exc).__name__}"
        try:
            manifest, _ = registry.read()
            # An empty bucket, or a manifest with nothing approved, answers no question.
            if not any(manifest.approved(family) for family in manifest.families):
                status["knowledge"] = "unavailable: no approved wording in the store"
        except KnowledgeError as exc:
            status["knowledge"] = f"unavailable: {exc}"
        ok = status["database"] == "ok" and status["knowledge"] == "ok"
        return JSONResponse(status_code=200 if ok else 503, content=status)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def chat_page(request: Request) -> HTMLResponse:
        return TEMPLATES.TemplateResponse(request, "chat.html", {"max_chars": MAX_CHARS})
