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
        ("I'm really unhappy with this. How do I complain?", "complaint"),
        ("This is appalling, who do I complain to?", "complaint"),
        ("How do I make a complaint?", "question"),
        ("how do i complain", "complaint"),  # no question mark: read as saying it, a person sees it
        ("What is your complaints process?", "question"),
        ("Who can I take a dispute to if we don't agree on the repair?", "question"),
    ],
)
def test_chatter_urgency_and_complaints_are_told_apart(text: str, kind: str) -> None:
    assert triage(text).kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "I've put new wheels and suspension on, do I need to tell you?",
        "We're adding a sleepout out the back, should we let you know?",
        "My son is learning to drive now, does that change anything?",
        "I'm working from home three days a week, does that matter?",
    ],
)
def test_a_question_about_the_claimant_s_own_things_is_never_dropped(text: str) -> None:
    """Issue 41: "I've put new wheels and suspension on, do I need to tell you?" got "Ask about
    your policy or your claim here" with nothing put in front of staff."""
    assert triage(text).kind == "question"


@pytest.mark.parametrize(
    "text",
    [
        "Has my claim been accepted?",
        "Will you decline it?",
        "What will my premium be after this?",
        "Is my car going to be written off?",
        "Will my claim be paid?",
    ],
)
def test_a_question_about_a_decision_on_the_claim_or_the_premium_goes_to_a_person(text: str) -> None:
    assert triage(text).kind == "claim_decision" and triage(text).needs_person


@pytest.mark.parametrize(
    "text", ["Will you pay for a rental car?", "Will you repair my car?", "Is hail covered?"]
)
def test_a_question_about_what_the_policy_pays_for_is_not_a_decision_question(text: str) -> None:
    assert triage(text).kind == "question"


# Messages that ask nothing of the insurer, and questions that do: the share of chatter the
# runtime sends on (to the model and, failing it, to staff) is reported, so routing everything
# is not how nothing is dropped.
CHATTER = [
    "Thanks, that's all I needed.",
    "Kia ora",
    "Cheers!",
    "ok great thanks",
    "who won the rugby last night?",
    "Which team do you think will win the cricket this summer?",
    "Did you guys watch the game?",
    "What's your favourite colour?",
    "Is it going to rain in Wellington tomorrow?",
    "Have a nice weekend",
]
POLICY_QUESTIONS = [
    "I've put new wheels and suspension on, do I need to tell you?",
    "Is my excess the same for a windscreen?",
    "Do I need a quote before the repair?",
    "Can my partner drive my car?",
    "What happens if I'm overseas when it's stolen?",
    "My mum is staying with us for a month, is her stuff covered?",
]


def test_no_policy_question_is_read_as_asking_nothing_and_chatter_mostly_is() -> None:
    dropped = [t for t in POLICY_QUESTIONS if triage(t).silent or triage(t).kind == "off_topic"]
    sent_on = [t for t in CHATTER if not (triage(t).silent or triage(t).kind == "off_topic")]
    share = len(sent_on) / len(CHATTER)
    print(f"\nchatter sent on for a model or staff: {len(sent_on)} of {len(CHATTER)} ({share:.0%})", sent_on)
    assert dropped == []
    assert share <= 0.2
