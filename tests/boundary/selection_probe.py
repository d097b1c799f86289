"""A selection attack as data: the scripted model's moves for one question on a seeded claim, and
what the claimant must read (and must not) in the reply. Builders for the attacks' common shapes;
the attacks themselves are in `reading_attacks` and `routing_attacks`, played by
`test_selection_attacks`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.support import answer, route

ROUTED = "I've passed your question to our claims team under reference "
NOT_ALL = "Not all of your message is answered above: I've passed your whole message"
SEPARATORS = ("\u2028", "\u2029", "\x85", "\u000b", "\u000c")
# The model's reasons, which a claimant must never read as fact.
MODEL_REASONS = (
    "decision about your claim",
    "needs a decision",
    "outside your policy wording",
    "outside the wording",
)
UNSET: Any = object()


@dataclass(frozen=True)
class Probe:
    kind: str
    name: str
    claim: str  # the seeded claim a fresh one is cloned from
    question: str
    moves: tuple[Any, ...]  # the scripted model's steps
    reads: tuple[str, ...] = ()  # what the claimant must read
    never: tuple[str, ...] = ()  # what the claimant must not read
    opens_with: str | None = None  # the reply's first words (the runtime's statement)
    outcome: str = "answered"
    item: str | None = None  # the waiting-list item's reason (None: no item)
    part: Any = UNSET  # the item's part, when the probe is about it
    extra: dict[str, Any] = field(default_factory=dict)


def quoted(claim: str, question: str, clause_id: str, span: str, **kw: Any) -> tuple[str, str, tuple]:
    return claim, question, ([clause_id], answer("", (clause_id, span), **kw))


def routed_as(claim: str, question: str, reason: str) -> tuple[str, str, tuple]:
    return claim, question, (route("", "", reason),)


def said_nothing_asked(claim: str, question: str) -> tuple[str, str, tuple]:
    return claim, question, ({"outcome": "nothing_asked"},)


def probe(kind: str, name: str, played: tuple[str, str, tuple], **expect: Any) -> Probe:
    claim, question, moves = played
    return Probe(kind, name, claim, question, moves, **expect)


def cover_question_routed_as(name: str, question: str, reason: str) -> Probe:
    """A cover question the model routed with a reason of its own: routed to staff under that
    reason, and listed apart as on the model's reason (checked in the test below)."""
    return probe(
        "routing",
        name,
        routed_as("CLM-204518", question, reason),
        outcome="routed_to_staff",
        item=reason,
        extra={"on_the_models_reason": True},
    )


def called(clause_id: str) -> str:
    """How the runtime ties a clause the quoted words name by ID to its title."""
    return f"(which the words above call {clause_id})"


RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
TWO_PARTS = "Can I get a rental car while mine is repaired, and will you pay the panel beater directly?"


def decided_by_staff(
    name: str, claim: str, question: str, clause_id: str, span: str, kind: str = "decision"
) -> Probe:
    """A question about a decision on the claim (or the premium), with the model quoting a
    sentence that reads as the answer: routed by the runtime's own reading, the sentence never
    served, the claimant told why and given the reference."""
    return probe(
        kind,
        name,
        quoted(claim, question, clause_id, span),
        outcome="routed_to_staff",
        item="claim_decision",
        never=(span,),
        reads=("answered by a person on our claims team",),
    )


def meaningless_part(name: str, unanswered_part: str) -> Probe:
    """The rate quoted for TWO_PARTS with an unanswered part that means nothing on its own: the
    reply still says not all was answered, and the item keeps no part."""
    played = quoted("CLM-204518", TWO_PARTS, "MTR-BEN-03", RATE, unanswered_part=unanswered_part)
    return probe("part", name, played, reads=(NOT_ALL,), item="answered_in_part", part=None)
