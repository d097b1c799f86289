"""A litellm model string reaches an OpenAI-compatible server through litellm in-process.

The "provider" here is a small fake chat-completions server on loopback that scripts a
tool call and a final reply; everything between (pydantic-ai's OpenAI mapping, the
transport, litellm.acompletion, HTTP) is real.
"""

from __future__ import annotations

import json

import pytest
from fastapi import FastAPI, Request
from pydantic_ai import models

from tests.conftest import TOKENS, use_model
from tests.support import serve

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."


def fake_provider(seen: list[dict]) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def completions(request: Request) -> dict:
        body = await request.json()
        seen.append(body)
        tool_results = [m for m in body["messages"] if m["role"] == "tool"]
        if not tool_results:
            call = {"name": "resolve_clauses", "arguments": json.dumps({"clause_ids": ["MTR-BEN-03"]})}
        else:
            final = next(
                t["function"]["name"] for t in body["tools"] if t["function"]["name"] != "resolve_clauses"
            )
            reply = {"outcome": "answered", "points": [{"clause_id": "MTR-BEN-03", "span": RATE}]}
            call = {"name": final, "arguments": json.dumps(reply)}
        return {
            "id": f"chatcmpl-{len(seen)}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [{"id": f"call_{len(seen)}", "type": "function", "function": call}],
                    },
                }
            ],
            "usage": {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940},
        }

    return app


@pytest.fixture
def provider():
    seen: list[dict] = []
    server = serve(fake_provider(seen))
    yield server, seen
    server.stop()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_litellm_model_string_answers_a_turn(live, provider, monkeypatch) -> None:
    from agent.models.selection import litellm_model

    server, seen = provider
    monkeypatch.setattr(models, "ALLOW_MODEL_REQUESTS", True)
    use_model(
        live,
        litellm_model(
            "openai/clausedesk-fake", api_base=f"{server.url}/v1", api_key="test-key", timeout_s=10
        ),
    )
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": "Can I get a rental car?"}).json()
    assert reply["outcome"] == "answered", reply
    assert RATE in [c["quote"] for c in reply["citations"]]
    assert reply["model"] == "litellm:openai/clausedesk-fake"
    assert len(seen) == 2
    tool = next(t for t in seen[0]["tools"] if t["function"]["name"] == "resolve_clauses")
    assert tool["function"]["parameters"]["properties"]["clause_ids"]["maxItems"] == 3
    system = " ".join(m["content"] for m in seen[0]["messages"] if m["role"] == "system")
    assert "\nMTR-BEN-03 Hire car, rental car" in system  # the directory is in context
