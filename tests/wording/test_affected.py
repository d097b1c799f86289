"""What a wording version affected: agent replies citing it, staff answers sent while it
governed the claim (cited or not), drafts made from it; on the command line, the API, the
wording page and in a withdrawal's follow-ups."""

from __future__ import annotations

import os

import pytest

from agent.db.tables import Draft, WaitingItem
from agent.wording.affected import affected
from tests.conftest import STAFF_TOKENS, TOKENS, use_model
from tests.staff.test_staff_api import claimant_asks, send
from tests.support import answer, run_agent, scripted

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
    with live.app.state.services.sessions() as session:
        [hit] = affected(session, "motor", "2026.2").agent
        assert (hit.ref, hit.claim_id, hit.cited) == (cited["turn_id"], "CLM-204518", ["MTR-BEN-03"])
        assert affected(session, "motor", "2026.2", {"MTR-BEN-01"}).agent == []
        assert affected(session, "motor", "2025.1").agent == []


def test_staff_answers_and_drafts_stand_beside_the_agents_replies(wording_live) -> None:
    live = wording_live
    use_model(live, scripted(["MTR-BEN-03"], answer("Up to NZD 60 a day.", ("MTR-BEN-03", RATE))))
    with live.client(TOKENS["CLM-204518"]) as client:
        agent_turn = client.post("/claims/CLM-204518/messages", json={"text": "Hire car?"}).json()["turn_id"]
    reference = claimant_asks(live, "CLM-204519", "Is my tow covered?")["waiting_list_reference"]
    drafted = claimant_asks(live, "CLM-204519", "And the windscreen?")["waiting_list_reference"]
    with live.client(STAFF_TOKENS["aroha.staff"]) as aroha:
        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
        # An answer that cites nothing still stood on the wording that governed the claim.
        sent = send(aroha, reference, {"text": "Yes, we will call you about the tow today."})
        assert sent.status_code == 200, sent.text
    with live.app.state.services.sessions.begin() as db:
        item = db.query(WaitingItem).filter_by(reference=drafted).one()
        db.add(
            Draft(
                item_id=item.id,
                origin="turn",
                text="From your wording: …",
                citations=[
                    {"clause_id": "MTR-BEN-03", "title": "Hire car", "version": "2026.2", "quote": RATE}
                ],
                family="motor",
                version="2026.2",
                content_hash="h",
                last_message_id=None,
                claim_status="open",
            )
        )

    with live.app.state.services.sessions() as session:
        found = affected(session, "motor", "2026.2")
        assert [(r.kind, r.ref) for r in found.replies] == [("agent", agent_turn), ("staff", reference)]
        assert [(d.kind, d.ref, d.cited) for d in found.drafts] == [("draft", drafted, ["MTR-BEN-03"])]
        # Asked about one clause, the uncited staff answer is not among them.
        only = affected(session, "motor", "2026.2", {"MTR-BEN-03"})
        assert [r.kind for r in only.replies] == ["agent"] and len(only.drafts) == 1

    env = dict(os.environ, CLAUSEDESK_DATABASE_URL=live.app.state.services.settings.database_url)
    listed = run_agent("affected", "motor", "2026.2", env=env, timeout=60)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.strip().splitlines()
    assert f"agent reply, turn {agent_turn}" in lines[0] and "cited MTR-BEN-03" in lines[0]
    assert f"claim CLM-204519  staff answer, {reference}" in lines[1] and "cited nothing" in lines[1]
    assert f"draft for {drafted}" in lines[2] and "cited MTR-BEN-03" in lines[2]
    assert lines[3] == (
        "2 replies relied on motor 2026.2: 1 agent replies, 1 staff answers; 1 drafts were made from it"
    )

    with live.client(STAFF_TOKENS["mere.staff"]) as owner:
        listed = owner.get("/staff/api/wording/motor/2026.2/affected").json()
        assert [r["ref"] for r in listed["staff_answers"]] == [reference]
        assert [r["ref"] for r in listed["drafts"]] == [drafted]
        motor = next(f for f in owner.get("/staff/api/wording").json() if f["family"] == "motor")
        v2026 = next(v for v in motor["versions"] if v["version"] == "2026.2")
        assert (v2026["agent_replies_citing"], v2026["staff_answers_citing"], v2026["drafts_from"]) == (
            1,
            1,
            1,
        )
        done = owner.post("/staff/api/wording/motor/2026.2/withdraw", json={"reason": "tow limit wrong"})
        assert done.status_code == 200, done.text
        # Both conversations are followed up: the agent's and the one answered by staff only.
        assert len(done.json()["follow_ups_created"]) == 2
        follow_ups = owner.get("/staff/api/items", params={"reason": "wording_withdrawn"}).json()["items"]
        assert sorted(i["claim_id"] for i in follow_ups) == ["CLM-204518", "CLM-204519"]
