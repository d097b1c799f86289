"""Shapes of the claimant routes: a message in, the turn's reply, the conversation."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from agent.api.schemas.common import CitationOut, MessageOut, non_blank
from agent.boundary.citation import Citation

MAX_CHARS = 2000


class NewMessage(BaseModel):
    text: non_blank("message text is empty", MAX_CHARS, "The claimant's message")  # type: ignore[valid-type]


class Release(BaseModel):
    family: str
    version: str


class LineOut(BaseModel):
    text: str = Field(description="A whole sentence or list item of the clause, verbatim")
    lead_in: str | None = Field(
        description="The lead-in of the list this item belongs to (shown once above the list)"
    )
    added: bool = Field(
        default=False,
        description="True for a sentence the runtime brought as a qualifier of what was selected",
    )


class AnswerBlockOut(BaseModel):
    """One cited clause, as served."""

    clause_id: str = Field(description="The clause's ID in the governing wording, e.g. MTR-BEN-03")
    title: str = Field(description="The clause's title, as the wording has it")
    version: str = Field(description="The version of the governing wording the clause was read from")
    kind: Literal["cover", "exclusion", "condition", "definition", "process", "general"] = Field(
        description="What sort of clause it is, from its ID (a definition is served as a definition)"
    )
    applies: Literal["included", "not_included", "excluded", "changed", "unknown"] = Field(
        description="Whether the clause applies to this claimant, from their plan and schedule; "
        "`unknown` where the wording offers cover levels and none is recorded for this clause"
    )
    added: bool = Field(
        default=False,
        description="True for a clause the runtime added as a qualifier (an exclusion of the same "
        "wording naming what a cited cover gives), not one the model selected",
    )
    statement: str = Field(description="The runtime's own line about this clause for this claimant")
    lines: list[LineOut] = Field(description="The served sentences and items, with what qualifies them")
    notes: list[str] = Field(
        description="The runtime's own notes: what a limit limits, whether a clause a sentence refers to "
        "applies to this claimant, which plan is theirs"
    )
    full_text: str = Field(description="The whole clause, as the wording has it")


class FactOut(BaseModel):
    key: str = Field(description="The schedule key, e.g. excess_standard")
    label: str = Field(description="The key's label in plain words")
    value: str = Field(description="The value on this claimant's schedule")


class AnswerOut(BaseModel):
    """The served answer's structure (the same content as `reply`): the runtime's statements
    first, then one block per clause, the schedule facts, the closing sentence."""

    lead: str | None = Field(
        default=None,
        description="Explained style only: the model's short lead, under the free-text checks, shown "
        "before the statements. Null in the quoted style (the default)",
    )
    statements: list[str] = Field(
        description="The runtime's statement of whether each cited clause applies to this claimant, "
        "one per block, in block order: what the claimant reads first"
    )
    blocks: list[AnswerBlockOut] = Field(description="One per cited clause, in the order first cited")
    schedule_facts: list[FactOut] = Field(description="The schedule facts the answer names, with labels")
    closing: str = Field(description="The runtime's closing sentence: nothing about the claim is decided")
    also: str | None = Field(
        default=None,
        description="The runtime's sentence about what of the message also went to the claims team, "
        "with the waiting-list reference (an answer in part, or a message that needs a person); "
        "null when nothing else went to staff",
    )

    @classmethod
    def of(cls, composed: dict[str, Any] | None, reply: str = "") -> AnswerOut | None:
        """From the turn record's composed answer (None: nothing was served) and the reply the
        claimant read (the composed text, then what also went to staff). A mapper, not
        `from_attributes`: it computes each block's `applies`, the statements and `also`."""
        if not composed or "blocks" not in composed:
            return None
        blocks = [
            AnswerBlockOut(
                clause_id=b["clause_id"],
                title=b["title"],
                version=b["version"],
                kind=b["kind"],
                applies=b["applies"]["status"],
                added=b.get("added", False),
                statement=b["statement"],
                lines=[LineOut.model_validate(line) for line in b["lines"]],
                notes=b["notes"],
                full_text=b["full_text"],
            )
            for b in composed["blocks"]
        ]
        text = composed.get("text") or ""
        rest = reply[len(text) :].strip() if text and reply.startswith(text) else ""
        return cls(
            lead=composed.get("lead"),
            statements=[b.statement for b in blocks],
            blocks=blocks,
            schedule_facts=[FactOut.model_validate(f) for f in composed["facts"]],
            closing=composed["closing"],
            also=rest or None,
        )


class TurnReply(BaseModel):
    turn_id: str
    claim_id: str
    reply: str = Field(
        description="What the claimant reads, composed by the runtime: whole sentences of the governing "
        "wording with their clause, the runtime's statements from the schedule, or its own routed reply"
    )
    outcome: Literal["answered", "routed_to_staff", "nothing_asked", "unavailable", "no_schedule"]
    citations: list[CitationOut] = Field(description="One per served sentence or list item")
    citations_verified: bool
    release: Release | None
    waiting_list_reference: str | None = Field(
        description="The waiting-list item's reference: for a route, or for the part of an answer "
        "in part that went to staff"
    )
    answered_in_part: bool = Field(
        default=False,
        description="True when the answer covers only part of the message: outcome stays answered and "
        "the rest is on the waiting list under waiting_list_reference",
    )
    model: str | None
    guidance_status: str | None
    route_reason: str | None = None
    answer: AnswerOut | None = Field(
        default=None,
        description="The structure of a served answer (outcome answered): the runtime's statements, "
        "one block per clause with its full text, the schedule facts. Null for every other outcome, "
        "including an answer drafted for a claims handler to check (route_reason drafted_for_review)",
    )


class QuotedClauseOut(BaseModel):
    """One clause a staff answer quotes, with its quotes in the order the handler gave them."""

    clause_id: str
    title: str = Field(description="The clause's title: what the claimant reads it by")
    version: str = Field(description="The wording version the quotes were checked against")
    quotes: list[str] = Field(description="The clause's sentences the handler quoted, word for word")
    full_text: str | None = Field(
        default=None,
        description="The whole clause as the wording has it (null for answers sent before it was kept)",
    )


class StaffAnswerOut(BaseModel):
    """A staff answer's structure: the handler's own words, then each clause it quotes."""

    text: str = Field(description="The handler's words, without the quotes appended to `body`")
    clauses: list[QuotedClauseOut]

    @classmethod
    def of(cls, text: str, shown: list[Citation]) -> StaffAnswerOut:
        by_clause: dict[str, QuotedClauseOut] = {}
        for c in shown:
            quoted = by_clause.setdefault(
                c.clause_id,
                QuotedClauseOut(clause_id=c.clause_id, title=c.title, version=c.version, quotes=[]),
            )
            quoted.quotes.append(c.quote)
            quoted.full_text = quoted.full_text or c.full_text
        return cls(text=text, clauses=list(by_clause.values()))


class ConversationMessage(MessageOut):
    outcome: str | None = None
    citations: list[CitationOut] = []
    answer: AnswerOut | None = Field(
        default=None,
        description="For an agent message that served an answer: its structure (as on TurnReply)",
    )
    unhelpful_reference: str | None = Field(
        default=None,
        description="For a served answer the claimant marked unhelpful: the waiting-list reference the "
        "question went to staff under",
    )
    staff_answer: StaffAnswerOut | None = Field(
        default=None,
        description="For a staff answer: the handler's words and the clauses it quotes, for a page "
        "to show as it shows a served answer (`body` holds the same as plain text)",
    )


class UnhelpfulReply(BaseModel):
    """A served answer marked as not helping: the question is on the waiting list."""

    message_id: int = Field(description="The agent message that served the answer")
    waiting_list_reference: str = Field(description="The waiting-list item the question went to")
    reply: str = Field(description="What the claimant is told, in the runtime's words")


class Conversation(BaseModel):
    """One page of the conversation, oldest first: by default the latest messages; pass
    `before` (a message id) for the page before it."""

    claim_id: str
    status: str
    messages: list[ConversationMessage]
    has_more: bool = Field(description="older messages exist before this page")
    next_before: int | None = Field(description="the `before` value that fetches the previous page")
