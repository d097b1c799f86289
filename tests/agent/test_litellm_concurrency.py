"""Sixteen turns at once through the litellm path: all answered, all recorded, and litellm's
process-wide machinery (logging worker, cached clients) raises no event-loop errors."""

from __future__ import annotations

import gc
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from agent.db import Turn
from tests.conftest import TOKENS, use_model
from tests.fake_openai import fake_model

EVENT_LOOP_ERRORS = (
    "different event loop",
    "Task was destroyed",
    "Event loop is closed",
    "attached to a different loop",
)
CLAIMS = ["CLM-204518", "CLM-204519"]


@pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True)
@pytest.mark.usefixtures("allow_model_requests")
def test_sixteen_concurrent_litellm_turns_are_answered_and_recorded_without_loop_errors(
    live, fake_openai, caplog, capfd
) -> None:
    model = fake_model(fake_openai, "good")
    use_model(live, model)
    caplog.set_level(logging.WARNING)

    def turn(n: int) -> tuple[int, dict]:
        claim = CLAIMS[n % 2]
        with live.client(TOKENS[claim]) as client:
            response = client.post(f"/claims/{claim}/messages", json={"text": "Can I get a rental car?"})
        return response.status_code, response.json()

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(turn, range(16)))
    gc.collect()  # "Task was destroyed" is reported when a pending task is collected

    assert [status for status, _ in results] == [200] * 16
    assert [reply["outcome"] for _, reply in results] == ["answered"] * 16, results
    assert all(reply["citations_verified"] for _, reply in results)
    assert len(fake_openai.seen(model.fake_name)) == 32  # two requests a turn, no retries
    with live.app.state.services.sessions() as session:
        ids = [reply["turn_id"] for _, reply in results]
        recorded = session.scalar(select(func.count()).select_from(Turn).where(Turn.id.in_(ids)))
    assert recorded == 16

    out, err = capfd.readouterr()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    for text in EVENT_LOOP_ERRORS:
        assert text not in logged and text not in err and text not in out, (text, logged, err[-2000:])
    # litellm is quiet: no banner, no feedback links, no blank-line prints.
    assert "Give Feedback" not in out + err and "LiteLLM.Info" not in out + err
