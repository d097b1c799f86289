"""2 Prompt tokens: every request of every inventory turn that fetched clauses, counted as
sent, whole and in parts."""

from __future__ import annotations

import asyncio
import json
import re
import statistics
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent import metrics
from agent.claimant.agent import TOOL, this_run
from agent.evaluation.bench.measuring import percentile
from agent.evaluation.harness import Harness
from agent.evaluation.imported_prompts import prompt_parts
from agent.models.offline import offline_model
from agent.models.tokenizer import tokenizer
from agent.turn.runner import TurnRunner
from agent.wording.questions import load_questions, seeded_claims
from knowledge.clauses import ClauseLibrary
from knowledge.store import ObjectStore

_DIRECTORY = re.compile(r"^Wording [^\n]*\. Clause directory:\n(?:[^\n]+(?:\n|$))*", re.MULTILINE)


def request_tokens(info: AgentInfo, messages: list[ModelMessage], encoding: Any) -> dict[str, int]:
    """One request's tokens as sent, whole and in parts (instructions with the context,
    tool schemas, messages), with the directory inside the instructions and the clauses
    returned inside the messages."""
    counted = {k: len(encoding.encode(v)) for k, v in prompt_parts(info, messages).items()}
    directory = _DIRECTORY.search(info.instructions or "")
    returned = [
        [*p.content["clauses"], *p.content.get("linked", [])]
        for m in this_run(messages)
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == TOOL and isinstance(p.content, dict)
    ]
    clauses = [c for r in returned for c in r]
    return {
        **counted,
        "whole": sum(counted.values()),
        "directory": len(encoding.encode(directory.group(0))) if directory else 0,
        "clauses": len(encoding.encode(json.dumps(clauses, ensure_ascii=False))) if clauses else 0,
    }


def turn_tokens(requests: list[dict[str, int]]) -> dict[str, int]:
    """A turn's figures: its largest request in parts and whole (`total`), the largest request
    sent before any clause came back (`lookup`), the directory and the clauses returned."""
    largest = max(requests, key=lambda r: r["whole"])
    return {
        "instructions": largest["instructions"],
        "tool schemas": largest["tool schemas"],
        "messages": largest["messages"],
        "directory": max(r["directory"] for r in requests),
        "clauses": max(r["clauses"] for r in requests),
        "lookup": max((r["whole"] for r in requests if not r["clauses"]), default=0),
        "total": largest["whole"],
    }


def measure_tokens(
    sessions: Any, store: ObjectStore, database_url: str, questions: int | None = None
) -> dict[str, Any]:
    """Every request of every inventory turn that fetched clauses, counted as sent (the first
    `questions` of the inventory when given: a smoke run's sample)."""
    encoding = tokenizer()
    offline = offline_model()
    requests: list[dict[str, int]] = []

    def recording(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append(request_tokens(info, messages, encoding))
        return offline.function(messages, info)  # type: ignore[misc]

    runner = TurnRunner(
        sessions,
        ClauseLibrary(store),
        FunctionModel(recording, model_name="offline-recorded"),
        purpose=metrics.EVALUATION,
    )
    harness = Harness("http://unused.invalid", database_url)
    claims = seeded_claims()
    counts: list[dict[str, int]] = []

    asked = load_questions()[:questions]

    async def ask_all() -> None:
        for q in asked:
            claim = harness.open_claim(claims[q.policy])
            requests.clear()
            await runner.run(claim.claim_id, q.text)
            if any(r["clauses"] for r in requests):
                counts.append(turn_tokens(requests))

    try:
        asyncio.run(ask_all())
    finally:
        harness.close()
    parts = list(counts[0])
    return {
        "questions": len(asked),
        "lookup_turns": len(counts),
        "mean": {k: round(statistics.mean(c[k] for c in counts), 1) for k in parts},
        "p50": {k: percentile([c[k] for c in counts], 0.5) for k in parts},
        "max": {k: max(c[k] for c in counts) for k in parts},
    }
