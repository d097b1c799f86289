"""The values a turn's steps return (agent.turn.runner): each frozen, each named for its step."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import ModelMessage

from agent.answering.gate import Gated
from agent.boundary import replies as notices
from agent.boundary.checks import Check
from agent.boundary.citation import Citation
from agent.boundary.compose import Composed
from agent.claimant.agent import Fetched
from agent.db.tables import Claim, Policy
from agent.policy.schedule import ScheduleView
from agent.policy.terms import TermInForce
from agent.turn.inbox import StoredMessage
from knowledge.clauses import Directory
from knowledge.manifest import VersionEntry


@dataclass(frozen=True)
class TurnResult:
    """What the claimant is sent; always read back from the saved turn record."""

    turn_id: str
    claim_id: str
    reply: str
    outcome: str
    citations: list[Citation] = field(default_factory=list)
    citations_verified: bool = False
    release: dict[str, str] | None = None
    waiting_list_reference: str | None = None
    model: str | None = None
    guidance_status: str | None = None
    route_reason: str | None = None
    # An answer in part: the rest went to staff under waiting_list_reference.
    answered_in_part: bool = False
    # The served answer's parts (the turn record's composed answer); None unless answered.
    answer: dict[str, Any] | None = None


@dataclass(frozen=True)
class Incoming:
    claim_id: str
    text: str
    idempotency_key: str | None


@dataclass(frozen=True)
class ClaimFacts:
    claim: Claim
    policy: Policy
    schedule: ScheduleView | None
    # The term in force on the incident date (agent.policy.terms); None: no wording can be chosen.
    term: TermInForce | None = None

    def confirmed(self) -> str:
        """Claim facts the runtime can state without any wording."""
        return notices.claim_confirmed(self.claim.claim_id, self.claim.status, self.claim.incident_date)


@dataclass(frozen=True)
class Wording:
    entry: VersionEntry
    directory: Directory


@dataclass(frozen=True)
class WordingUnavailable:
    """Why the governing wording can't be used: a kind from notices.WORDING, and the error."""

    kind: str
    error: Exception


@dataclass(frozen=True)
class Ready:
    """A message to answer now and what it is answered with (steps 2–3), read in one trip."""

    message: StoredMessage
    facts: ClaimFacts
    wording: Wording | WordingUnavailable | None
    history: list[ModelMessage]
    started: float  # perf_counter when the turn began running, for its latency


NO_FETCH = Fetched({}, (), ())


@dataclass(frozen=True)
class Decision:
    outcome: str
    route_reason: str | None = None
    model_route_reason: str | None = None
    # The checked, composed answer: served when the outcome is answered, the item's draft when
    # it was drafted for review. Routed and unavailable replies are written once the reference
    # exists.
    composed: Composed | None = None
    # The part of the message an answer in part leaves to staff, when it is a meaningful span of
    # the claimant's words (else staff are given the whole message and the claimant told so).
    part: str | None = None
    # An answer that also puts the message on the waiting list: the rest of a question answered
    # in part, or a message that needs a person whatever the answer (urgent, a complaint, a
    # request to act): that reason.
    staff_too: str | None = None
    citations_verified: bool = False
    checks: tuple[Check, ...] = ()
    wording_kind: str | None = None
    # The runtime's reading of the message (agent.boundary.triage): chatter or off_topic for a
    # message that asks nothing.
    triage: str | None = None
    error: BaseException | None = None
    # The serving gate's decision on the composed answer (agent.answering.gate).
    gate: Gated | None = None

    @property
    def drafted(self) -> bool:
        return self.route_reason == "drafted_for_review"

    @property
    def routes(self) -> bool:
        """Whether a waiting-list item comes of it: every route, and an answer with staff too."""
        return self.outcome not in ("answered", "nothing_asked") or self.staff_too is not None

    @property
    def item_reason(self) -> str | None:
        return self.staff_too if self.outcome == "answered" else self.route_reason

    def citations(self) -> list[Citation]:
        """What the claimant was served: none when the answer was drafted for staff."""
        return self.composed.citations() if self.composed and self.outcome == "answered" else []
