"""The learning loop through HTTP: schedule-only answers earn like clauses, under any model
(finding 7); one measure from all evidence, where a clause no draft ever quoted earns from the
staff answers that cite it (findings 3 and 5); promotion in one action, checkpoints every N
evidence rows, automatic where the settings allow (Build 6)."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from tests.answering.support import drafting, events, handler, live_at, owner
from tests.conftest import STAFF_PASSWORDS, TOKENS, make_live_app, stop_live, use_model
from tests.staff.staff_web import web_login
from tests.support import answer, route, scripted, tool_returned

CLAIM = "CLM-204518"  # motor 2026.2, hire car on the schedule
BASE = "/staff/api/wording/motor/2026.2"
RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
SCHEDULE_ONLY = {"outcome": "answered", "points": [], "schedule_facts": ["standard"]}


def always_hire_car() -> FunctionModel:
    """A model (not the offline one) that answers every question from MTR-BEN-03's rate."""

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if tool_returned(messages) is None:
            return ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": ["MTR-BEN-03"]})])
        return ModelResponse(
            parts=[ToolCallPart(info.output_tools[0].name, answer("", ("MTR-BEN-03", RATE)))]
        )

    return FunctionModel(play, model_name="always-hire-car")


def ask(live, text: str) -> dict:
    with live.client(TOKENS[CLAIM]) as claimant:
        response = claimant.post(f"/claims/{CLAIM}/messages", json={"text": text})
    assert response.status_code == 200, response.text
    return response.json()


def subject(client, name: str) -> dict:
    return next(c for c in client.get(f"{BASE}/answering").json()["clauses"] if c["clause_id"] == name)


def test_a_schedule_only_answer_drafts_until_the_schedule_rule_earns_answering(live, database_url) -> None:
    drafting(database_url)
    use_model(live, scripted([], SCHEDULE_ONLY))
    held = ask(live, "What is my excess?")
    assert (held["outcome"], held["route_reason"]) == ("routed_to_staff", "drafted_for_review"), held
    with handler(live) as aroha:
        item = aroha.get(f"/staff/api/items/{held['waiting_list_reference']}").json()
        assert item["draft"] is not None
    # Both pages say why it drafted and what would let it answer (issue 41, Build 5).
    with live.client() as browser:
        assert web_login(browser, "mere.staff", STAFF_PASSWORDS["mere.staff"]).status_code == 303
        page = browser.get(f"/staff/items/{held['waiting_list_reference']}").text
        assert "Drafted for you rather than sent to the claimant, because:" in page
        assert (
            "the answer from the schedule alone has not earned answering: no served answer measured" in page
        )
        wording = (
            browser.get("/staff/wording").text.split('id="drafted-motor-2026-2"')[1].split("</ul></li>")[0]
        )
        assert held["waiting_list_reference"] in wording and "has not earned answering" in wording
    with owner(live) as mere:
        assert subject(mere, "#schedule")["mode"] == "drafts"
        moved = mere.post(
            f"{BASE}/answering/answers",
            json={
                "clause_ids": ["#schedule"],
                "check_id": _any_check(mere),
                "reason": "Schedule facts checked by hand today",
            },
        )
        assert moved.status_code == 200, moved.text
    use_model(live, scripted([], SCHEDULE_ONLY))
    served = ask(live, "What is my excess again?")
    assert served["outcome"] == "answered", served


def _any_check(client) -> str:
    """A release check of the version as it stands, to cite (the owner's documented first step)."""
    made = client.post(f"{BASE}/measure")
    assert made.status_code == 200, made.text
    return made.json()["measured_by"]


def test_a_clause_no_draft_quoted_earns_from_staff_answers_through_one_measure(
    database_url, corpus_store
) -> None:
    with live_at(database_url, corpus_store, 80.0) as live:
        drafting(database_url)
        # The model routes: no draft quotes MTR-BEN-03. A handler answers citing it, words kept.
        use_model(live, scripted(route("", "")))
        routed = ask(live, "How many days can I keep a rental car?")
        reference = routed["waiting_list_reference"]
        with handler(live) as aroha, owner(live) as mere:
            assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
            item = aroha.get(f"/staff/api/items/{reference}").json()
            sent = aroha.post(
                f"/staff/api/items/{reference}/answer",
                json={
                    "text": "Yes: " + RATE,
                    "citations": [{"clause_id": "MTR-BEN-03", "quote": RATE}],
                    "basis": item["basis"],
                    "evidence": {"question": "How many days can I keep a rental car?"},
                },
            )
            assert sent.status_code == 200, sent.text
            assert subject(mere, "MTR-BEN-03")["served"] == 0  # nothing measured yet

            # The measure replays the staff answer through the model the runtime serves.
            use_model(live, always_hire_car())
            measured = mere.post(f"{BASE}/measure")
            assert measured.status_code == 200, measured.text
            ben03 = next(c for c in measured.json()["clauses"] if c["clause_id"] == "MTR-BEN-03")
            assert (ben03["served"], ben03["wrong_or_irrelevant"], ben03["evidence_questions"]) == (1, 0, 1)
            check_id = measured.json()["measured_by"]
            check = mere.get(f"/staff/api/wording/checks/{check_id}").json()
            [row] = [c for c in check["clause_evidence"] if c["clause_id"] == "MTR-BEN-03"]
            # One measure: the check's own table, the API and approval say the same.
            assert (row["served"], row["upper_bound"]) == (1, ben03["upper_bound"]) == (1, 0.95)
            refused = mere.post(
                f"{BASE}/answering/answers", json={"clause_ids": ["MTR-BEN-03"], "check_id": check_id}
            )
            assert refused.status_code == 422
            assert "0 of 1 served answers wrong or irrelevant, upper bound 95.0%" in refused.json()["detail"]


@pytest.fixture
def auto(database_url, corpus_store):
    """Checkpoints every 2 evidence rows, promoting by themselves, at a bar of 80 %."""
    server = make_live_app(
        database_url, corpus_store, bar_wrong_percent=80.0, measure_every=2, auto_promote=True
    )
    yield server
    stop_live(server)


def test_checkpoints_measure_every_n_rows_and_promote_by_themselves(auto, database_url) -> None:
    drafting(database_url)
    with handler(auto) as aroha, owner(auto) as mere:
        for text in ("How many days can I keep a rental car?", "How long is hire car cover?"):
            use_model(auto, always_hire_car())
            drafted = ask(auto, text)
            assert drafted["route_reason"] == "drafted_for_review", drafted
            reference = drafted["waiting_list_reference"]
            draft = aroha.get(f"/staff/api/items/{reference}").json()["draft"]
            sent = aroha.post(
                f"/staff/api/items/{reference}/send-draft",
                json={"draft_id": draft["id"], "evidence": {"question": text}},
            )
            assert sent.status_code == 200, sent.text
        auto.app.state.services.checkpoints.wait()
        shown = mere.get(f"{BASE}/answering").json()
        assert shown["measured_by"] is not None and shown["evidence_rows_since"] == 0
        ben03 = next(c for c in shown["clauses"] if c["clause_id"] == "MTR-BEN-03")
        assert (ben03["served"], ben03["wrong_or_irrelevant"], ben03["mode"]) == (2, 0, "answers")
        promoted = [h for h in shown["history"] if h["automatic"] and h["mode"] == "answers"]
        assert {h["clause_id"] for h in promoted} >= {"MTR-BEN-03"}
        assert all(h["changed_by"] == "checkpoint" for h in promoted)
    assert any(
        e["clause_id"] == "MTR-BEN-03" and e["automatic"] for e in events(database_url, "clause_promoted")
    )
    use_model(auto, always_hire_car())
    assert ask(auto, "And the hire car, how many days?")["outcome"] == "answered"


def test_the_owner_promotes_what_meets_the_bar_in_one_action(database_url, corpus_store) -> None:
    with live_at(database_url, corpus_store, 80.0) as live:
        drafting(database_url)
        with handler(live) as aroha, owner(live) as mere:
            for text in ("How many days can I keep a rental car?", "How long is hire car cover?"):
                use_model(live, always_hire_car())
                reference = ask(live, text)["waiting_list_reference"]
                draft = aroha.get(f"/staff/api/items/{reference}").json()["draft"]
                body = {"draft_id": draft["id"], "evidence": {"question": text}}
                assert aroha.post(f"/staff/api/items/{reference}/send-draft", json=body).status_code == 200
            assert aroha.post(f"{BASE}/answering/promote", json={}).status_code == 403
            use_model(live, always_hire_car())
            moved = mere.post(f"{BASE}/answering/promote", json={})
            assert moved.status_code == 200, moved.text
            assert "MTR-BEN-03" in {c["clause_id"] for c in moved.json()["changes"]}
            assert subject(mere, "MTR-BEN-03")["mode"] == "answers"
            again = mere.post(f"{BASE}/answering/promote", json={})
            assert again.status_code == 200 and again.json()["changes"] == []


def test_a_served_answer_flagged_wrong_is_corrected_for_the_claimant(live, database_url) -> None:
    use_model(live, scripted(["MTR-BEN-03"], answer("", ("MTR-BEN-03", RATE))))
    served = ask(live, "How long can I keep a hire car?")  # the test seed has the version answering
    assert served["outcome"] == "answered", served
    with handler(live) as aroha:
        for _ in range(2):  # the second flag changes nothing
            assert aroha.post(f"/staff/api/turns/{served['turn_id']}/flag", json={}).status_code == 200
        items = aroha.get("/staff/api/items", params={"status": "waiting"}).json()["items"]
        [item] = [i for i in items if i["reason"] == "answer_flagged_wrong"]
    with live.client(TOKENS[CLAIM]) as claimant:
        conversation = claimant.get(f"/claims/{CLAIM}/messages").json()["messages"]
    notices = [m["body"] for m in conversation if "A correction:" in m["body"]]
    assert len(notices) == 1 and item["reference"] in notices[0]
    [event] = events(database_url, "answer_flagged")
    assert (event["turn_id"], event["reference"], event["cited"]) == (
        served["turn_id"],
        item["reference"],
        ["MTR-BEN-03"],
    )
