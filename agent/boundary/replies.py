"""The runtime's own words to the claimant, for every turn that does not end in a checked answer.

No model text reaches the claimant on these turns: each reason a question gets no answer has
its own honest sentence, then what happens next and the waiting-list reference.
"""

from __future__ import annotations

from agent.policy.schedule import ScheduleView

NOTHING_DECIDED = "Nothing about your claim has been decided."

# Why no answer was given, in plain words, one sentence per route reason.
_NOT_FOUND = "I couldn't find a part of your policy wording that answers this, and I won't guess."
_SYSTEM_PROBLEM = "Our answering system had a problem with your question, and I won't guess."
_SYSTEM_UNREACHABLE = "Our answering system can't be reached right now, and I won't guess."
WHY: dict[str, str] = {
    "no_clause_selected": _NOT_FOUND,
    "clause_not_in_directory": _NOT_FOUND,
    "clauses_do_not_answer": (
        "The parts of your policy wording I checked don't answer this clearly, and I won't guess."
    ),
    "needs_decision": "This needs a decision about your claim, which only our claims team can make.",
    "claim_progress": (
        "This is a question about the progress of your claim, which only our claims team can answer."
    ),
    "request_for_staff": "This is a request for our claims team to act on, which I can't do from this chat.",
    "outside_the_wording": (
        "A policy wording doesn't answer this kind of question (advice, prices, other products or "
        "legal steps), so I won't guess."
    ),
    "failed_check": (
        "I couldn't give you an answer that I could check word for word against your policy "
        "wording, so I won't guess."
    ),
    "model_timeout": "I couldn't finish answering this in time, and I won't give you a half answer.",
    "model_error": _SYSTEM_PROBLEM,
    "model_server_error": _SYSTEM_PROBLEM,
    "model_rate_limited": "Our answering system is busy right now, and I won't guess.",
    "model_unreachable": _SYSTEM_UNREACHABLE,
    "model_auth_error": _SYSTEM_UNREACHABLE,
    "model_bad_output": "Our answering system gave an answer I couldn't use, and I won't guess.",
    "interrupted": "Your message reached us, but our system was interrupted before I could answer it.",
    "no_schedule": (
        "I can't find a policy schedule for this claim, so I can't answer from your policy wording."
    ),
    # A claim belongs to the policy term in force on the incident date, and that term
    # decides which wording applies.
    "no_term_for_incident": (
        "I can't tell which policy wording applies to your claim until the date of the incident is "
        "known and falls within one of your policy's terms, so I won't quote any wording yet."
    ),
}

# Why the policy wording could not be used, by kind (see turn.WordingUnavailable).
WORDING: dict[str, str] = {
    "store_unreachable": (
        "I can't reach your policy wording right now, so I can't quote or rely on any clause for "
        "this question."
    ),
    "no_approved_wording": (
        "There is no approved policy wording on record for your policy's term, so I can't quote "
        "or rely on any clause."
    ),
    "wording_withdrawn": (
        "The policy wording for your policy's term has been withdrawn for review, so I can't quote "
        "or rely on it."
    ),
    "wording_conflict": (
        "More than one policy wording is on record for your policy's term, so I can't tell which "
        "one applies and won't quote either."
    ),
    "wording_damaged": (
        "Your policy wording failed an integrity check, so I can't quote or rely on any clause."
    ),
}


NOTHING_ASKED = (
    "Thanks for your message. If you have a question about your policy or your claim, ask it here "
    "and I'll answer from your policy wording or pass it to our claims team."
)


def plan_statement(plan: str) -> str:
    """After a served sentence that names plans: which one is this claimant's."""
    return f"Your schedule shows the {plan} plan."


def part_sent_to_staff(part: str, reference: str) -> str:
    """An answer in part: the rest, in the claimant's own words, went to staff."""
    return (
        f"The part of your message “{part}” is not answered above: I've passed it to our claims team "
        f"under reference {reference}; their answer will appear in this conversation."
    )


def reference_sentence(reference: str) -> str:
    return (
        f"I've passed your question to our claims team under reference {reference}; "
        "their answer will appear in this conversation."
    )


def routed(reason: str, reference: str) -> str:
    why = WHY.get(reason, WHY["model_error"])
    return f"{why} {NOTHING_DECIDED} {reference_sentence(reference)}"


def wording_unavailable(
    kind: str, reference: str, *, schedule: ScheduleView | None, policy_number: str, claim_facts: str
) -> str:
    """Why the wording can't be used, what can still be confirmed, and the reference."""
    parts = [WORDING.get(kind, WORDING["store_unreachable"])]
    if schedule is not None:
        parts.append(f"What your schedule ({policy_number}) says: " + "; ".join(schedule.facts()) + ".")
    parts.append(claim_facts)
    parts.append(NOTHING_DECIDED)
    parts.append(reference_sentence(reference))
    return " ".join(parts)
