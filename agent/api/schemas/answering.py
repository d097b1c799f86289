"""Shapes of the earned-answering API: each clause's mode and evidence, moves between modes,
flags."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from agent.answering import approval
from agent.api.schemas.common import non_blank, plain_text
from agent.staff import answer_evidence

ClauseId = plain_text(40, "A clause ID of the wording version", min_length=1)
MAX_MOVED = 200  # clause IDs one move names


class ClauseOut(BaseModel):
    clause_id: str = Field(description="A clause ID, or a pooled rule: #schedule, #near or #model")
    title: str
    mode: str
    pooled: bool = Field(False, description="A rule measured on the wording's pooled evidence")
    evidence_questions: int = Field(description="Verified evidence questions whose right answer cites it")
    served: int = Field(description="Replayed answers served for it, and served answers flagged wrong since")
    wrong_or_irrelevant: int
    right: int
    precision: float | None = Field(description="right / served; null when nothing was served")
    upper_bound: float = Field(description="One-sided 95% Clopper–Pearson upper bound of the wrong share")
    not_counted: int = Field(
        0,
        description="A pooled rule's served answers to questions it was tuned on (the offline model's or "
        "the near rule's calibration part): replayed, and left out of its figures",
    )
    meets_bar: bool
    more_needed: int | None = Field(
        description="More right served answers that would let it meet the bar; null: none would"
    )
    misses: list[str] = Field(description="Why it is below the bar; empty: it meets it")


class ModeChangeOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    clause_id: str | None = Field(description="null: the whole version")
    mode: str
    changed_at: datetime
    changed_by: str
    reason: str | None
    release_check_id: str | None
    automatic: bool
    below_bar: bool


class AnsweringOut(BaseModel):
    family: str
    version: str
    bar: str
    measured_by: str | None = Field(description="The release check whose replay the figures come from")
    measured_at: datetime | None
    evidence_rows_since: int = Field(description="Verified evidence rows added since that measure")
    evidence_questions: int = Field(description="Verified evidence questions of the version")
    awaiting_review: int = Field(description="Carried-over evidence whose clause text changed")
    clauses: list[ClauseOut]
    history: list[ModeChangeOut] = Field(description="Every mode change of the version, oldest first")


class ToAnswersIn(BaseModel):
    clause_ids: list[ClauseId] = Field(  # type: ignore[valid-type]
        default_factory=list, max_length=MAX_MOVED, description="Clauses to move; empty with `all`"
    )
    all: bool = Field(False, description="Every clause of the version")
    check_id: plain_text(20, "The release check of this version the approval cites", min_length=1)  # type: ignore[valid-type]
    reason: (
        plain_text(approval.MAX_REASON, f"Required below the bar: at least {approval.MIN_REASON_WORDS} words")
        | None
    ) = None  # type: ignore[valid-type]


class ToDraftsIn(BaseModel):
    clause_ids: list[ClauseId] = Field(default_factory=list, max_length=MAX_MOVED)  # type: ignore[valid-type]
    all: bool = False
    reason: non_blank("a reason is needed to move clauses back to drafts", 1000, "Why")  # type: ignore[valid-type]


class MeasuredOut(BaseModel):
    clause_id: str
    served: int
    wrong_or_irrelevant: int
    upper_bound: float
    misses: list[str] = Field(description="Why it is below the bar; empty: it meets it")


class MovedOut(BaseModel):
    family: str
    version: str
    changes: list[ModeChangeOut]
    measured: list[MeasuredOut] = Field(default_factory=list)


class PromoteIn(BaseModel):
    measure: bool = Field(
        True, description="Measure again first when evidence arrived since the latest measure"
    )


class FlagIn(BaseModel):
    question: (
        plain_text(answer_evidence.MAX_QUESTION, "The question's words to keep, if confirmed") | None
    ) = None  # type: ignore[valid-type]
    override: bool = Field(
        False, description="A supervisor records item-bound evidence in the holder's place (logged)"
    )


class ForgottenOut(BaseModel):
    claim_id: str
    forgotten: int = Field(description="Evidence rows whose kept words were dropped")


class EvidenceOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: int
    family: str
    version: str
    key: str
    source: str
    question: str | None
    clauses: list[str]
    served_clauses: list[str]
    verdict: str | None
    outcome: str | None
    status: str
