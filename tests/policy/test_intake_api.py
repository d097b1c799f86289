"""The insurer's systems put policies, terms and claims in through HTTP, and each claim is
answered from the wording of the term in force on its incident date."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from agent.db.tables import IntakeAudit, Message, PolicyTerm, WaitingItem
from tests.conftest import STAFF_TOKENS, TOKENS
from tests.policy.intake_support import RENEWAL, integration_token, two_term_policy

POLICY = "KM-MTR-900001"


def count(url: str, query) -> int:
    engine = create_engine(url)
    with Session(engine) as session:
        value = session.scalar(query)
    engine.dispose()
    return value


@pytest.fixture
def intake(live):
    """An integration client on the live app, and its HTTP client."""
    with live.client(integration_token(live)) as client:
        yield client


def put_claim(intake, claim_id: str, incident_date: str | None, **extra) -> dict:
    body = {"policy_number": POLICY, "incident_date": incident_date, "incident": "Collision.", **extra}
    response = intake.put(f"/integration/api/claims/{claim_id}", json=body)
    assert response.status_code in (200, 201), response.text
    return response.json()


def ask(live, claim_id: str, code: str, text: str) -> dict:
    with live.client(code) as client:
        response = client.post(f"/claims/{claim_id}/messages", json={"text": text})
    assert response.status_code == 200, response.text
    return response.json()


def test_two_terms_each_claim_answered_from_its_terms_wording_across_the_renewal(live, intake) -> None:
    created = intake.put(f"/integration/api/policies/{POLICY}", json=two_term_policy())
    assert created.status_code == 201 and created.json()["created"] and created.json()["changed"]
    stored = intake.get(f"/integration/api/policies/{POLICY}").json()
    assert [t["term_start"] for t in stored["terms"]] == ["2025-08-01", RENEWAL]

    mid_earlier = put_claim(intake, "CLM-900001", "2026-02-10")
    day_before = put_claim(intake, "CLM-900002", "2026-07-31")
    renewal_day = put_claim(intake, "CLM-900003", RENEWAL)
    assert mid_earlier["term"] == {"term_start": "2025-08-01", "term_end": RENEWAL}
    assert day_before["term"]["term_start"] == "2025-08-01"
    assert renewal_day["term"] == {"term_start": RENEWAL, "term_end": "2027-08-01"}

    towing = "Is towing covered after an accident?"
    earlier = ask(live, "CLM-900001", mid_earlier["access_code"], towing)
    assert earlier["outcome"] == "answered", earlier
    assert earlier["release"] == {"family": "motor", "version": "2025.1"}
    assert {c["version"] for c in earlier["citations"]} == {"2025.1"}

    # The renewal boundary both ways, the same question answered from each term's wording.
    for claim, version in ((day_before, "2025.1"), (renewal_day, "2026.2")):
        claim_id = "CLM-900002" if claim is day_before else "CLM-900003"
        towed = ask(live, claim_id, claim["access_code"], towing)
        assert towed["outcome"] == "answered", towed
        assert towed["release"] == {"family": "motor", "version": version}
        assert {c["version"] for c in towed["citations"]} == {version}

    hire_car = "Do I get a rental car while my car is being repaired?"
    before = ask(live, "CLM-900002", day_before["access_code"], hire_car)
    on_renewal = ask(live, "CLM-900003", renewal_day["access_code"], hire_car)
    # The day before renewal: the old term's wording (2025.1, which has no hire-car clause).
    assert before["release"] == {"family": "motor", "version": "2025.1"}
    assert "MTR-BEN-03" not in {c["clause_id"] for c in before["citations"]}
    # The renewal day: the new term's wording and its schedule (alternative transport listed).
    assert on_renewal["outcome"] == "answered", on_renewal
    assert on_renewal["release"] == {"family": "motor", "version": "2026.2"}
    assert "MTR-BEN-03" in {c["clause_id"] for c in on_renewal["citations"]}
    assert "your schedule lists alternative transport (hire car)" in on_renewal["reply"]


def test_a_claim_without_an_incident_date_is_routed_with_its_reason(live, intake, database_url) -> None:
    intake.put(f"/integration/api/policies/{POLICY}", json=two_term_policy())
    undated = put_claim(intake, "CLM-900010", None)
    assert undated["term"] is None and undated["warnings"]
    outside = put_claim(intake, "CLM-900011", "2024-01-05")
    assert outside["term"] is None and "no term" in outside["warnings"][0]

    for claim_id, claim in (("CLM-900010", undated), ("CLM-900011", outside)):
        reply = ask(live, claim_id, claim["access_code"], "Is towing covered after an accident?")
        assert reply["outcome"] == "routed_to_staff" and reply["route_reason"] == "no_term_for_incident"
        assert "until the date of the incident is known" in reply["reply"]
        assert reply["citations"] == [] and reply["release"] is None
        assert reply["waiting_list_reference"] in reply["reply"]
    reasons = (
        select(func.count()).select_from(WaitingItem).where(WaitingItem.reason == "no_term_for_incident")
    )
    assert count(database_url, reasons) == 2


def test_the_same_request_twice_changes_nothing_and_says_so(live, intake, database_url) -> None:
    first = intake.put(f"/integration/api/policies/{POLICY}", json=two_term_policy())
    again = intake.put(f"/integration/api/policies/{POLICY}", json=two_term_policy())
    assert first.status_code == 201 and again.status_code == 200
    assert again.json() == {**again.json(), "created": False, "changed": False, "changes": {}}
    claim = put_claim(intake, "CLM-900020", "2026-03-01")
    claim_again = put_claim(intake, "CLM-900020", "2026-03-01")
    assert claim["created"] and claim["access_code"]
    assert not claim_again["changed"] and claim_again["access_code"] is None
    audit = (
        select(func.count()).select_from(IntakeAudit).where(IntakeAudit.actor == "integration:kowhai-claims")
    )
    assert count(database_url, audit) == 2

    # A change is audited field by field, with who made it.
    moved = put_claim(intake, "CLM-900020", "2026-09-01")
    assert moved["changes"] == {"incident_date": ["2026-03-01", "2026-09-01"]}
    assert moved["term"]["term_start"] == RENEWAL
    engine = create_engine(database_url)
    with Session(engine) as session:
        last = session.scalars(select(IntakeAudit).order_by(IntakeAudit.id.desc())).first()
        assert (last.actor, last.action, last.subject) == (
            "integration:kowhai-claims",
            "claim_updated",
            "CLM-900020",
        )
        assert last.changes == {"incident_date": ["2026-03-01", "2026-09-01"]}
    engine.dispose()


def test_a_renewal_sent_alone_keeps_the_earlier_terms(live, intake, database_url) -> None:
    policy = two_term_policy()
    first, renewal = policy["terms"]
    intake.put(f"/integration/api/policies/{POLICY}", json={**policy, "terms": [first]})
    response = intake.put(f"/integration/api/policies/{POLICY}", json={**policy, "terms": [renewal]})
    assert response.status_code == 200 and list(response.json()["changes"]) == [f"terms.{RENEWAL}"]
    terms = select(func.count()).select_from(PolicyTerm).where(PolicyTerm.policy_number == POLICY)
    assert count(database_url, terms) == 2


def test_every_invalid_field_is_named_and_nothing_is_stored(live, intake, database_url) -> None:
    bad = two_term_policy()
    bad["family"] = "Motor!"
    bad["policyholder"] = ""
    bad["terms"][0]["term_end"] = "2025-07-01"
    bad["terms"][0]["schedule"]["excess"]["standard"] = -5
    del bad["terms"][1]["plan"]
    bad["terms"][1]["colour"] = "red"
    response = intake.put(f"/integration/api/policies/{POLICY}", json=bad)
    assert response.status_code == 422
    detail = response.json()["detail"]
    for field in (
        "family:",
        "policyholder:",
        "terms.0.term_end: Value error, must be after term_start 2025-08-01",
        "terms.0.schedule.excess.standard",
        "terms.1.plan: Field required",
        "terms.1.colour: Extra inputs are not permitted",
    ):
        assert field in detail, (field, detail)
    assert count(database_url, select(func.count()).select_from(PolicyTerm)) == 6  # the seed's own

    overlapping = two_term_policy()
    overlapping["terms"][1]["term_start"] = "2026-06-01"
    response = intake.put(f"/integration/api/policies/{POLICY}", json=overlapping)
    assert response.status_code == 422 and response.json()["detail"].startswith("terms: Value error, terms 0")
    assert "overlap" in response.json()["detail"]

    intake.put(f"/integration/api/policies/{POLICY}", json=two_term_policy())
    clash = {**two_term_policy(), "terms": [{**two_term_policy()["terms"][1], "term_start": "2026-05-01"}]}
    response = intake.put(f"/integration/api/policies/{POLICY}", json=clash)
    assert response.status_code == 422
    assert response.json()["detail"].startswith("terms.0: 2026-05-01 to 2027-08-01 overlaps the stored term")

    response = intake.put(
        "/integration/api/claims/CLM-900030",
        json={"policy_number": "KM-MTR-999999", "incident_date": "2026-13-01", "status": "settled"},
    )
    assert response.status_code == 422
    assert "incident_date:" in response.json()["detail"] and "status:" in response.json()["detail"]
    response = intake.put("/integration/api/claims/CLM-900030", json={"policy_number": "KM-MTR-999999"})
    assert response.status_code == 422
    assert response.json()["detail"] == "policy_number: no policy KM-MTR-999999; upsert the policy first"
    response = intake.put("/integration/api/policies/km lower", json=two_term_policy())
    assert response.status_code == 422 and "policy_number" in response.json()["detail"]


def test_closing_a_claim_stops_new_questions_and_the_chat_says_so(live, intake, database_url) -> None:
    closed = intake.put("/integration/api/claims/CLM-204518/status", json={"status": "closed"})
    assert closed.status_code == 200 and closed.json()["changes"] == {"status": ["open", "closed"]}
    again = intake.put("/integration/api/claims/CLM-204518/status", json={"status": "closed"})
    assert again.json()["changed"] is False
    with live.client(TOKENS["CLM-204518"]) as client:
        refused = client.post("/claims/CLM-204518/messages", json={"text": "Is towing covered?"})
        conversation = client.get("/claims/CLM-204518/messages").json()
    assert refused.status_code == 409 and "closed" in refused.json()["detail"]
    assert conversation["status"] == "closed"
    assert count(database_url, select(func.count()).select_from(WaitingItem)) == 0
    assert count(database_url, select(func.count()).select_from(Message)) == 0
    missing = intake.put("/integration/api/claims/CLM-000404/status", json={"status": "closed"})
    assert missing.status_code == 404


def test_only_integration_tokens_open_the_intake_api(live, intake) -> None:
    for token in (STAFF_TOKENS["aroha.staff"], TOKENS["CLM-204518"], "not-a-token"):
        with live.client(token) as client:
            response = client.put(f"/integration/api/policies/{POLICY}", json=two_term_policy())
        assert response.status_code == 401 and response.json()["detail"] == "not an integration token"
    with live.client() as client:
        assert client.get(f"/integration/api/policies/{POLICY}").status_code == 401


def test_the_intake_api_is_documented_in_openapi(live) -> None:
    with live.client() as client:
        spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    assert {"put", "get"} <= set(paths["/integration/api/policies/{policy_number}"])
    assert "put" in paths["/integration/api/claims/{claim_id}"]
    assert "put" in paths["/integration/api/claims/{claim_id}/status"]
    assert paths["/integration/api/claims/{claim_id}"]["put"]["tags"] == ["integration"]
    assert "TermIn" in spec["components"]["schemas"]


def test_a_section_no_clause_names_is_accepted_with_a_warning_that_says_so(live, intake) -> None:
    intake_live = live
    body = two_term_policy()
    body["terms"][1]["schedule"]["sections"] = ["alternative_transport", "mechanical_breakdown"]
    put = intake.put("/integration/api/policies/KM-MTR-900002", json=body)
    assert put.status_code == 201, put.text
    [warning] = put.json()["warnings"]
    assert warning.startswith("terms.1.schedule.sections: mechanical_breakdown is named by no clause")
    assert "motor wording 2026.2" in warning and "alternative_transport" in warning  # what it names
    # The staff page of a claim on that term says so beside the schedule.
    claim = intake.put(
        "/integration/api/claims/CLM-900020",
        json={"policy_number": "KM-MTR-900002", "incident_date": "2026-09-01", "incident": "Collision."},
    ).json()
    routed = ask(intake_live, "CLM-900020", claim["access_code"], "Has my claim been accepted yet?")
    with intake_live.client(STAFF_TOKENS["aroha.staff"]) as staff:
        shown = staff.get(f"/staff/api/items/{routed['waiting_list_reference']}").json()["claim"]
    [said] = shown["schedule_warnings"]
    assert "mechanical_breakdown" in said and "nothing is added by it" in said
    # The known section alone: no word.
    body["terms"][1]["schedule"]["sections"] = ["alternative_transport"]
    again = intake.put("/integration/api/policies/KM-MTR-900002", json=body)
    assert again.status_code == 200 and again.json()["warnings"] == [], again.text
