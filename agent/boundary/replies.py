"""The runtime's own words to the claimant, for every turn that does not end in a served answer.

No model text reaches the claimant on these turns. A route says what the runtime knows: that
the question is with the claims team, its reference, and, where the runtime itself decided it
(the wording store, the schedule, a check, the model failing, an urgent message, a complaint, a
request to act), why. Where the model chose to route, its reason is kept for staff and never
shown as fact: the model may be wrong that the wording does not answer, or that a decision is
needed.
"""

from __future__ import annotations

from agent.policy.schedule import ScheduleView

NOTHING_DECIDED = "Nothing about your claim has been decided."

_SYSTEM_PROBLEM = "Our answering system had a problem with your question, so a person will answer it."
_SYSTEM_UNREACHABLE = "Our answering system can't be reached right now, so a person will answer it."
# Why a question went to staff, where the runtime itself knows why; every other route (the
# model's choice) gets no reason at all.
WHY: dict[str, str] = {
    "failed_check": (
        "I couldn't give you an answer that I could check word for word against your policy "
        "wording, so a person will answer it."
    ),
    "model_timeout": "I couldn't finish answering this in time, and I won't give you a half answer.",
    "model_error": _SYSTEM_PROBLEM,
    "model_server_error": _SYSTEM_PROBLEM,
    "model_rate_limited": "Our answering system is busy right now, so a person will answer your question.",
    "model_unreachable": _SYSTEM_UNREACHABLE,
    "model_auth_error": _SYSTEM_UNREACHABLE,
    "model_bad_output": "Our answering system gave an answer I couldn't use, so a person will answer it.",
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
    # The runtime's own reading (agent.boundary.triage): a question no clause can answer.
    "claim_decision": (
        "Questions about what will be decided on your claim or your policy (whether it is accepted "
        "or paid, or what your premium will be) are answered by a person on our claims team, not "
        "from the policy wording."
    ),
    "urgent": "Your message sounds urgent, so I've put it in front of a person straight away.",
    "complaint": "You've raised a concern about how your claim is being handled, so a person will respond.",
    "action_requested": "You've asked us to do something, which a person on our claims team needs to do.",
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
OFF_TOPIC = (
    "I can help with questions about your policy wording and your claim, and I can pass anything "
    "about your claim to our claims team. Ask about your policy or your claim here."
)


def plan_statement(plan: str) -> str:
    """After a served sentence that names plans: which one is this claimant's."""
    return f"Your schedule shows the {plan} plan."


def reference_sentence(reference: str) -> str:
    return (
        f"I've passed your question to our claims team under reference {reference}; "
        "their answer will appear in this conversation."
    )


def routed(reason: str, reference: str) -> str:
    """A route: why, only where the runtime knows it; what happens next, and the reference."""
    why = WHY.get(reason)
    return " ".join(s for s in (why, reference_sentence(reference), NOTHING_DECIDED) if s)


def unhelpful(reference: str) -> str:
    """After a claimant says a served answer did not help."""
    return (
        "Thanks for telling us. A claims handler will look at your question and reply in this "
        f"conversation, under reference {reference}."
    )


def corrected(reference: str) -> str:
    """After a handler flags an answer this conversation was served as wrong."""
    return (
        "A correction: one of our earlier answers in this conversation may be wrong, so please do "
        f"not rely on it. A claims handler is checking it and will reply here (reference {reference})."
    )


def claim_confirmed(claim_id: str, status: str, incident_date: object | None) -> str:
    """The claim facts the runtime can state without any wording."""
    when = f", incident date {incident_date}" if incident_date else ""
    return f"Your claim {claim_id} is {status}{when}."


def withdrawn(family: str, version: str, reference: str) -> str:
    """To a conversation an answer of which relied on a wording since withdrawn."""
    return (
        f"Notice: an earlier answer in this conversation relied on our {family} policy wording "
        f"{version}, which has since been withdrawn, so please don't rely on that answer. "
        f"A claims handler will follow up with you here under reference {reference}."
    )


def drafted(reference: str, wait: str) -> str:
    """A policy question whose answer a claims handler checks before it is sent."""
    return (
        "A claims handler will check the answer to your question against your policy wording and "
        f"reply in this conversation, under reference {reference}. {wait} {NOTHING_DECIDED}"
    )


def also_with_staff(reason: str, part: str | None, reference: str) -> str:
    """After an answer: what also went to staff, under which reference."""
    if reason == "answered_in_part":
        if part:
            return (
                f"The part of your message “{part}” is not answered above: I've passed it to our claims "
                f"team under reference {reference}; their answer will appear in this conversation."
            )
        return (
            "Not all of your message is answered above: I've passed your whole message to our claims "
            f"team under reference {reference}; their answer will appear in this conversation."
        )
    why = WHY.get(reason, "")
    return f"{why} {reference_sentence(reference)}".strip()


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
