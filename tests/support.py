"""Test helpers: a live uvicorn server for the real app, scripted pydantic-ai models, and the
real wordings the import tests read."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.servers import POOL, PooledServer


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


# Real wordings -----------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
# CI has the wordings beside its clone; CLAUSEDESK_WORDINGS names them elsewhere (a worktree).
WORDINGS = Path(os.environ.get("CLAUSEDESK_WORDINGS", ROOT.parent / "shared" / "wordings"))


def wording(name: str) -> Path:
    """A real wording by file name, read where it lies (never copied into the repository)."""
    path = WORDINGS / name
    if not path.exists():
        pytest.fail(f"{path} is missing: the import tests need ../shared/wordings beside the clone")
    return path
