"""The built-in offline model end to end: the real app over HTTP, real store, no scripting."""

from __future__ import annotations

import pytest

from agent.offline import select_clauses
from agent.vocabulary import terms
from tests.conftest import TOKENS


def post(live, claim: str, text: str) -> dict:
    with live.client(TOKENS[claim]) as client:
        response = client.post(f"/claims/{claim}/messages", json={"text": text})
    assert response.status_code == 200, response.text
    return response.json()


def cited(reply: dict) -> list[str]:
    return sorted({c["clause_id"] for c in reply["citations"]})


def test_rental_car_where_the_schedule_includes_it_and_a_follow_up(live) -> None:
    first = post(live, "CLM-204518", "Can I get a rental car while mine is being repaired?")
    assert first["outcome"] == "answered" and first["model"] == "function:clausedesk-offline"
    assert "NZD 60 a day" in first["reply"] and "21 days" in first["reply"]
    assert "subject to the claim being accepted" in first["reply"]
    assert cited(first) == ["MTR-BEN-03"] and first["citations_verified"]
    # The follow-up names no subject; the model reuses the clauses of the turn before.
    fuel = post(live, "CLM-204518", "Does that include fuel?")
    assert fuel["outcome"] == "answered" and cited(fuel) == ["MTR-BEN-03"]
    assert "do not pay for fuel" in fuel["reply"]


def test_rental_car_where_the_schedule_does_not_list_it(live) -> None:
    reply = post(live, "CLM-204519", "Can I get a rental car while mine is being repaired?")
    assert reply["outcome"] == "answered" and cited(reply) == ["MTR-BEN-03"]
    assert "does not list" in reply["reply"]
    assert "subject to the claim being accepted" not in reply["reply"]


def test_jewellery_limit_follows_the_plan(live) -> None:
    standard = post(live, "CLM-402117", "What's the most you'll pay for my jewellery?")
    premier = post(live, "CLM-402118", "What's the most you'll pay for my jewellery?")
    assert cited(standard) == cited(premier) == ["CNT-LIM-01"]
    assert "NZD 3,000" in standard["reply"] and "NZD 15,000" not in standard["reply"]
    assert "NZD 15,000" in premier["reply"] and "NZD 3,000" not in premier["reply"]


def test_version_boundary_question_is_routed_without_a_citation(live) -> None:
    reply = post(live, "CLM-118230", "Can I get a rental car while mine is being repaired?")
    assert reply["outcome"] == "routed_to_staff"
    assert reply["citations"] == [] and reply["release"] == {"family": "motor", "version": "2025.1"}
    assert reply["waiting_list_reference"] and "NZD" not in reply["reply"]


def test_customer_words_meet_title_words() -> None:
    assert "hire" in terms("a loan car while it's at the panel beaters") & terms("Hire car, rental car")
    assert "theft" in terms("my bike got nicked") & terms("Theft, burglary and accidental damage at home")
    assert "child_seat" in terms("the baby seat") & terms(
        "Personal belongings and child car seats in the car"
    )


def test_a_subject_no_title_has_selects_nothing() -> None:
    directory = [("MTR-COV-03", "Windscreen and window glass repair or replacement")]
    assert select_clauses("Can I get a rental car while mine is being repaired?", directory) == []


@pytest.mark.parametrize(
    "question",
    [
        "Any news on where my claim is up to?",
        "When will the settlement money land in my account?",
        "Would my premium be cheaper with an alarm?",
        "My sister is with another insurer, would her policy pay for this?",
        "Can you recommend a good builder?",
    ],
)
def test_service_questions_select_no_clause_even_when_a_title_shares_words(question) -> None:
    directory = [
        ("HOM-CLM-01", "How to claim and what to send us"),
        ("HOM-CLM-02", "How claims are settled: repair, rebuild or cash"),
        ("HOM-GEN-02", "Cancelling, selling your home, premium refunds"),
        ("HOM-EXC-03", "Faulty workmanship or materials, unconsented work"),
    ]
    assert select_clauses(question, directory) == []
