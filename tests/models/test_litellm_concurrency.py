"""Sixteen turns at once through the litellm path: all answered, all recorded, and litellm's
process-wide machinery (logging worker, cached clients) raises no event-loop errors."""

from __future__ import annotations

import gc
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from agent.db.tables import Turn
from tests.conftest import TOKENS, make_live_app
from tests.fake_openai import fake_model

pytestmark = pytest.mark.slow  # litellm imported and sixteen turns through it

EVENT_LOOP_ERRORS = (
    "different event loop",
    "Task was destroyed",
    "Event loop is closed",
    "attached to a different loop",
)
CLAIMS = list(TOKENS)  # six claims: turns on one claim wait for each other


@pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)
@pytest.mark.usefixtures("allow_model_requests")
def test_sixteen_concurrent_litellm_turns_are_answered_and_recorded_without_loop_errors(
    database_url, corpus_store, fake_openai, caplog, capfd
) -> None:
    model = fake_model(fake_openai, "good")
    caplog.set_level(logging.WARNING)
    live = make_live_app(database_url, corpus_store, model)

    def turn(n: int) -> tuple[int, dict]:
        claim = CLAIMS[n % len(CLAIMS)]
        text = f"Can I get a rental car while mine is repaired? (question {n})"  # not a duplicate
        with live.client(TOKENS[claim]) as client:
            response = client.post(f"/claims/{claim}/messages", json={"text": text})
        return response.status_code, response.json()

    try:
        with ThreadPoolExecutor(16) as pool:
            results = list(pool.map(turn, range(16)))
        with live.app.state.services.sessions() as session:
            ids = [reply["turn_id"] for _, reply in results]
            recorded = session.scalar(select(func.count()).select_from(Turn).where(Turn.id.in_(ids)))
    finally:  # the server's event loop closes: litellm must have left nothing pending on it
        live.stop()
        live.app.state.engine.dispose()
    gc.collect()  # "Task was destroyed" is reported when a pending task is collected

    assert [status for status, _ in results] == [200] * 16
    assert [reply["outcome"] for _, reply in results] == ["answered"] * 16, results
    assert all(reply["citations_verified"] for _, reply in results)
    assert len(fake_openai.seen(model.fake_name)) == 32  # two requests a turn, no retries
    assert recorded == 16

    out, err = capfd.readouterr()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    for text in EVENT_LOOP_ERRORS:
        assert text not in logged and text not in err and text not in out, (text, logged, err[-2000:])
    # litellm is quiet: no banner, no feedback links, no blank-line prints.
    assert "Give Feedback" not in out + err and "LiteLLM.Info" not in out + err


@pytest.mark.usefixtures("allow_model_requests")
def test_litellm_calls_from_several_event_loops_leave_nothing_pending(fake_openai, caplog, capfd) -> None:
    """A caller with its own loop per thread (pydantic-ai's run_sync, a CLI, the benchmark)
    must not strand litellm's process-wide logging worker on a closed loop."""
    import asyncio
    import threading

    from pydantic_ai import Agent

    model = fake_model(fake_openai, "text")
    caplog.set_level(logging.WARNING)
    outputs: list[str] = []

    def own_loop() -> None:
        loop = asyncio.new_event_loop()
        try:
            outputs.append(loop.run_until_complete(Agent().run("hello", model=model)).output)
        finally:
            loop.close()

    threads = [threading.Thread(target=own_loop) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    gc.collect()
    assert len(outputs) == 4
    out, err = capfd.readouterr()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    for text in EVENT_LOOP_ERRORS:
        assert text not in logged and text not in err and text not in out, (text, logged, err[-2000:])
