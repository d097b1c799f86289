"""A policy owner can list the answers that cited a given wording version."""

from __future__ import annotations

import pytest

from agent.wording.affected import answers_citing
from tests.conftest import TOKENS, use_model
from tests.support import answer, scripted

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_answers_citing_a_version_are_listed(live) -> None:
    use_model(
        live,
        scripted(
            ["MTR-BEN-03"],
            answer("Up to NZD 60 a day.", ("MTR-BEN-03", RATE)),
            [],
            {"outcome": "routed_to_staff"},
        ),
    )
    with live.client(TOKENS["CLM-204518"]) as client:
        cited = client.post("/claims/CLM-204518/messages", json={"text": "rental?"}).json()
        client.post("/claims/CLM-204518/messages", json={"text": "where is my claim?"})
    sessions = live.app.state.services.sessions
    [hit] = answers_citing(sessions, "motor", "2026.2")
    assert (hit.turn_id, hit.claim_id, hit.cited) == (cited["turn_id"], "CLM-204518", ["MTR-BEN-03"])
    assert answers_citing(sessions, "motor", "2026.2", {"MTR-BEN-01"}) == []
    assert answers_citing(sessions, "motor", "2025.1") == []
