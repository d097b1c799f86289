"""The claim message API's edges: access, bad input, no schedule, a stopped store."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from agent.db.tables import Message, PolicyTerm, Turn, WaitingItem
from tests.conftest import TOKENS, load_corpus, make_live_app, store_settings, use_model
from tests.support import scripted


def count(database_url: str, model) -> int:
    engine = create_engine(database_url)
    with Session(engine) as session:
        n = session.scalar(select(func.count()).select_from(model))
    engine.dispose()
    return n


def test_another_claims_token_gets_404(live) -> None:
    with live.client(TOKENS["CLM-204519"]) as client:
        assert client.get("/claims/CLM-204518/messages").status_code == 404
        response = client.post("/claims/CLM-204518/messages", json={"text": "hello"})
    assert response.status_code == 404
    assert response.json()["detail"] == "no claim CLM-204518 for this access token"


def test_unknown_claim_and_missing_token(live, database_url) -> None:
    with live.client(TOKENS["CLM-204518"]) as client:
        assert client.post("/claims/CLM-000000/messages", json={"text": "hi"}).status_code == 404
    with live.client() as client:
        response = client.post("/claims/CLM-204518/messages", json={"text": "hi"})
    assert response.status_code == 401
    assert "Authorization: Bearer" in response.json()["detail"]
    assert count(database_url, Message) == 0


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"text": ""}, "text: Value error, message text is empty"),
        ({"text": "   \n "}, "text: Value error, message text is empty"),
        ({"text": "x" * 2001}, "text: String should have at most 2000 characters"),
        ({"message": "hi"}, "text: Field required"),
        ({"text": 42}, "text: Input should be a valid string"),
    ],
)
def test_bad_input_gets_a_clear_4xx_and_stores_nothing(live, database_url, body, problem) -> None:
    with live.client(TOKENS["CLM-204518"]) as client:
        response = client.post("/claims/CLM-204518/messages", json=body)
    assert response.status_code == 422
    assert response.json()["detail"] == problem
    assert count(database_url, Message) == 0 and count(database_url, Turn) == 0


def test_malformed_json_gets_a_clear_4xx(live, database_url) -> None:
    with live.client(TOKENS["CLM-204518"]) as client:
        response = client.post(
            "/claims/CLM-204518/messages", content=b"{not json", headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 422
    assert "JSON decode error" in response.json()["detail"]
    assert count(database_url, Message) == 0


def test_no_schedule_is_said_and_routed(live, database_url) -> None:
    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        # The claim's term has no schedule on file (a claim reads its term's schedule).
        term = session.scalars(select(PolicyTerm).where(PolicyTerm.policy_number == "KM-HOM-310442")).one()
        term.schedule = None
    engine.dispose()
    model = scripted()  # must never be called
    use_model(live, model)
    with live.client(TOKENS["CLM-310442"]) as client:
        reply = client.post("/claims/CLM-310442/messages", json={"text": "Am I covered?"}).json()
    assert reply["outcome"] == "no_schedule"
    assert "can't find a policy schedule" in reply["reply"]
    assert reply["waiting_list_reference"] and reply["citations"] == []
    assert model.seen == []
    engine = create_engine(database_url)
    with Session(engine) as session:
        item = session.scalars(select(WaitingItem)).one()
        assert item.reason == "no_schedule" and item.question == "Am I covered?"
    engine.dispose()


def test_conversation_lists_claimant_and_agent_messages(live) -> None:
    with live.client(TOKENS["CLM-402117"]) as client:
        client.post("/claims/CLM-402117/messages", json={"text": "What's the limit for jewellery?"})
        conversation = client.get("/claims/CLM-402117/messages").json()
    roles = [m["role"] for m in conversation["messages"]]
    assert roles == ["claimant", "agent"]
    assert conversation["messages"][0]["body"] == "What's the limit for jewellery?"
    assert conversation["messages"][1]["outcome"] in {"answered", "routed_to_staff"}


def test_openapi_and_chat_page_are_served(live) -> None:
    with live.client() as client:
        spec = client.get("/openapi.json").json()
        assert "/claims/{claim_id}/messages" in spec["paths"]
        page = client.get("/")
    assert page.status_code == 200 and "Ask about your claim" in page.text


@pytest.fixture
def own_store(sqlite_url):
    """A corpus on an S3 server of this test's own, so the test can stop it."""
    from agent.evaluation.localstore import start_local_s3
    from knowledge.store import ObjectStore

    server = start_local_s3()
    store = load_corpus(ObjectStore(store_settings(server.endpoint)))
    live = make_live_app(sqlite_url, store)
    yield live, server
    live.stop()
    server.stop()


def test_a_stopped_store_gives_unavailable_with_schedule_facts(own_store, sqlite_url) -> None:
    live, server = own_store
    with live.client(TOKENS["CLM-204518"]) as client:
        before = client.post(
            "/claims/CLM-204518/messages",
            json={"text": "Can I get a rental car while mine is being repaired?"},
        )
        assert before.json()["outcome"] == "answered"
        server.stop()
        reply = client.post(
            "/claims/CLM-204518/messages", json={"text": "How long can I keep the rental car?"}
        ).json()
        health = client.get("/health")
    assert reply["outcome"] == "unavailable"
    assert reply["citations"] == [] and reply["citations_verified"] is False
    assert "can't reach your policy wording" in reply["reply"]
    # Schedule facts the way a person reads them, from the labels kept with the schedule.
    assert "Alternative transport (hire car): included" in reply["reply"]
    assert "Excess for drivers under 25: NZD 500" in reply["reply"]
    assert "alternative_transport" not in reply["reply"] and "under_25" not in reply["reply"]
    assert reply["waiting_list_reference"] in reply["reply"]
    assert health.status_code == 503 and "unavailable" in health.json()["knowledge"]
    engine = create_engine(sqlite_url)
    with Session(engine) as session:
        bodies = session.scalars(select(Message.body).where(Message.role == "claimant")).all()
        item = session.scalars(select(WaitingItem)).one()
        turn = session.get(Turn, reply["turn_id"])
    engine.dispose()
    assert "How long can I keep the rental car?" in bodies
    assert item.reason == "knowledge_unavailable"
    assert turn.outcome == "unavailable" and turn.cited == [] and "KnowledgeUnavailable" in turn.error


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_logs_carry_ids_and_outcomes_not_message_text(live, caplog) -> None:
    import logging

    secret = "my neighbour Hemi saw the thief at 14 Kauri Street"
    with caplog.at_level(logging.DEBUG), live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": secret}).json()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert reply["turn_id"] in logged and "CLM-204518" in logged
    assert "Kauri" not in logged and "thief" not in logged


def test_a_wording_withdrawn_during_the_turn_is_not_served(wording_live, database_url) -> None:
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from knowledge.manifest import Registry

    live = wording_live
    store = live.app.state.services.runner.library.store
    rate = "We pay up to NZD 60 a day for up to 21 days for each event."

    def model(messages, info):
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": ["MTR-BEN-03"]})])
        # While the model writes its answer, a policy owner withdraws the wording.
        Registry(store).withdraw("motor", "2026.2", "Mere Tautahi", "error found in MTR-BEN-03")
        reply = {"outcome": "answered", "points": [{"clause_id": "MTR-BEN-03", "span": rate}]}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, reply)])

    use_model(live, FunctionModel(model))
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": "rental car?"}).json()
    assert reply["outcome"] == "unavailable" and reply["citations"] == []
    assert "NZD 60" not in reply["reply"]
    assert "has been withdrawn" in reply["reply"] and "can't reach" not in reply["reply"]
    engine = create_engine(database_url)
    with Session(engine) as session:
        turn = session.get(Turn, reply["turn_id"])
    engine.dispose()
    assert turn.returned == ["MTR-BEN-03"] and turn.cited == []
    assert "RegistryGap" in turn.error


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_closed_claim_takes_no_new_messages(live, database_url) -> None:
    from agent.db.tables import Claim

    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        session.get(Claim, "CLM-310442").status = "closed"
    engine.dispose()
    with live.client(TOKENS["CLM-310442"]) as client:
        response = client.post("/claims/CLM-310442/messages", json={"text": "hello?"})
        conversation = client.get("/claims/CLM-310442/messages")
    assert response.status_code == 409
    assert response.json()["detail"] == "claim CLM-310442 is closed; messages can no longer be sent"
    assert conversation.status_code == 200 and conversation.json()["status"] == "closed"
    assert count(database_url, Message) == 0


def test_each_reason_for_no_wording_has_its_own_sentence(wording_live, database_url) -> None:
    """No approved wording for the term, and a withdrawn wording: honest, different words."""
    from datetime import date

    from knowledge.manifest import Registry

    live = wording_live
    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        term = session.scalars(select(PolicyTerm).where(PolicyTerm.policy_number == "KM-HOM-310442")).one()
        term.term_start = date(2019, 3, 1)  # the claim's term now starts where no wording is approved
    engine.dispose()
    with live.client(TOKENS["CLM-310442"]) as client:
        none_approved = client.post("/claims/CLM-310442/messages", json={"text": "Am I insured for storms?"})
    Registry(live.app.state.services.runner.library.store).withdraw(
        "motor", "2026.2", "Mere Tautahi", "error found in MTR-BEN-03"
    )
    with live.client(TOKENS["CLM-204518"]) as client:
        withdrawn = client.post("/claims/CLM-204518/messages", json={"text": "rental car?"})
    for response in (none_approved, withdrawn):
        assert response.status_code == 200
        assert response.json()["outcome"] == "unavailable" and response.json()["citations"] == []
        assert "can't reach" not in response.json()["reply"]
    assert "no approved policy wording on record for your policy's term" in none_approved.json()["reply"]
    assert "has been withdrawn" in withdrawn.json()["reply"]
    assert "Excess for drivers under 25: NZD 500" in withdrawn.json()["reply"]


# Answers in part and messages that ask nothing ---------------------------------------------------

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
TWO_PARTS = "Can I get a rental car while mine is repaired, and will you pay the panel beater directly?"


def test_an_answer_in_part_serves_the_answer_and_sends_the_rest_to_staff(live, database_url) -> None:
    from tests.support import answer

    rest = "will you pay the panel beater directly?"
    use_model(
        live, scripted(["MTR-BEN-03"], answer("Half of it.", ("MTR-BEN-03", RATE), unanswered_part=rest))
    )
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": TWO_PARTS}).json()
    assert reply["outcome"] == "answered" and reply["answered_in_part"] is True
    reference = reply["waiting_list_reference"]
    assert reference and reference in reply["reply"]
    # One composed answer: the clause's sentence, the runtime's statement, the part in the
    # claimant's own words; nothing the model wrote.
    assert reply["reply"].count(f"“{RATE}”") == 1 and f"“{rest}”" in reply["reply"]
    assert "Half of it" not in reply["reply"] and reply["citations_verified"] is True
    engine = create_engine(database_url)
    with Session(engine) as session:
        [item] = session.scalars(select(WaitingItem).where(WaitingItem.claim_id == "CLM-204518")).all()
        turn = session.get(Turn, reply["turn_id"])
        # Staff get the whole message, with the part the answer left.
        assert (item.reference, item.reason, item.question, item.part) == (
            reference,
            "answered_in_part",
            TWO_PARTS,
            rest,
        )
        assert item.turn_id == turn.id and turn.outcome == "answered"
        assert turn.selection["unanswered_part"] == rest and turn.composed["text"] in reply["reply"]
    engine.dispose()


def test_a_part_not_in_the_claimants_words_is_corrected_or_routed(live, database_url) -> None:
    from tests.support import answer

    invented = answer("x", ("MTR-BEN-03", RATE), unanswered_part="your claim is approved")
    use_model(live, scripted(["MTR-BEN-03"], invented, invented))
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": TWO_PARTS}).json()
    assert reply["outcome"] == "routed_to_staff" and reply["route_reason"] == "failed_check"
    assert "approved" not in reply["reply"] and reply["answered_in_part"] is False


@pytest.mark.parametrize(
    ("text", "said", "model_steps_left"),
    [
        # Thanks: the runtime alone. An off-topic question: the model is asked, finds nothing to
        # fetch, and only then is the message left without a waiting item.
        ("Thanks, that's all I needed.", "NOTHING_ASKED", 2),
        ("who won the rugby last night?", "OFF_TOPIC", 0),
    ],
)
def test_a_message_that_asks_nothing_gets_the_runtime_s_sentence_and_no_waiting_item(
    live, database_url, text: str, said: str, model_steps_left: int
) -> None:
    from agent.boundary import replies

    model = scripted([], {"outcome": "nothing_asked", "lead": "Go Crusaders!"})
    use_model(live, model)
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": text}).json()
    assert reply["outcome"] == "nothing_asked" and reply["reply"] == getattr(replies, said)
    assert reply["waiting_list_reference"] is None and reply["answered_in_part"] is False
    assert count(database_url, WaitingItem) == 0
    assert len(model.remaining) == model_steps_left


@pytest.mark.parametrize(
    "text",
    [
        "Water is pouring through the lounge ceiling right now. What should I do?",
        "I want to make a complaint about how my claim is being handled",
        "Is my excess the same for a windscreen?",
    ],
)
def test_a_message_the_model_says_asks_nothing_is_never_dropped(live, database_url, text: str) -> None:
    use_model(live, scripted([], {"outcome": "nothing_asked"}))
    with live.client(TOKENS["CLM-204518"]) as client:
        reply = client.post("/claims/CLM-204518/messages", json={"text": text}).json()
    assert reply["outcome"] == "routed_to_staff" and reply["waiting_list_reference"] in reply["reply"]
    engine = create_engine(database_url)
    with Session(engine) as session:
        [item] = session.scalars(select(WaitingItem)).all()
    engine.dispose()
    assert item.question == text
    assert item.reason in ("urgent", "complaint", "model_found_no_question")


def test_the_reply_shape_is_in_openapi(live) -> None:
    with live.client() as client:
        schema = client.get("/openapi.json").json()["components"]["schemas"]["TurnReply"]
    props = schema["properties"]
    assert (
        props["answered_in_part"]["type"] == "boolean"
        and "waiting_list_reference" in (props["answered_in_part"]["description"])
    )
    assert set(props["outcome"]["enum"]) == {
        "answered",
        "routed_to_staff",
        "nothing_asked",
        "unavailable",
        "no_schedule",
    }
    assert "composed by the runtime" in props["reply"]["description"]
