"""Drafts for the handler over HTTP (SQLite and PostgreSQL): composed from the wording that
governs the claim, on first opening where the turn fetched clauses, on demand otherwise;
bound to what they were made from, so the pre-send check can say when one went stale."""

from __future__ import annotations

from tests.conftest import TOKENS, use_model
from tests.staff.test_staff_api import claimant_asks, conversation, staff
from tests.support import route, scripted

CLAIM = "CLM-204518"  # motor 2026.2, hire car listed on the schedule
QUESTION = "How many days of hire car do I get?"


def routed_after_fetching(live, ids: list[str]) -> str:
    """A question whose turn fetched `ids` and then routed: the item's reference."""
    use_model(live, scripted(ids, route("I can't answer that.", QUESTION, "needs_decision")))
    with live.client(TOKENS[CLAIM]) as client:
        reply = client.post(f"/claims/{CLAIM}/messages", json={"text": QUESTION}).json()
    assert reply["outcome"] == "routed_to_staff", reply
    return reply["waiting_list_reference"]


def test_an_item_whose_turn_fetched_clauses_opens_with_a_draft_that_can_be_sent(staff_live) -> None:
    live = staff_live
    reference = routed_after_fetching(live, ["MTR-BEN-03"])
    with staff(live) as aroha:
        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
        item = aroha.get(f"/staff/api/items/{reference}").json()
        draft = item["draft"]
        assert (draft["origin"], draft["made_by"], draft["stale"]) == ("turn", None, [])
        assert draft["basis"] == item["basis"]
        assert "(your policy wording 2026.2)" in draft["text"]
        [cited] = draft["citations"]
        assert cited["clause_id"] == "MTR-BEN-03" and cited["version"] == "2026.2"
        # Opening again shows the same draft, not a new one.
        assert aroha.get(f"/staff/api/items/{reference}").json()["draft"]["id"] == draft["id"]

        edited = "Here is what your wording says.\n\n" + draft["text"]
        body = {
            "text": edited,
            "citations": [{"clause_id": c["clause_id"], "quote": c["quote"]} for c in draft["citations"]],
            "basis": draft["basis"],
        }
        sent = aroha.post(f"/staff/api/items/{reference}/answer", json=body)
        assert sent.status_code == 200, sent.text
        assert sent.json()["answer_citations"][0]["quote"] == cited["quote"]
    assert conversation(live, CLAIM)[-1]["body"].startswith("Here is what your wording says.")


def test_a_draft_goes_stale_when_the_claimant_writes_and_is_rebuilt(staff_live) -> None:
    live = staff_live
    reference = routed_after_fetching(live, ["MTR-BEN-03"])
    with staff(live) as aroha:
        first = aroha.get(f"/staff/api/items/{reference}").json()["draft"]
        claimant_asks(live, CLAIM, "Any news?")
        stale = aroha.get(f"/staff/api/items/{reference}").json()["draft"]
        assert stale["id"] == first["id"]
        assert [r.startswith("The claimant wrote again at ") for r in stale["stale"]] == [True]
        assert stale["stale"][0].endswith(": “Any news?”")  # what they wrote, quoted

        rebuilt = aroha.post(f"/staff/api/items/{reference}/draft", json={})
        assert rebuilt.status_code == 200, rebuilt.text
        fresh = rebuilt.json()
        assert fresh["id"] != first["id"] and fresh["made_by"] == "aroha.staff" and fresh["origin"] == "turn"
        assert fresh["basis"]["last_message_id"] > first["basis"]["last_message_id"]
        assert aroha.get(f"/staff/api/items/{reference}").json()["draft"]["stale"] == []


def test_an_item_without_fetched_clauses_is_drafted_from_the_wording_on_demand(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, CLAIM, "Will you pay for a rental car while mine is repaired?")[
        "waiting_list_reference"
    ]
    with staff(live) as aroha:
        assert aroha.get(f"/staff/api/items/{reference}").json()["draft"] is None
        matched = aroha.post(f"/staff/api/items/{reference}/draft", json={})
        assert matched.status_code == 200, matched.text
        assert matched.json()["origin"] == "wording"
        assert "MTR-BEN-03" in {c["clause_id"] for c in matched.json()["citations"]}

        named = aroha.post(f"/staff/api/items/{reference}/draft", json={"clause_ids": ["MTR-BEN-01"]})
        assert [c["clause_id"] for c in named.json()["citations"]] == ["MTR-BEN-01"]
        assert aroha.get(f"/staff/api/items/{reference}").json()["draft"]["id"] == named.json()["id"]

        unknown = aroha.post(f"/staff/api/items/{reference}/draft", json={"clause_ids": ["MTR-XYZ-99"]})
        assert unknown.status_code == 409
        assert unknown.json()["detail"] == "no draft: none of MTR-XYZ-99 is in motor wording 2026.2"

        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
        closed = aroha.post(f"/staff/api/items/{reference}/close", json={"reason": "phoned"})
        assert closed.status_code == 200
        late = aroha.post(f"/staff/api/items/{reference}/draft", json={})
        assert (
            late.status_code == 409
            and "is closed; drafts are for items still waiting" in late.json()["detail"]
        )
