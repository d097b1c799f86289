"""Test helpers: a live uvicorn server for the real app, scripted pydantic-ai models, a seeded
database, the agent's command line, the real wordings the import tests read, an insurer's JWKS
endpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import Engine
from sqlalchemy.orm import sessionmaker

from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.seed import seed_policies
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.store import ObjectStore
from tests.servers import POOL, PooledServer

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class LiveServer:
    """An app served over HTTP on loopback for one test (or module): mounted on a pooled
    server (tests/servers.py) until `stop`."""

    app: FastAPI
    url: str
    pooled: PooledServer

    def client(self, token: str | None = None, *, timeout: float = 30) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)

    def stop(self) -> None:
        POOL.give_back(self.pooled)


def serve(app: FastAPI) -> LiveServer:
    pooled = POOL.take()
    try:
        pooled.mount(app)
    except BaseException:
        POOL.give_back(pooled)
        raise
    return LiveServer(app, pooled.url, pooled)


# Scripted models --------------------------------------------------------------------------

Step = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def tool_returned(messages: list[ModelMessage]) -> dict | None:
    """The latest resolve_clauses result in this run, if any."""
    for message in reversed(messages):
        for part in getattr(message, "parts", []):
            if isinstance(part, ToolReturnPart) and part.tool_name == "resolve_clauses":
                return part.content if isinstance(part.content, dict) else None
            if part.part_kind == "user-prompt":
                return None
    return None


def scripted(*steps: dict[str, Any] | list[str] | str, name: str = "scripted") -> FunctionModel:
    """A model that plays the given steps in order, one per model request.

    A list of IDs calls resolve_clauses; a dict is the final reply; "error" raises.
    """
    queue = list(steps)
    seen: list[list[ModelMessage]] = []

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        step = queue.pop(0)
        if step == "error":
            raise ConnectionError("model provider unreachable")
        if isinstance(step, list):
            return ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": step})])
        if isinstance(step, str):
            return ModelResponse(parts=[TextPart(step)])
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, step)])

    model = FunctionModel(play, model_name=name)
    model.seen = seen  # type: ignore[attr-defined]
    model.remaining = queue  # type: ignore[attr-defined]
    return model


def answer(text: str, *points: tuple[str, str], **fields: Any) -> dict[str, Any]:
    """A selection answering with these (clause ID, span) points. `text` is the model's own
    words, sent as the lead: only the explained style may show it, after the checks."""
    return {
        "outcome": "answered",
        "points": [{"clause_id": c, "span": q} for c, q in points],
        "lead": text,
        **fields,
    }


def route(text: str, question: str, reason: str = "no_clause_selected") -> dict[str, Any]:
    """A selection routing to staff; the model's text and question are never shown (the runtime
    writes every routed reply), so they go nowhere."""
    return {"outcome": "routed_to_staff", "route_reason": reason}


# The claimant API ---------------------------------------------------------------------------


def post_message(live: LiveServer, claim_id: str, text: str) -> dict:
    """A claimant's message on their claim, with its development token: the turn's reply (200)."""
    from tests.conftest import TOKENS

    with live.client(TOKENS[claim_id]) as client:
        response = client.post(f"/claims/{claim_id}/messages", json={"text": text})
    assert response.status_code == 200, response.text
    return response.json()


# Databases ---------------------------------------------------------------------------------


def seeded_database(database_url: str) -> tuple[Engine, sessionmaker]:
    """An engine on this database, migrated to head, and its sessions, with the development
    policies seeded: the start of a test that writes its own rows."""
    engine = make_engine(database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    return engine, sessions


# Processes ---------------------------------------------------------------------------------


def process_env(database_url: str, store: ObjectStore, **settings: str) -> dict[str, str]:
    """The environment of a clausedesk process a test starts: this database and store, and any
    other settings given by their CLAUSEDESK_ names."""
    keys = store.settings
    return dict(
        os.environ,
        CLAUSEDESK_DATABASE_URL=database_url,
        CLAUSEDESK_S3_ENDPOINT=keys.endpoint,
        CLAUSEDESK_S3_BUCKET=keys.bucket,
        CLAUSEDESK_S3_ACCESS_KEY=keys.access_key,
        CLAUSEDESK_S3_SECRET_KEY=keys.secret_key,
        **settings,
    )


def run_agent(
    *args: str, env: dict[str, str], stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python -m agent ARGS` from the repository root in this environment, its output kept as
    text for the test to read."""
    return subprocess.run(
        [sys.executable, "-m", "agent", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def wait_until(condition: Callable[[], object], timeout: float, interval: float = 0.05) -> None:
    """Polls `condition` every `interval` seconds until it holds; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(interval)


# Real wordings -----------------------------------------------------------------------------

# The real wordings are not in the repository: CI has them beside its clone (../shared/wordings),
# CLAUSEDESK_WORDINGS names them anywhere else. Where CI runs or that variable is set, a missing
# one fails the run; in a bare clone the tests that need them are not run, and the run's summary
# says how many and how to point at them (tests/conftest.py).
WORDINGS_NAMED = os.environ.get("CLAUSEDESK_WORDINGS") or None
WORDINGS = Path(WORDINGS_NAMED or ROOT.parent / "shared" / "wordings")
WORDINGS_REQUIRED = WORDINGS_NAMED is not None or bool(os.environ.get("CI"))
NOT_HERE = "the real wordings are not here"  # the reason of such a test's skip, counted at the end


def wording(name: str) -> Path:
    """A real wording by file name, read where it lies (never copied into the repository)."""
    path = WORDINGS / name
    if not path.exists():
        if WORDINGS_REQUIRED:
            pytest.fail(
                f"{path} is missing: CLAUSEDESK_WORDINGS (or CI's ../shared/wordings) must hold the wordings"
            )
        pytest.skip(f"{NOT_HERE}: {path}")
    return path


def first_sentence(store: ObjectStore, directory: Directory, clause_id: str, having: str = "") -> str:
    """The clause's first line of six words or more (holding `having`), as a model would copy it;
    with no such line and nothing asked of it, the clause's last line."""
    text = ClauseLibrary(store).fetch(directory, [clause_id]).clauses[0].text
    body = text.split("\n", 1)[1] if "\n" in text else text
    lines = [line.strip("-• ").strip() for line in body.splitlines()]
    found = [line for line in lines if len(line.split()) >= 6 and having in line]
    if having and not found:
        pytest.fail(f"{clause_id} has no line of six words or more holding {having!r}")
    return found[0] if found else lines[-1]


# Claimant tokens -------------------------------------------------------------------------------


class JwksServer:
    """An insurer's JWKS endpoint on loopback; `keys` is what it serves now (change it to rotate),
    `hits` how often it was read."""

    def __init__(self, keys: list[dict]) -> None:
        self.keys, self.hits = keys, 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.hits += 1
                body = json.dumps({"keys": outer.keys}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/jwks.json"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
