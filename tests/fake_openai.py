"""A misbehaving OpenAI-compatible chat server on loopback, for the real litellm path.

The model name in the request picks the behaviour, so one server serves every test and
concurrent turns never share a script: `litellm_model("hosted_vllm/<behaviour>",
api_base=fake.api_base)` reaches it through litellm as any real server would be reached.

Behaviours (the model name may carry a suffix after `:`, e.g. `good:1`, to keep requests
of different tests apart):

  good            resolve_clauses with a directory ID, then a cited reply (tool, native
                  or prompted output: whichever the request asks for)
  slow            holds the request until the client gives up
  rate_limited    HTTP 429 with Retry-After: 7
  server_error    HTTP 500;  unavailable: HTTP 503;  unauthorized: HTTP 401
  malformed       HTTP 200 whose body is not JSON
  bad_args        resolve_clauses with arguments that are not valid JSON
  outside_id      resolve_clauses with an ID outside the directory, then a routed reply
  four_ids        resolve_clauses with four IDs, every time
  empty           an assistant message with no content and no tool call
  text            plain text where a tool call was required
  no_required     like llama-cpp-python: HTTP 500 when tool_choice is "required",
                  otherwise like good

It records every request it receives (model, tool_choice, response_format, tools).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from tests.support import LiveServer, serve

DIRECTORY_LINE = re.compile(r"^([A-Z]{3}-[A-Z]{3}-\d{2}) (.+)$", re.MULTILINE)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
OUTSIDE_ID = "MTR-BEN-99"
LLAMA_CPP_REQUIRED_ERROR = (
    "AssertionError: tool_choice required is not supported by chatml-function-calling "
    "(llama_cpp/llama_chat_format.py)"
)


@dataclass
class Seen:
    model: str
    behaviour: str
    tool_choice: Any
    response_format: Any
    tools: list[str]
    messages: int


@dataclass
class FakeOpenAI:
    server: LiveServer
    requests: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def api_base(self) -> str:
        return f"{self.server.url}/v1"

    def seen(self, model: str) -> list[Seen]:
        """Requests received for one model name (the part after the litellm prefix)."""
        with self.lock:
            return [r for r in self.requests if r.model == model]

    def stop(self) -> None:
        self.server.stop()


def start_fake_openai() -> FakeOpenAI:
    app = FastAPI()
    fake = FakeOpenAI(server=None)  # type: ignore[arg-type]

    @app.post("/v1/chat/completions")
    async def completions(request: Request):
        body = await request.json()
        model = body.get("model", "")
        behaviour = model.split(":", 1)[0]
        with fake.lock:
            fake.requests.append(
                Seen(
                    model=model,
                    behaviour=behaviour,
                    tool_choice=body.get("tool_choice"),
                    response_format=body.get("response_format"),
                    tools=[t["function"]["name"] for t in body.get("tools", [])],
                    messages=len(body.get("messages", [])),
                )
            )
        return await play(behaviour, body, request)

    fake.server = serve(app)
    return fake


async def play(behaviour: str, body: dict[str, Any], request: Request):
    if behaviour == "slow":
        for _ in range(600):  # until the client hangs up (at most 60 s)
            if await request.is_disconnected():
                break
            await asyncio.sleep(0.1)
        return completion(body, content="too late")
    if behaviour == "rate_limited":
        return failure(429, "Rate limit reached for requests", "rate_limit_exceeded", {"Retry-After": "7"})
    if behaviour == "server_error":
        return failure(500, "The server had an error while processing your request", "server_error")
    if behaviour == "unavailable":
        return failure(503, "The engine is currently overloaded", "service_unavailable")
    if behaviour == "unauthorized":
        return failure(401, "Incorrect API key provided", "invalid_api_key")
    if behaviour == "malformed":
        return PlainTextResponse(
            '{"id": "chatcmpl-1", "choices": [{"message": ', media_type="application/json"
        )
    if behaviour == "no_required" and body.get("tool_choice") == "required":
        return failure(500, LLAMA_CPP_REQUIRED_ERROR, "server_error")

    returned = latest_tool_result(body)
    if behaviour == "bad_args":
        return completion(body, call=("resolve_clauses", '{"clause_ids": ["MTR-BEN-03",'))
    if behaviour == "four_ids":
        ids = [cid for cid, _ in directory(body)][:4]
        return completion(body, call=("resolve_clauses", json.dumps({"clause_ids": ids})))
    if behaviour == "empty":
        return completion(body, content="")
    if behaviour == "text":
        return completion(body, content="Yes, you can get a rental car while yours is repaired.")
    if behaviour == "outside_id":
        if returned is None:
            return completion(body, call=("resolve_clauses", json.dumps({"clause_ids": [OUTSIDE_ID]})))
        return final(
            body,
            {
                "outcome": "routed_to_staff",
                "route_reason": "needs_decision",  # the model's guess; the runtime decides
            },
        )
    if behaviour in ("good", "no_required"):
        if returned is None:
            return completion(body, call=("resolve_clauses", json.dumps({"clause_ids": [pick(body)]})))
        return final(body, cited_reply(returned))
    return failure(404, f"The model `{behaviour}` does not exist", "model_not_found")


# Reading the request -------------------------------------------------------------------


def directory(body: dict[str, Any]) -> list[tuple[str, str]]:
    system = "\n".join(
        m["content"] if isinstance(m["content"], str) else " ".join(p.get("text", "") for p in m["content"])
        for m in body["messages"]
        if m["role"] == "system" and m.get("content")
    )
    return DIRECTORY_LINE.findall(system)


def pick(body: dict[str, Any]) -> str:
    """The directory ID whose title shares most words with the question."""
    question = set(re.findall(r"[a-z]+", last_user_text(body).lower()))
    entries = directory(body)
    scored = sorted(entries, key=lambda e: -len(question & set(re.findall(r"[a-z]+", e[1].lower()))))
    return scored[0][0]


def last_user_text(body: dict[str, Any]) -> str:
    for m in reversed(body["messages"]):
        if m["role"] == "user":
            content = m["content"]
            return content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)
    return ""


def latest_tool_result(body: dict[str, Any]) -> dict[str, Any] | None:
    """The resolve_clauses result of this turn, if the last messages carry one."""
    for m in reversed(body["messages"]):
        if m["role"] == "tool":
            try:
                return json.loads(m["content"])
            except (TypeError, ValueError):
                return None
        if m["role"] == "user":
            return None
    return None


def cited_reply(returned: dict[str, Any]) -> dict[str, Any]:
    clause = returned["clauses"][0]
    body = clause["text"].split("\n", 1)[-1]
    quote = next(s.strip() for s in SENTENCE.split(body) if len(s.split()) >= 5 and not s.startswith("#"))
    return {"outcome": "answered", "points": [{"clause_id": clause["clause_id"], "span": quote}]}


# Answers --------------------------------------------------------------------------------


def final(body: dict[str, Any], reply: dict[str, Any]):
    """The structured reply in the form the request asks for."""
    output_tools = [
        t["function"]["name"] for t in body.get("tools", []) if t["function"]["name"] != "resolve_clauses"
    ]
    if output_tools:
        return completion(body, call=(output_tools[0], json.dumps(reply)))
    return completion(body, content=json.dumps(reply))


def completion(body: dict[str, Any], *, content: str | None = None, call: tuple[str, str] | None = None):
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if call is not None:
        name, arguments = call
        message["tool_calls"] = [
            {
                "id": f"call_{abs(hash(arguments)) % 10**8}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
        ]
    return JSONResponse(
        {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "tool_calls" if call else "stop", "message": message}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050},
        }
    )


def failure(status: int, message: str, code: str, headers: dict[str, str] | None = None):
    return JSONResponse(
        {"error": {"message": message, "type": code, "code": code, "param": None}},
        status_code=status,
        headers=headers,
    )


def fake_model(
    fake: FakeOpenAI, behaviour: str, *, timeout_s: float = 10, output=None, prefix: str = "hosted_vllm"
):
    """A clausedesk litellm model aimed at the fake server, named apart from other tests'."""
    from agent.models.selection import litellm_model

    name = f"{behaviour}:{uuid.uuid4().hex[:8]}"
    model = litellm_model(f"{prefix}/{name}", api_base=fake.api_base, timeout_s=timeout_s, output=output)
    model.fake_name = name  # type: ignore[attr-defined]
    return model
