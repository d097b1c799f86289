"""Shapes of the wording lifecycle API: release checks, approval, withdrawal, what a version
affected."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent.answering.check_report import Summary
from agent.api.schemas.common import non_blank, shape_of
from agent.db.tables import ReleaseCheck


class CheckOut(BaseModel):
    check_id: str
    family: str
    version: str
    baseline_version: str | None
    created_by: str
    created_at: datetime
    passed: bool = Field(description="Whether the check meets the bar; a check that asked nothing fails")
    reasons: list[str] = Field(description="Why it fails the bar (empty when it passes)")
    clauses_meeting_bar: list[str]
    summary: dict[str, Any]

    @classmethod
    def of(cls, c: ReleaseCheck) -> CheckOut:
        """Not `from_attributes` alone: the verdict and the clauses are read out of the summary
        (one stored before the bar was part of the check has no verdict: it did not pass one)."""
        s = Summary.of(c.summary)
        return shape_of(
            cls,
            c,
            check_id=c.id,
            passed=s.verdict.passed,
            reasons=list(s.verdict.reasons),
            clauses_meeting_bar=list(s.clauses_meeting_bar),
        )


class ApproveIn(BaseModel):
    effective_from: date
    effective_to: date | None = None
    check_id: str  # the release check the policy owner read before approving


class WithdrawIn(BaseModel):
    reason: non_blank("a withdrawal needs a reason", 1000, "Why the version is withdrawn")  # type: ignore[valid-type]


class ApprovalOut(BaseModel):
    family: str
    version: str
    changed: bool
    check_id: str


class WithdrawalOut(BaseModel):
    family: str
    version: str
    changed: bool
    follow_ups_created: list[str]
    follow_ups_existing: list[str]


class AffectedOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    kind: str = Field(description="agent (a turn), staff (an answered item) or draft (a draft for an item)")
    claim_id: str
    at: datetime
    ref: str = Field(description="The turn ID, or the item's reference")
    detail: str
    cited: list[str]


class AffectedTotals(BaseModel):
    agent_replies: int
    staff_answers: int
    drafts: int


class AffectedListOut(BaseModel):
    family: str
    version: str
    clauses: list[str] = Field(description="Only what cited one of these clause IDs (none: everything)")
    totals: AffectedTotals = Field(description="How many of each kind, in all")
    limit: int
    offset: int
    next_offset: int | None = Field(description="The offset of the next page; null on the last page")
    agent_replies: list[AffectedOut] = Field(description="This page of the agent replies, oldest first")
    staff_answers: list[AffectedOut] = Field(description="This page of the staff answers, oldest first")
    drafts: list[AffectedOut] = Field(description="This page of the drafts, oldest first")
