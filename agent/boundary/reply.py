"""The structured reply a model returns in a turn."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

RouteReason = Literal["no_clause_selected", "clause_not_in_directory", "needs_decision"]


class Citation(BaseModel):
    clause_id: str = Field(description="A clause ID returned by resolve_clauses in this turn")
    quote: str = Field(description="Words copied exactly from that clause's text")


class ClaimantReply(BaseModel):
    text: str = Field(description="The reply to the claimant, in plain words")
    outcome: Literal["answered", "routed_to_staff"]
    citations: list[Citation] = Field(default_factory=list)
    staff_question: str | None = Field(
        default=None, description="When routing: the question staff should answer"
    )
    route_reason: RouteReason | None = None
