"""The chat cases a new user tried (issue 18), through HTTP with the offline model, each
judged on its question's facts in the inventory (corpus/questions/test2): the same words a
right answer must hold, and the strings that make it wrong. A question no wording answers is
routed with the reason that fits it, not as a missing clause."""

from __future__ import annotations

import pytest

from agent.boundary.replies import routed
from agent.wording.questions import Question, load_questions
from tests.conftest import REPO, STAFF_TOKENS, TOKENS

FACTS = {q.id: q for q in load_questions(REPO / "corpus" / "questions", parts=("test2",))}
CLAIMS = {"KM-CNT-402117": "CLM-402117", "KM-CNT-402118": "CLM-402118", "KM-MTR-204518": "CLM-204518"}


def ask(live, question: Question) -> dict:
    claim = CLAIMS[question.policy]
    with live.client(TOKENS[claim]) as client:
        for earlier in question.earlier:
            assert client.post(f"/claims/{claim}/messages", json={"text": earlier}).status_code == 200
        response = client.post(f"/claims/{claim}/messages", json={"text": question.text})
    assert response.status_code == 200, response.text
    return response.json()


def assert_right(question: Question, reply: dict) -> None:
    assert reply["outcome"] == "answered", reply["reply"]
    verdict = question.judge(reply["reply"])
    assert verdict.right, (verdict, reply["reply"])


pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def test_a_standard_claimant_s_phone_stolen_at_the_pub_is_not_covered_away_from_home(live) -> None:
    question = FACTS["CNT-N01"]  # CLM-402117, Standard, no portable valuables
    reply = ask(live, question)
    assert_right(question, reply)
    assert "CNT-COV-02" in {c["clause_id"] for c in reply["citations"]}
    assert "NZD 4,000" not in reply["reply"]  # no item limit for a loss the policy does not cover


def test_a_premier_claimant_s_phone_is_a_portable_valuable_not_the_jewellery_row(live) -> None:
    question = FACTS["CNT-N02"]  # CLM-402118, Premier, portable valuables listed
    reply = ask(live, question)
    assert_right(question, reply)
    assert "NZD 15,000 in total" not in reply["reply"]


def test_the_fuel_for_the_rental_follows_up_the_rental_and_is_not_paid(live) -> None:
    question = FACTS["MTR-N09"]  # CLM-204518, after "Can I get a rental car …?"
    reply = ask(live, question)
    assert_right(question, reply)
    assert "MTR-BEN-03" in {c["clause_id"] for c in reply["citations"]}


def test_how_much_is_my_excess_gives_the_schedule_s_standard_excess(live) -> None:
    question = FACTS["MTR-N01"]  # CLM-204518: standard excess NZD 500
    reply = ask(live, question)
    assert_right(question, reply)
    assert "From your schedule:\n- Standard excess: NZD 500" in reply["reply"]


def test_the_windscreen_is_covered_and_its_replacement_excess_is_given(live) -> None:
    question = FACTS["MTR-N04"]
    reply = ask(live, question)
    assert_right(question, reply)
    assert {c["clause_id"] for c in reply["citations"]} >= {"MTR-COV-03"}


def test_is_my_claim_approved_goes_to_staff_as_a_decision_not_a_missing_clause(live) -> None:
    question = FACTS["MTR-N36"]
    reply = ask(live, question)
    assert reply["outcome"] == "routed_to_staff" and reply["citations"] == []
    assert reply["route_reason"] == "claim_decision"  # for staff; the claimant is not told it as fact
    assert reply["reply"] == routed("claim_decision", reply["waiting_list_reference"])


def test_how_my_claim_is_going_goes_to_staff_as_claim_progress(live) -> None:
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": "any update on my claim?"}).json()
    assert reply["outcome"] == "routed_to_staff" and reply["route_reason"] == "claim_progress"
    assert reply["reply"] == routed("claim_progress", reply["waiting_list_reference"])


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Can I get a copy of the assessor's report?", "request_for_staff"),
        ("Should we switch to a different plan?", "outside_the_wording"),
    ],
)
def test_a_request_or_advice_goes_to_staff_with_its_own_reason_not_a_missing_clause(
    staff_live, text: str, reason: str
) -> None:
    live = staff_live
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": text}).json()
    assert reply["outcome"] == "routed_to_staff" and reply["route_reason"] == reason
    # The model's reason is the waiting list's; the claimant reads the runtime's own route.
    assert reply["reply"] == routed(reason, reply["waiting_list_reference"]) and reply["citations"] == []
    with live.client(STAFF_TOKENS["aroha.staff"]) as staff:  # the waiting list says why, too
        item = staff.get(f"/staff/api/items/{reply['waiting_list_reference']}").json()["item"]
    assert item["reason"] == reason
