"""What a model returns in a turn: a selection of approved material, never prose.

The model picks spans of clauses fetched this turn and schedule keys; the runtime checks
them (agent.boundary.checks) and composes what the claimant reads from them
(agent.boundary.compose). Only `lead`, in the opt-in explained mode, is the model's own words.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

# The tools a model calls in a turn, by name: the claimant agent declares them and the offline
# model calls them. They are here because agent.claimant imports agent.models, not the reverse.
TOOL = "resolve_clauses"
PARTS_TOOL = "open_parts"
# After a directory title: a clause of other cover levels only (agent.claimant.directory lists
# it; the runtime states that the claimant's policy does not include it).
NOT_THEIRS = " [other levels only]"

Outcome = Literal["answered", "routed_to_staff", "nothing_asked"]
RouteReason = Literal[
    "no_clause_selected",
    "clause_not_in_directory",
    "needs_decision",
    "claim_progress",
    "request_for_staff",  # something for the insurer to do: send, arrange, change, a complaint
    "outside_the_wording",  # advice, a price, another product or insurer, the claimant's own legal steps
]
# Reasons no wording can answer by their nature (the claim itself, a request to act, advice):
# only staff can, whatever the wording says, and none is a gap in the wording.
BY_NATURE: tuple[RouteReason, ...] = (
    "needs_decision",
    "claim_progress",
    "request_for_staff",
    "outside_the_wording",
)
AnswerStyle = Literal["quoted", "explained"]

MAX_POINTS = 6
MAX_LEAD_CHARS = 300


class Point(BaseModel):
    clause_id: str = Field(description="A clause ID returned by resolve_clauses in this turn")
    span: str = Field(
        description="Words copied exactly from that clause's text (at least three); the runtime "
        "serves the whole sentence or list item that holds them"
    )


class Selection(BaseModel):
    # The instructions say when each outcome fits; the schema does not repeat them (tokens).
    outcome: Outcome
    points: list[Point] = Field(
        default_factory=list, description=f"For an answer: at most {MAX_POINTS} spans of fetched clauses"
    )
    schedule_facts: list[str] = Field(
        default_factory=list,
        description="Schedule keys that answer the question: plan, excess keys, sums-insured keys, "
        "optional section keys",
    )
    unanswered_part: str | None = Field(
        default=None,
        description="When the points answer only part of the question: the words of the claimant's "
        "own message that name the part they do not answer, copied exactly",
    )
    route_reason: RouteReason | None = Field(default=None, description="When routing: why")
    lead: str | None = Field(
        default=None,
        description=f"Explained mode only: a short lead in plain words, at most {MAX_LEAD_CHARS} "
        "characters, shown before the quoted points",
    )
    # The offline model's own doubt: False when no verified question of the same meaning backs
    # its answer, and the runtime drafts it for a claims handler (agent.turn.outcome.decide).
    # Kept out of the schema models are shown: it can only make a turn more careful.
    confident: SkipJsonSchema[bool] = True
