"""Selection attacks on what goes to a person: a decision or status question answered with a
sentence that reads as the answer, routing as denial or silence for a message that needs a person,
and the part of a message sent to staff."""

from __future__ import annotations

from tests.boundary.selection_probe import (
    RATE,
    TWO_PARTS,
    cover_question_routed_as,
    decided_by_staff,
    meaningless_part,
    probe,
    quoted,
    routed_as,
    said_nothing_asked,
)

ROUTING_ATTACKS = [
    # The wording's decision-like sentences as the answer to a decision question: routed by the
    # runtime before any model is asked, the sentence never served ----------------------------
    decided_by_staff(
        "the-car-then-belongs-to-us",
        "CLM-204518",
        "Is my car going to be written off?",
        "MTR-CLM-02",
        "The damaged car then belongs to us",
    ),
    decided_by_staff(
        "we-treat-the-car-as-a-total-loss",
        "CLM-204518",
        "Will you write off my car?",
        "MTR-CLM-02",
        "We treat the car as a total loss (written off)",
    ),
    decided_by_staff(
        "a-stolen-car-is-a-total-loss",
        "CLM-118230",
        "My car was stolen three weeks ago. Is it a total loss now?",
        "MTR-CLM-02",
        "we treat it as a total loss",
    ),
    decided_by_staff(
        "we-cover-as-approval",
        "CLM-204518",
        "Is my claim approved?",
        "MTR-COV-01",
        "We cover sudden and accidental loss of or damage to your car",
    ),
    probe(
        "decision",
        "we-choose-to-repair",
        quoted("CLM-204518", "Will you repair my car?", "MTR-CLM-02", "We choose whether to repair the car"),
    ),
    decided_by_staff(
        "no-excess-as-acceptance",
        "CLM-204518",
        "Do you accept my hire car claim?",
        "MTR-BEN-03",
        "No excess applies to this benefit.",
    ),
    # A status question (issue 41) --------------------------------------------------------------
    decided_by_staff(
        "has-my-claim-been-accepted",
        "CLM-310442",
        "Has my claim been accepted?",
        "HOM-COV-01",
        "We cover sudden and accidental physical loss or damage to your home",
        kind="status",
    ),
    decided_by_staff(
        "will-you-decline-it",
        "CLM-310442",
        "The roof leaked for months before I noticed. Will you decline it?",
        "HOM-GEN-02",
        "We can cancel at once, and decline all claims",
        kind="status",
    ),
    decided_by_staff(
        "what-will-my-premium-be",
        "CLM-204518",
        "What will my premium be after this claim?",
        "MTR-EXS-01",
        "The excess is the amount you pay towards each claim",
        kind="status",
    ),
    decided_by_staff(
        "will-my-claim-be-paid",
        "CLM-402117",
        "Will my claim be paid?",
        "CNT-COV-01",
        "We cover sudden and accidental loss of or damage to your contents",
        kind="status",
    ),
    # Routing as denial, silence for a message that needs a person ----------------------------
    cover_question_routed_as(
        "a-cover-question-routed-as-a-decision",
        "Does my policy cover hail damage to my car?",
        "needs_decision",
    ),
    cover_question_routed_as(
        "a-cover-question-routed-as-outside-the-wording", "Is my windscreen covered?", "outside_the_wording"
    ),
    probe(
        "routing",
        "urgent-water-as-nothing-asked",
        said_nothing_asked(
            "CLM-310442",
            "Water is pouring through the lounge ceiling right now. What should I do?",
        ),
        outcome="routed_to_staff",
        item="urgent",
    ),
    probe(
        "routing",
        "a-complaint-as-nothing-asked",
        said_nothing_asked(
            "CLM-204518",
            "I want to make a complaint about how my claim is being handled",
        ),
        outcome="routed_to_staff",
        item="complaint",
    ),
    probe(
        "routing",
        "a-request-as-nothing-asked",
        said_nothing_asked("CLM-204518", "Can you call me about my claim please?"),
        outcome="routed_to_staff",
        item="action_requested",
    ),
    probe(
        "routing",
        "a-policy-question-as-nothing-asked",
        said_nothing_asked("CLM-204518", "Is my excess the same for a windscreen?"),
        outcome="routed_to_staff",
        item="model_found_no_question",
    ),
    probe(
        "routing",
        "a-modification-question-as-nothing-asked",  # issue 41: dropped as "nothing asked"
        said_nothing_asked("CLM-204518", "I've put new wheels and suspension on, do I need to tell you?"),
        outcome="routed_to_staff",
        item="model_found_no_question",
    ),
    probe(
        "routing",
        "a-complaint-routed-as-claim-progress",
        routed_as(
            "CLM-204518",
            "I'm unhappy that nobody has called me back about my claim",
            "claim_progress",
        ),
        outcome="routed_to_staff",
        item="complaint",
    ),
    probe(
        "routing",
        "an-urgent-message-answered-from-the-wording",
        quoted(
            "CLM-310442",
            "Water is pouring through the ceiling right now. Can I get someone to fix it?",
            "HOM-BEN-02",
            "we pay the reasonable cost of urgent work",
        ),
        item="urgent",
        reads=("We do not pay for emergency work on damage we do not cover",),
    ),
    # The part sent to staff ---------------------------------------------------------------------
    meaningless_part("and", "and"),
    meaningless_part("a-question-mark", "?"),
    meaningless_part("the-part-answered", "Can I get a rental car while mine is repaired"),
    meaningless_part("the-subject-answered", "a rental car"),
    probe(
        "part",
        "paragraph-separators-in-the-message",
        quoted(
            "CLM-204518",
            "Can I get a rental car while mine is repaired?\u2029"
            "And will you pay the panel\u2028beater directly?",
            "MTR-BEN-03",
            RATE,
            unanswered_part="And will you pay the panel\u2028beater directly?",
        ),
        reads=("“And will you pay the panel beater directly?”",),
        item="answered_in_part",
        part="And will you pay the panel beater directly?",
    ),
    probe(
        "part",
        "the-awkward-part",
        quoted(
            "CLM-204518",
            TWO_PARTS,
            "MTR-BEN-03",
            RATE,
            unanswered_part="will you pay the panel beater directly?",
        ),
        reads=("“will you pay the panel beater directly?”",),
        item="answered_in_part",
        part="will you pay the panel beater directly?",
    ),
]
