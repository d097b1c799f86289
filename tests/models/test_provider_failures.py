"""Each way a model provider misbehaves ends the turn routed to staff with its own reason.

Everything is real but the provider: the app over HTTP, litellm in-process, and a
misbehaving OpenAI-compatible server on loopback (tests/fake_openai.py) that plays one
failure per model name.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from sqlalchemy import select

from agent.db.tables import Turn, WaitingItem
from agent.evaluation.localstore import free_port
from agent.models.errors import error_chain, route_reason_for
from tests.conftest import TOKENS, use_model
from tests.fake_openai import fake_model

pytestmark = pytest.mark.usefixtures("allow_model_requests")
SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
CLAIM = "CLM-204518"
QUESTION = "Can I get a rental car while mine is being repaired?"

# behaviour of the fake server → reason the question is routed with
FAILURES = [
    ("rate_limited", "model_rate_limited"),
    ("server_error", "model_server_error"),
    ("unavailable", "model_server_error"),
    ("unauthorized", "model_auth_error"),
    ("malformed", "model_bad_output"),
    ("bad_args", "model_bad_output"),
    ("four_ids", "model_bad_output"),
    ("empty", "model_bad_output"),
    ("text", "model_bad_output"),
    # llama-cpp-python's answer to tool_choice "required", which tool output sends
    ("no_required", "model_server_error"),
]


def send(live) -> tuple[int, dict]:
    with live.client(TOKENS[CLAIM]) as client:
        response = client.post(f"/claims/{CLAIM}/messages", json={"text": QUESTION})
    return response.status_code, response.json()


def send_to(live, model) -> tuple[int, dict]:
    """The question, answered by this model from now on."""
    use_model(live, model)
    return send(live)


def recorded(live, turn_id: str) -> tuple[Turn, WaitingItem | None]:
    with live.app.state.services.sessions() as session:
        turn = session.get(Turn, turn_id)
        item = session.scalars(select(WaitingItem).where(WaitingItem.turn_id == turn_id)).first()
        session.expunge_all()
    return turn, item


def assert_routed(live, status: int, reply: dict, reason: str) -> Turn:
    assert status == 200, reply
    assert reply["outcome"] == "routed_to_staff", reply
    assert reply["citations"] == [] and reply["citations_verified"] is False
    assert reply["waiting_list_reference"] and reply["waiting_list_reference"] in reply["reply"]
    turn, item = recorded(live, reply["turn_id"])
    assert item is not None and item.reason == reason, (item and item.reason, turn.error)
    assert turn.route_reason == reason
    return turn


@SQLITE
@pytest.mark.parametrize(("behaviour", "reason"), FAILURES)
def test_a_misbehaving_provider_routes_the_question_with_its_reason(
    live, fake_openai, capfd, behaviour: str, reason: str
) -> None:
    model = fake_model(fake_openai, behaviour)
    status, reply = send_to(live, model)
    printed = "".join(capfd.readouterr())
    assert "Give Feedback" not in printed and "LiteLLM.Info" not in printed  # litellm stays quiet
    turn = assert_routed(live, status, reply, reason)
    # Nothing the model wrote reaches the claimant on a failed turn.
    assert "Yes, you can get a rental car" not in reply["reply"]
    assert turn.model_name == f"litellm:hosted_vllm/{model.fake_name}"
    # One request per model call: neither litellm nor the OpenAI client retried.
    seen = fake_openai.seen(model.fake_name)
    assert 1 <= len(seen) <= 6
    if behaviour in (
        "rate_limited",
        "server_error",
        "unavailable",
        "unauthorized",
        "malformed",
        "no_required",
    ):
        assert len(seen) == 1


@SQLITE
def test_the_model_timeout_setting_bounds_a_call_to_one_attempt(live, fake_openai, monkeypatch) -> None:
    from agent.models.selection import build_model, warm_up
    from agent.settings import Settings

    name = f"slow:{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("CLAUSEDESK_MODEL", f"hosted_vllm/{name}")
    monkeypatch.setenv("CLAUSEDESK_MODEL_API_BASE", fake_openai.api_base)
    monkeypatch.setenv("CLAUSEDESK_MODEL_TIMEOUT_S", "1")
    use_model(live, build_model(Settings()))
    warm_up(Settings())  # as create_app does for a configured model
    started = time.perf_counter()
    status, reply = send(live)
    elapsed = time.perf_counter() - started
    # The server would hold the request for a minute; one 1 s attempt, no retry.
    assert len(fake_openai.seen(name)) == 1
    assert elapsed < 6, elapsed
    assert_routed(live, status, reply, "model_timeout")


@SQLITE
def test_the_turn_deadline_bounds_a_slow_model_and_routes_with_model_timeout(
    database_url, corpus_store, fake_openai, monkeypatch
) -> None:
    from agent.models.litellm_transport import import_litellm
    from tests.conftest import make_live_app

    monkeypatch.setenv("CLAUSEDESK_TURN_DEADLINE_S", "1.5")
    model = fake_model(fake_openai, "slow", timeout_s=30)  # the call alone would wait 30 s
    live = make_live_app(database_url, corpus_store, model)
    import_litellm()  # as create_app does for a configured litellm model
    try:
        started = time.perf_counter()
        status, reply = send(live)
        elapsed = time.perf_counter() - started
        assert_routed(live, status, reply, "model_timeout")
    finally:
        live.stop()
        live.app.state.engine.dispose()
    assert elapsed < 6, elapsed
    assert len(fake_openai.seen(model.fake_name)) == 1


@SQLITE
def test_a_closed_port_routes_with_model_unreachable(live) -> None:
    from agent.models.selection import litellm_model

    closed_port = f"http://127.0.0.1:{free_port()}/v1"
    unreachable = litellm_model("hosted_vllm/nothing", api_base=closed_port, timeout_s=3)
    status, reply = send_to(live, unreachable)
    assert_routed(live, status, reply, "model_unreachable")


@SQLITE
@pytest.mark.parametrize("output", ["prompted", "native"])
def test_a_server_that_rejects_a_required_tool_choice_answers_with_json_output(
    live, fake_openai, output: str
) -> None:
    model = fake_model(fake_openai, "no_required", output=output)
    status, reply = send_to(live, model)
    assert status == 200 and reply["outcome"] == "answered", reply
    assert reply["citations_verified"] and reply["citations"][0]["clause_id"] == "MTR-BEN-03"
    seen = fake_openai.seen(model.fake_name)
    assert len(seen) == 2 and all(s.tool_choice != "required" for s in seen)
    assert all(s.tools == ["resolve_clauses"] for s in seen)  # no output tool
    expected = {"prompted": "json_object", "native": "json_schema"}[output]
    assert all(s.response_format["type"] == expected for s in seen)
    turn, _ = recorded(live, reply["turn_id"])
    assert turn.checks and all(c["passed"] for c in turn.checks)  # the answer boundary ran


@SQLITE
def test_an_id_outside_the_directory_is_not_found_and_routed_by_the_runtime(live, fake_openai) -> None:
    model = fake_model(fake_openai, "outside_id")
    status, reply = send_to(live, model)
    turn = assert_routed(live, status, reply, "clause_not_in_directory")
    assert turn.requested == ["MTR-BEN-99"] and turn.not_found == ["MTR-BEN-99"] and turn.returned == []


@SQLITE
def test_a_failed_turn_records_the_error_chain_and_usage(live, fake_openai) -> None:
    model = fake_model(fake_openai, "text")
    status, reply = send_to(live, model)
    turn = assert_routed(live, status, reply, "model_bad_output")
    # Two real requests were made (the reply and its corrective retry): both are counted.
    assert len(fake_openai.seen(model.fake_name)) == 2
    assert turn.model_requests == 2 and turn.input_tokens == 2000
    assert turn.model_base_url == fake_openai.api_base
    chain = turn.error_chain
    assert chain[0]["type"].endswith("UnexpectedModelBehavior")
    assert any("Invalid JSON" in link["message"] for link in chain)


@SQLITE
def test_a_rate_limited_turn_keeps_retry_after_in_its_error_chain(live, fake_openai) -> None:
    status, reply = send_to(live, fake_model(fake_openai, "rate_limited"))
    turn = assert_routed(live, status, reply, "model_rate_limited")
    assert turn.error_chain[0]["retry_after"] == 7
    assert any("Rate limit reached" in link["message"] for link in turn.error_chain)


# The classification itself, on the exceptions pydantic-ai raises for each failure --------


def directory_agent():
    """An agent shaped like the claimant agent (same tool, reply type and retries), with a
    fixed directory, so the exceptions are the ones a turn sees."""
    from pydantic_ai import Agent

    from agent.boundary.selection import Selection

    agent = Agent(
        output_type=Selection,
        instructions="Directory:\nMTR-BEN-03 Hire car, rental car while yours is repaired\nMTR-BEN-04 Towing",
        retries={"tools": 1, "output": 1},
    )

    @agent.tool_plain
    async def resolve_clauses(clause_ids: list[str]) -> dict:
        return {"clauses": [], "not_found": clause_ids}

    return agent


@pytest.mark.parametrize(("behaviour", "reason"), [*FAILURES, ("slow", "model_timeout")])
def test_each_provider_failure_is_named_from_its_exception(fake_openai, behaviour, reason) -> None:
    model = fake_model(fake_openai, behaviour, timeout_s=1)
    loop = asyncio.new_event_loop()  # not asyncio.run: that unsets the main thread's loop
    with pytest.raises(Exception) as raised:
        loop.run_until_complete(directory_agent().run(QUESTION, model=model))
    loop.close()
    assert route_reason_for(raised.value) == reason, error_chain(raised.value)


@SQLITE
def test_an_openai_model_string_without_a_key_routes_with_model_auth_error(
    live, fake_openai, monkeypatch
) -> None:
    from agent.models.selection import litellm_model

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    name = f"good:{uuid.uuid4().hex[:8]}"
    status, reply = send_to(live, litellm_model(f"openai/{name}", api_base=fake_openai.api_base, timeout_s=5))
    assert fake_openai.seen(name) == []  # refused before any request: "Missing credentials"
    assert_routed(live, status, reply, "model_auth_error")


def test_the_error_chain_keeps_each_cause_and_no_secret() -> None:
    key = "sk-proj-" + "a1B2c3D4e5" * 4
    try:
        try:
            raise ConnectionRefusedError(111, "Connect call failed ('10.0.0.5', 443)")
        except OSError as exc:
            raise RuntimeError(
                f"POST https://user:hunter2@llm.example/v1 failed; headers "
                f"{{'Authorization': 'Bearer {key}', 'x-api-key': '{key}'}} api_key={key} " + "x" * 900
            ) from exc
    except RuntimeError as exc:
        failure = exc
    chain = error_chain(failure)
    assert [link["type"] for link in chain] == ["RuntimeError", "ConnectionRefusedError"]
    assert len(chain[0]["message"]) == 500 and "[redacted]" in chain[0]["message"]
    assert key not in str(chain) and "hunter2" not in str(chain)
    assert "Connect call failed ('10.0.0.5', 443)" in chain[1]["message"]
    assert route_reason_for(failure) == "model_unreachable"


def test_every_model_failure_reason_is_a_waiting_list_reason() -> None:
    from typing import get_args

    from agent.models.errors import ModelReason
    from agent.staff.waiting_list import REASONS

    assert set(get_args(ModelReason)) <= set(REASONS)
