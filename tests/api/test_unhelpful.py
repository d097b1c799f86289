"""A claimant says a served answer didn't help: the question goes on the waiting list with
reason claimant_unhelpful, bound to the answer's turn; saying it again keeps one item; only an
answer served on this claim can be marked."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from agent.db.tables import OutboxEvent, WaitingItem
from tests.conftest import STAFF_TOKENS, TOKENS, use_model
from tests.support import answer, route, scripted

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
QUESTION = "Can I get a rental car while mine is repaired?"


def items(database_url: str) -> list[WaitingItem]:
    engine = create_engine(database_url)
    with Session(engine) as session:
        found = list(session.scalars(select(WaitingItem).order_by(WaitingItem.id)).all())
        session.expunge_all()
    engine.dispose()
    return found


def served(live, claim: str = "CLM-204518") -> tuple[dict, int]:
    """An answer served on `claim`: the reply and the id of the agent message that carried it."""
    use_model(live, scripted(["MTR-BEN-03"], answer("", ("MTR-BEN-03", RATE))))
    with live.client(TOKENS[claim]) as client:
        reply = client.post(f"/claims/{claim}/messages", json={"text": QUESTION}).json()
        messages = client.get(f"/claims/{claim}/messages").json()["messages"]
    assert reply["outcome"] == "answered"
    [agent] = [m for m in messages if m["role"] == "agent"]
    return reply, agent["id"]


def test_an_unhelpful_answer_puts_the_question_on_the_waiting_list_once(live, database_url) -> None:
    reply, message_id = served(live)
    with live.client(TOKENS["CLM-204518"]) as client:
        first = client.post(f"/claims/CLM-204518/messages/{message_id}/unhelpful")
        again = client.post(f"/claims/CLM-204518/messages/{message_id}/unhelpful")
        conversation = client.get("/claims/CLM-204518/messages").json()["messages"]
    assert first.status_code == 200, first.text
    told = first.json()
    reference = told["waiting_list_reference"]
    assert reference.startswith("WL-") and reference in told["reply"]
    assert "claims handler will look at your question" in told["reply"]
    assert again.status_code == 200 and again.json() == told  # idempotent: the same item
    [item] = items(database_url)
    assert (item.reference, item.reason, item.question, item.turn_id, item.status) == (
        reference,
        "claimant_unhelpful",
        QUESTION,
        reply["turn_id"],
        "open",
    )
    [agent] = [m for m in conversation if m["role"] == "agent"]
    assert agent["unhelpful_reference"] == reference and agent["answer"] is not None
    engine = create_engine(database_url)
    with Session(engine) as session:
        events = session.scalars(select(OutboxEvent).where(OutboxEvent.kind == "question_routed")).all()
    engine.dispose()
    assert [e.payload["reason"] for e in events] == ["claimant_unhelpful"]
    # Staff see the item with the turn record of the answer it is about.
    staff = {"Authorization": f"Bearer {STAFF_TOKENS['aroha.staff']}"}
    with live.client() as client:
        detail = client.get(f"/staff/api/items/{reference}", headers=staff).json()
    assert detail["item"]["reason"] == "claimant_unhelpful" and detail["turn"]["id"] == reply["turn_id"]


def test_only_an_answer_served_on_this_claim_can_be_marked(live, database_url) -> None:
    _, other_claims_answer = served(live, "CLM-204519")
    use_model(live, scripted([], route("", "", "needs_decision")))
    with live.client(TOKENS["CLM-204518"]) as client:
        routed = client.post("/claims/CLM-204518/messages", json={"text": "Is my claim approved?"}).json()
        messages = client.get("/claims/CLM-204518/messages").json()["messages"]
        [claimant] = [m["id"] for m in messages if m["role"] == "claimant"]
        [route_message] = [m["id"] for m in messages if m["role"] == "agent"]
        refused = {
            "the claimant's own message": client.post(f"/claims/CLM-204518/messages/{claimant}/unhelpful"),
            "a route": client.post(f"/claims/CLM-204518/messages/{route_message}/unhelpful"),
            "another claim's answer": client.post(
                f"/claims/CLM-204518/messages/{other_claims_answer}/unhelpful"
            ),
            "no such message": client.post("/claims/CLM-204518/messages/999999/unhelpful"),
        }
        bad_id = client.post("/claims/CLM-204518/messages/abc/unhelpful")
    assert routed["outcome"] == "routed_to_staff"
    for what, response in refused.items():
        assert response.status_code == 404, what
        assert "is not an answer given on claim CLM-204518" in response.json()["detail"], what
    assert bad_id.status_code == 422
    # The route's own item only (the runtime reads a question about a decision: issue 41).
    assert [i.reason for i in items(database_url)] == ["claim_decision"]


def test_the_unhelpful_endpoint_is_in_openapi(live) -> None:
    with live.client() as client:
        spec = client.get("/openapi.json").json()
    operation = spec["paths"]["/claims/{claim_id}/messages/{message_id}/unhelpful"]["post"]
    assert {"200", "404", "409"} <= set(operation["responses"])
    answer_schema = spec["components"]["schemas"]["AnswerOut"]["properties"]
    described = ("statements", "blocks", "schedule_facts", "also")
    assert all(answer_schema[k].get("description") for k in described)
    assert "unhelpful_reference" in spec["components"]["schemas"]["ConversationMessage"]["properties"]


def test_an_answer_on_a_closed_claim_cannot_be_marked(live, database_url) -> None:
    from agent.db.tables import Claim

    _, message_id = served(live)
    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        session.get(Claim, "CLM-204518").status = "closed"
    engine.dispose()
    with live.client(TOKENS["CLM-204518"]) as client:
        response = client.post(f"/claims/CLM-204518/messages/{message_id}/unhelpful")
    assert response.status_code == 409 and "closed" in response.json()["detail"]
    assert items(database_url) == []


@pytest.mark.databases
def test_clicks_at_once_make_one_item(live, database_url) -> None:
    _, message_id = served(live)

    def click(_: int) -> dict:
        with live.client(TOKENS["CLM-204518"]) as client:
            response = client.post(f"/claims/CLM-204518/messages/{message_id}/unhelpful")
        assert response.status_code == 200, response.text
        return response.json()

    with ThreadPoolExecutor(max_workers=4) as pool:
        told = list(pool.map(click, range(4)))
    assert len({t["waiting_list_reference"] for t in told}) == 1
    assert [i.reason for i in items(database_url)] == ["claimant_unhelpful"]


def test_an_answer_from_the_schedule_alone_can_be_marked_too(live, database_url) -> None:
    facts_only = {"outcome": "answered", "points": [], "schedule_facts": ["standard"]}
    use_model(live, scripted([], facts_only))
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": "What is my excess?"}).json()
        [agent] = [
            m for m in client.get("/claims/CLM-204518/messages").json()["messages"] if m["role"] == "agent"
        ]
        marked = client.post(f"/claims/CLM-204518/messages/{agent['id']}/unhelpful")
    assert reply["outcome"] == "answered" and reply["answer"]["blocks"] == []
    assert agent["answer"]["schedule_facts"][0]["label"] == "Standard excess"
    assert marked.status_code == 200, marked.text
    assert [i.reason for i in items(database_url)] == ["claimant_unhelpful"]
