"""The runtime's own reading of a message: what it may leave without a person (chatter, a
question about something else entirely) and what it never may (anything about the policy, the
claim or insurance, urgency, a complaint, a request)."""

from __future__ import annotations

import pytest

from agent.boundary.triage import known_words, triage


@pytest.mark.parametrize(
    "text",
    [
        "Do you give discounts for security alarms?",
        "Would a monitored alarm make my premium cheaper?",
        "Is there a no-claims bonus on this policy?",
        "Can my deductible be lowered?",
    ],
)
def test_a_question_about_the_price_or_terms_of_insurance_is_a_question(text: str) -> None:
    assert triage(text).kind == "question"


@pytest.mark.parametrize(
    "text", ["who won the rugby last night?", "Which team do you think will win the cricket this summer?"]
)
def test_a_question_about_something_else_entirely_is_off_topic(text: str) -> None:
    assert triage(text).kind == "off_topic"


def test_the_claimant_s_own_words_make_a_question_theirs() -> None:
    text = "Does the marina berth count for anything here?"
    assert triage(text).kind == "off_topic"
    assert triage(text, known_words("Boat moored at a marina berth")).kind == "question"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Thanks, that's all I needed.", "chatter"),
        ("Kia ora", "chatter"),
        ("Water is pouring through the ceiling right now. What should I do?", "urgent"),
        ("I want to make a complaint about how my claim is being handled", "complaint"),
    ],
)
def test_chatter_urgency_and_complaints_are_told_apart(text: str, kind: str) -> None:
    assert triage(text).kind == kind
