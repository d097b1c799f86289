"""Shapes of the staff waiting-list API: items, their detail and drafts, answers, content gaps,
sign-in sessions."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.api.schemas.common import CitationOut, MessageOut, non_blank, plain_text
from agent.boundary.citation import Citation
from agent.staff import answer_citations, answer_evidence, presend


class ItemSummaryOut(BaseModel):
    """A waiting-list item as every list of items shows it."""

    reference: str
    claim_id: str
    family: str | None
    question: str
    reason: str
    status: str
    created_at: datetime


class VerdictOut(BaseModel):
    """The verdict on the item's draft, as its evidence row records it (docs/answering.md)."""

    model_config = ConfigDict(from_attributes=True)

    evidence_id: int = Field(validation_alias="id")
    verdict: str
    outcome: str | None = Field(description="right, wrong or irrelevant")
    scored_by: str | None


class VerdictIn(BaseModel):
    outcome: Literal["right", "wrong", "irrelevant"] = Field(
        description="right: the draft held what decides; wrong: it did not; irrelevant: no clause answers it"
    )
    override: bool = Field(False, description="A supervisor corrects it in the holder's place (logged)")


class ItemOut(ItemSummaryOut):
    model_config = ConfigDict(from_attributes=True)

    id: int
    turn_id: str | None
    taken_by: str | None
    taken_at: datetime | None
    answered_by: str | None
    answered_at: datetime | None
    answer_message_id: int | None
    answer_citations: list[CitationOut]
    closed_by: str | None
    closed_at: datetime | None
    close_reason: str | None
    answer_version: str | None = Field(description="The wording that governed the claim when answered")
    send_check: str | None = Field(
        description="The pre-send check of the answer: passed, or unavailable (sent with send_warning)"
    )
    send_warning: str | None
    verdict: VerdictOut | None = Field(
        None,
        description="On an answered item whose answer scored a draft: the verdict inferred from what "
        "was sent (POST .../verdict corrects it)",
    )

    @field_validator("answer_citations", mode="before")
    @classmethod
    def _stored(cls, citations: list[dict[str, str]] | None) -> list[Citation]:
        return Citation.all_of(citations)  # an item not yet answered stores none


class ItemPage(BaseModel):
    total: int
    limit: int
    offset: int
    items: list[ItemOut]
    counts_by_reason: dict[str, int]
    counts_by_family: dict[str, int]


class ClaimOut(BaseModel):
    claim_id: str
    status: str
    incident_date: Any
    incident: str
    policy_number: str
    policyholder: str
    family: str
    plan: str
    # The term in force on the incident date; null when no term holds it.
    term_start: Any
    term_end: Any
    schedule_summary: str | None
    schedule_warnings: list[str] = Field(
        default_factory=list,
        description="What the schedule lists that no clause of the governing wording names (read as "
        "not listed), in words",
    )


class TurnRecordOut(BaseModel):
    """The turn record as staff read it, read straight from the stored row."""

    model_config = ConfigDict(from_attributes=True)

    id: str
    started_at: datetime
    family: str | None
    version: str | None
    outcome: str | None
    route_reason: str | None
    guidance_status: str | None
    directory_seen: list[dict[str, Any]]
    requested: list[str]
    returned: list[str]
    not_found: list[str]
    cited: list[str]
    # Only the checks that failed, from the record's checks of every attempt.
    failed_checks: list[dict[str, Any]] = Field(validation_alias="checks")
    model_name: str | None
    error: str | None

    @field_validator("failed_checks", mode="before")
    @classmethod
    def _failed_only(cls, checks: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
        return [c for c in checks or [] if not c.get("passed")]


class WithdrawnWordingOut(BaseModel):
    """On a wording_withdrawn item: the version and the replies (with quotes) that relied on it."""

    model_config = ConfigDict(from_attributes=True)

    family: str
    version: str
    replies: list[dict[str, Any]]


class BasisModel(BaseModel):
    """What a handler saw when opening an item (or what a draft was made from): sent back with
    the answer, so the pre-send check can say what changed before it goes out."""

    model_config = ConfigDict(from_attributes=True)

    last_message_id: int | None = Field(ge=0, le=2**63 - 1)
    family: plain_text(20, "Policy family") | None  # type: ignore[valid-type]
    version: plain_text(20, "The governing wording version; null when none governed") | None  # type: ignore[valid-type]
    content_hash: plain_text(64, "That version's content hash") | None  # type: ignore[valid-type]
    claim_status: plain_text(20, "The claim's status")  # type: ignore[valid-type]

    def basis(self) -> presend.Basis:
        return presend.Basis(**self.model_dump())


class DraftOut(BaseModel):
    """A draft composed from the governing wording for the handler to edit; `stale` says what
    changed since it was made (rebuild with POST .../draft)."""

    id: int
    made_at: datetime
    made_by: str | None = Field(description="null: composed by the runtime when the item was first opened")
    origin: str = Field(
        description="turn: from the clauses the turn fetched; wording: asked for by a handler"
    )
    text: str
    citations: list[CitationOut]
    basis: BasisModel
    stale: list[str]
    model_words: str | None = Field(
        None,
        description="Words a model wrote that the draft holds (the explained style's lead): sent as "
        "drafted only with model_words_confirmed, and checked again then",
    )
    runtime_added: list[str] = Field(
        default=[],
        description="Clauses the runtime added as qualifiers: outside the three-clause limit and the verdict",
    )
    lost_sentences: list[CitationOut] = Field(
        default=[], description="Quotes the draft before this one held that this one does not"
    )
    wording_change: str | None = Field(
        None, description="The wording change between the two drafts, when that is why a sentence went"
    )


class DraftIn(BaseModel):
    clause_ids: list[plain_text(40, "A clause ID of the governing wording", min_length=1)] = Field(  # type: ignore[valid-type]
        default_factory=list,
        max_length=answer_citations.MAX_ANSWER_CLAUSES,
        description="Clauses to draft from; empty: the latest draft's, the turn's, or the offline match",
    )


class ItemDetail(BaseModel):
    item: ItemOut
    claim: ClaimOut
    conversation: list[MessageOut]
    turn: TurnRecordOut | None
    staff_names: dict[str, str]
    withdrawn_wording: WithdrawnWordingOut | None = None
    basis: BasisModel = Field(description="Send this back with the answer (the pre-send check)")
    basis_warning: str | None = Field(None, description="Why the governing wording could not be read now")
    draft: DraftOut | None = None


class CitationIn(BaseModel):
    clause_id: plain_text(40, "A clause ID of the claim's governing wording", min_length=1)  # type: ignore[valid-type]
    quote: plain_text(2000, "A span quoted from that clause", min_length=1)  # type: ignore[valid-type]


class EvidenceIn(BaseModel):
    """What the answer leaves as evidence of the governing wording. By default: the verdict on the
    draft and the clauses cited, without the claimant's words."""

    record: bool = Field(True, description="false: record no evidence from this answer")
    question: (
        plain_text(  # type: ignore[valid-type]
            answer_evidence.MAX_QUESTION, "The question's words to keep (edited as you like); null: not kept"
        )
        | None
    ) = None
    draft_wrong: bool = Field(False, description="The draft was wrong, whatever the answer cites")

    def keep(self) -> answer_evidence.Keep:
        return answer_evidence.Keep(self.record, self.question, self.draft_wrong)


class AnswerIn(BaseModel):
    text: non_blank("answer text is empty", 4000, "The answer the claimant will read")  # type: ignore[valid-type]
    citations: list[CitationIn] = Field(
        default_factory=list,
        max_length=answer_citations.MAX_CITATIONS,
        description=f"At most {answer_citations.MAX_ANSWER_CLAUSES} clauses "
        "(runtime-added qualifiers aside), "
        f"any number of their sentences up to {answer_citations.MAX_CITATIONS} quotes",
    )
    basis: BasisModel = Field(description="The item's `basis` as read when the answer was written")
    evidence: EvidenceIn = Field(default_factory=EvidenceIn)


class SendDraftIn(BaseModel):
    draft_id: int = Field(
        ge=1, le=2**31 - 1, description="The draft you read: sent only if it is still the latest"
    )
    evidence: EvidenceIn = Field(default_factory=EvidenceIn)
    model_words_confirmed: bool = Field(
        False,
        description="You read the words a model wrote in the draft (its model_words) and confirm them; "
        "without it such a draft is refused with 422",
    )


class CloseIn(BaseModel):
    reason: non_blank(  # type: ignore[valid-type]
        "a reason is needed to close an item", 1000, "Why the item is closed without an answer"
    )


class FamilyGapsOut(BaseModel):
    family: str
    last_7_days: dict[str, int]
    last_30_days: dict[str, int]
    total_7_days: int
    total_30_days: int


class NoClauseOut(ItemSummaryOut):
    version: str | None
    requested: list[str]
    not_found: list[str]


class ModelReasonOut(BaseModel):
    reference: str
    claim_id: str
    family: str | None
    question: str
    reason: str = Field(description="The model's reason the route kept (a decision, claim progress, ...)")
    model_reason: str | None = Field(description="What the model suggested, as the turn recorded it")
    status: str
    created_at: datetime


class RoutedShareOut(BaseModel):
    week_starting: date
    family: str
    clause_id: str | None = Field(description="null: the family as a whole")
    questions: int
    routed: int
    routed_share: float


class ContentGapsOut(BaseModel):
    families: list[FamilyGapsOut]
    no_clause_selected: list[NoClauseOut]
    sent_without_check_30_days: dict[str, int] = Field(
        description="Staff answers sent while the pre-send check could not run, per family"
    )
    routed_share: list[RoutedShareOut] = Field(
        description="Per week (newest first), family and fetched clause: questions and the share routed"
    )
    on_the_models_reason: list[ModelReasonOut] = Field(
        default=[],
        description="Questions routed in the last 30 days on the model's own reason (no clause checked "
        "by the runtime), newest first: a model that calls cover questions decisions shows here",
    )


class StaffOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    username: str
    display_name: str
    roles: list[str]

    @field_validator("roles", mode="before")
    @classmethod
    def _none_as_empty(cls, roles: list[str] | None) -> list[str]:
        return list(roles or [])


class LoginIn(BaseModel):
    username: plain_text(60, "Staff username", min_length=1)  # type: ignore[valid-type]
    password: plain_text(200, "Password", min_length=1)  # type: ignore[valid-type]


class SessionOut(BaseModel):
    id: str
    kind: str
    client: str | None
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime
    current: bool


class LoginOut(BaseModel):
    token: str = Field(description="Bearer token of the new session; shown once, stored hashed")
    session: SessionOut
