"""Wording lifecycle through the HTTP API: withdrawal reaches the conversations that relied
on a version; release checks and approval are for policy owners only."""

from __future__ import annotations

import pytest

from agent.db.tables import Claim
from agent.security import hash_token
from knowledge.manifest import Registry
from tests.conftest import STAFF_PASSWORDS, STAFF_TOKENS, TOKENS, use_model
from tests.staff.staff_web import web_login
from tests.support import answer, scripted

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
OWNER, HANDLER = STAFF_TOKENS["mere.staff"], STAFF_TOKENS["aroha.staff"]


def third_motor_claim(live) -> tuple[str, str]:
    """A second conversation on policy KM-MTR-204518 (2026.2 governs its term)."""
    claim_id, token = "CLM-204518-B", "dev-claimant-204518-b"
    with live.app.state.services.sessions.begin() as session:
        seeded = session.get(Claim, "CLM-204518")
        session.add(
            Claim(
                claim_id=claim_id,
                policy_number=seeded.policy_number,
                incident_date=seeded.incident_date,
                incident=seeded.incident,
                token_hash=hash_token(token),
            )
        )
    return claim_id, token


def test_withdrawal_puts_one_follow_up_per_conversation_and_a_notice_in_each(wording_live) -> None:
    live = wording_live
    extra_claim, extra_token = third_motor_claim(live)
    claims = {
        "CLM-204518": TOKENS["CLM-204518"],
        "CLM-204519": TOKENS["CLM-204519"],
        extra_claim: extra_token,
    }
    steps = []
    for _ in claims:
        steps += [["MTR-BEN-03"], answer("Up to NZD 60 a day for up to 21 days.", ("MTR-BEN-03", RATE))]
    use_model(live, scripted(*steps))
    for claim_id, token in claims.items():
        with live.client(token) as client:
            reply = client.post(
                f"/claims/{claim_id}/messages", json={"text": "How long can I keep a hire car?"}
            )
            assert (reply.json()["outcome"], reply.json()["release"]["version"]) == ("answered", "2026.2")
    # A conversation answered from another version is not followed up.
    use_model(live, scripted(["MTR-BEN-01"], answer("See your policy.")))
    with live.client(TOKENS["CLM-118230"]) as client:
        client.post("/claims/CLM-118230/messages", json={"text": "What does my policy cover?"})

    with live.client(HANDLER) as handler:
        refused = handler.post(
            "/staff/api/wording/motor/2026.2/withdraw", json={"reason": "hire car limit wrong"}
        )
    assert refused.status_code == 403
    assert "not a policy owner" in refused.json()["detail"]

    with live.client(OWNER) as owner:
        assert owner.post("/staff/api/wording/motor/2026.2/withdraw", json={"reason": " "}).status_code == 422
        done = owner.post("/staff/api/wording/motor/2026.2/withdraw", json={"reason": "hire car limit wrong"})
        assert done.status_code == 200, done.text
        body = done.json()
        assert body["changed"] is True and len(body["follow_ups_created"]) == 3
        again = owner.post(
            "/staff/api/wording/motor/2026.2/withdraw", json={"reason": "hire car limit wrong"}
        )
        assert (again.json()["changed"], again.json()["follow_ups_created"]) == (False, [])
        assert sorted(again.json()["follow_ups_existing"]) == sorted(body["follow_ups_created"])

    with live.client(HANDLER) as handler:
        items = handler.get("/staff/api/items", params={"reason": "wording_withdrawn"}).json()
        assert items["total"] == 3
        assert {i["claim_id"] for i in items["items"]} == set(claims)
        detail = handler.get(f"/staff/api/items/{items['items'][0]['reference']}").json()
        [relied] = detail["withdrawn_wording"]["replies"]
        assert detail["withdrawn_wording"]["version"] == "2026.2"
        assert {"clause_id": "MTR-BEN-03", "quote": RATE} in relied["citations"]
        # the model's clause, and the exclusions the runtime served beside it
        cited = {c["clause_id"] for c in relied["citations"]}
        assert "MTR-BEN-03" in cited and all("-EXC-" in c for c in cited - {"MTR-BEN-03"})
        assert "hire car limit wrong" in detail["item"]["question"]
        # Staff close these like any other item.
        closed = handler.post(
            f"/staff/api/items/{items['items'][0]['reference']}/close", json={"reason": "phoned the claimant"}
        )
        assert closed.json()["status"] == "closed"
    references = {i["claim_id"]: i["reference"] for i in items["items"]}

    # A model that would answer from 2026.2 again: the withdrawal alone must stop it.
    use_model(live, scripted(*steps))
    for claim_id, token in claims.items():
        with live.client(token) as client:
            notice = client.get(f"/claims/{claim_id}/messages").json()["messages"][-1]
            assert notice["role"] == "notice"
            assert notice["waiting_list_reference"] == references[claim_id]
            assert (
                "relied on our motor policy wording 2026.2, which has since been withdrawn" in notice["body"]
            )
            assert (
                f"A claims handler will follow up with you here under reference {references[claim_id]}"
                in (notice["body"])
            )
            nxt = client.post(f"/claims/{claim_id}/messages", json={"text": "And the daily limit?"}).json()
            assert nxt["outcome"] != "answered"
            assert nxt["citations"] == [] and nxt["release"] is None
    with live.client(TOKENS["CLM-118230"]) as client:
        assert all(
            m["role"] != "notice" for m in client.get("/claims/CLM-118230/messages").json()["messages"]
        )

    with live.client(HANDLER) as handler:
        motor = next(f for f in handler.get("/staff/api/wording").json() if f["family"] == "motor")
    v2026 = next(v for v in motor["versions"] if v["version"] == "2026.2")
    assert (v2026["status"], v2026["agent_replies_citing"]) == ("withdrawn", 3)
    assert v2026["withdrawn_by"] == "Mere Tautahi (mere.staff)"
    [audit] = [a for a in motor["audit"] if a["action"] == "withdraw"]
    assert (audit["actor"], audit["reason"]) == ("Mere Tautahi (mere.staff)", "hire car limit wrong")


@pytest.mark.slow  # a process of its own
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_only_a_policy_owner_checks_and_approves_and_the_approval_cites_the_check(wording_live) -> None:
    live = wording_live
    with live.client(HANDLER) as handler:
        assert handler.get("/staff/api/me").json()["roles"] == ["handler"]
        assert handler.post("/staff/api/wording/motor/2027.1/check").status_code == 403
        approve = {"effective_from": "2027-07-01", "check_id": "RC-00000000"}
        assert handler.post("/staff/api/wording/motor/2027.1/approve", json=approve).status_code == 403
    # The check asks the family's whole inventory twice: give it time on a loaded machine.
    with live.client(OWNER, timeout=180) as owner:
        assert owner.get("/staff/api/me").json()["roles"] == ["handler", "policy_owner"]
        unknown = owner.post("/staff/api/wording/motor/2027.1/approve", json=approve)
        assert (
            unknown.status_code == 409
            and "release check RC-00000000 does not exist" in unknown.json()["detail"]
        )
        assert owner.post("/staff/api/wording/motor/2099.1/check").status_code == 404
        check = owner.post("/staff/api/wording/motor/2027.1/check").json()
        assert check["baseline_version"] == "2026.2"
        assert "MTR-BEN-03" in check["summary"]["figures_changed"]
        report = owner.get(f"/staff/api/wording/checks/{check['check_id']}").json()
        assert report["summary"] == check["summary"]
        approved = owner.post(
            "/staff/api/wording/motor/2027.1/approve",
            json={"effective_from": "2027-07-01", "check_id": check["check_id"]},
        )
        assert approved.status_code == 200, approved.text
        assert approved.json() == {
            "family": "motor",
            "version": "2027.1",
            "changed": True,
            "check_id": check["check_id"],
        }
    manifest, _ = Registry(live.app.state.services.runner.library.store).read()
    entry = manifest.entry("motor", "2027.1")
    assert (entry.status, entry.release_check, entry.approved_by) == (
        "approved",
        check["check_id"],
        "Mere Tautahi (mere.staff)",
    )
    assert manifest.entry("motor", "2026.2").effective_to.isoformat() == "2027-07-01"


def test_the_approval_time_is_the_release_records_not_the_restarts(wording_live) -> None:
    """policies/releases.toml says motor 2026.2 was approved on 2026-06-09: the manifest keeps
    that day (apply-releases runs on every start) and the wording page shows it."""
    live = wording_live
    with live.client(OWNER) as owner:
        families = {f["family"]: f for f in owner.get("/staff/api/wording").json()}
    with live.client() as browser:
        assert web_login(browser, "mere.staff", STAFF_PASSWORDS["mere.staff"]).status_code == 303
        page = browser.get("/staff/wording").text
    motor = {v["version"]: v for v in families["motor"]["versions"]}
    assert motor["2026.2"]["approved_at"].startswith("2026-06-09T00:00:00")
    assert motor["2025.1"]["approved_at"].startswith("2025-06-12T00:00:00")
    assert motor["2027.1"]["approved_at"] is None  # the draft: never approved
    motor_table = page.split('id="family-motor"')[1]
    row = motor_table.split("<strong>2026.2</strong>")[1].split("</tr>")[0]
    assert 'Mere Tautahi, Head of Motor Product<br><span class="meta">2026-06-09' in row
