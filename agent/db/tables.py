"""Database schema and connection: one SQLAlchemy code path for SQLite and PostgreSQL.

The schema is managed by Alembic (agent/db/migrations); `upgrade()` brings any database to
the latest revision and is safe to run on every start.

A data table over the house's 600 lines on purpose: every table of the schema is declared
here, one class each, so the schema reads in one place beside the engine that makes it.
"""

from __future__ import annotations

import threading
import uuid
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Engine,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    create_engine,
    event,
    false,
    text,
)
from sqlalchemy.engine import make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

from agent.db.revision import (
    MIGRATE_HINT,
    SchemaNotReady,
    current_revision,
    require_current,
    require_kept_triggers,
)

# Partial-index predicates, written as SQL text so a query can repeat them word for word (SQLite
# uses a partial index only when the query holds the same term, literals included).
CITING = "CAST(cited AS TEXT) NOT IN ('[]', 'null')"  # a turn record that cited a clause
WAITING = "status IN ('open', 'taken')"  # the waiting list's default filter
ANSWERED = "answer_message_id IS NOT NULL"  # an item with a staff answer


def partial_index(name: str, *columns: str, where: str) -> Index:
    """An index of only the rows where `where` holds, on PostgreSQL and SQLite alike."""
    return Index(name, *columns, postgresql_where=text(where), sqlite_where=text(where))


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC on every database: SQLite keeps no offset and returns naive values,
    so values are stored as UTC and read back as UTC."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:  # type: ignore[no-untyped-def]
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:  # type: ignore[no-untyped-def]
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, datetime: UTCDateTime()}


class Policy(Base):
    __tablename__ = "policies"

    policy_number: Mapped[str] = mapped_column(String(40), primary_key=True)
    family: Mapped[str] = mapped_column(String(20))
    policyholder: Mapped[str] = mapped_column(String(200))
    plan: Mapped[str] = mapped_column(String(60))
    term_start: Mapped[date] = mapped_column(Date)
    term_end: Mapped[date] = mapped_column(Date)


class Schedule(Base):
    """The policy schedule: listed sections, excesses, sums insured and details."""

    __tablename__ = "schedules"

    policy_number: Mapped[str] = mapped_column(ForeignKey("policies.policy_number"), primary_key=True)
    sections: Mapped[list[Any]] = mapped_column(default=list)
    excess: Mapped[dict[str, Any]] = mapped_column(default=dict)
    sums_insured: Mapped[dict[str, Any]] = mapped_column(default=dict)
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # Human labels for the keys above ("under_25_driver": "Excess for drivers under 25"),
    # kept with the schedule so the claimant never reads a field name.
    labels: Mapped[dict[str, Any]] = mapped_column(default=dict)


class Claim(Base):
    __tablename__ = "claims"

    claim_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    policy_number: Mapped[str] = mapped_column(ForeignKey("policies.policy_number"), index=True)
    status: Mapped[str] = mapped_column(String(20), default="open")
    incident_date: Mapped[date | None] = mapped_column(Date)
    incident: Mapped[str] = mapped_column(Text, default="")
    # SHA-256 of the claimant's bearer token; the token itself is never stored.
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Who is answering this claim's messages now (see agent.turn.inbox): one at a time, in order,
    # across processes. The lease is renewed while held and expires if its holder dies.
    turn_lease_owner: Mapped[str | None] = mapped_column(String(64))
    turn_lease_until: Mapped[datetime | None]
    # The insurer's own reference for the claimant (its portal's user ID): an insurer-signed
    # token whose `sub` is this reference opens this claim (agent.api.claimant_tokens).
    claimant_ref: Mapped[str | None] = mapped_column(String(200), index=True)


class Message(Base):
    """One message in a claim's conversation: claimant, agent or staff."""

    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    claim_id: Mapped[str] = mapped_column(ForeignKey("claims.claim_id"), index=True)
    role: Mapped[str] = mapped_column(String(20))  # claimant | agent | staff
    body: Mapped[str] = mapped_column(Text)
    turn_id: Mapped[str | None] = mapped_column(String(32), index=True)
    waiting_list_reference: Mapped[str | None] = mapped_column(String(20))
    author: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # A claimant's Idempotency-Key and the SHA-256 of the text: a retry returns the stored reply.
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    body_sha256: Mapped[str | None] = mapped_column(String(64))
    # Without a key, the text's SHA-256 while this copy may still be retried: unique per claim,
    # so a double click cannot store it twice (agent.turn.inbox).
    waiting_sha256: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (
        Index("ux_messages_claim_idempotency", "claim_id", "idempotency_key", unique=True),
        Index("ux_messages_claim_waiting", "claim_id", "waiting_sha256", unique=True),
        # A conversation page, newest first; the recent messages the interrupted sweep reads.
        Index("ix_messages_claim_id_id", "claim_id", "id"),
        Index("ix_messages_created", "created_at"),
    )


class Turn(Base):
    """The turn record: what the model saw, asked for, got, cited, and what came of it."""

    __tablename__ = "turns"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    claim_id: Mapped[str] = mapped_column(ForeignKey("claims.claim_id"), index=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("messages.id"))
    # When the claimant's message arrived (it was stored) and when the turn's record was saved.
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
    family: Mapped[str | None] = mapped_column(String(20))
    version: Mapped[str | None] = mapped_column(String(20))
    directory_hash: Mapped[str | None] = mapped_column(String(64))
    directory_seen: Mapped[list[Any]] = mapped_column(default=list)
    requested: Mapped[list[Any]] = mapped_column(default=list)
    returned: Mapped[list[Any]] = mapped_column(default=list)
    not_found: Mapped[list[Any]] = mapped_column(default=list)
    cited: Mapped[list[Any]] = mapped_column(default=list)
    # What the claimant was shown: agent.boundary.citation.Citation.as_dict per citation.
    citations: Mapped[list[Any]] = mapped_column(default=list)
    checks: Mapped[list[Any]] = mapped_column(default=list)
    # What the model selected (agent.boundary.selection.Selection) and what the runtime composed
    # from it (agent.boundary.compose.Composed: the text and its parts).
    selection: Mapped[dict[str, Any] | None]
    composed: Mapped[dict[str, Any] | None]
    # What the serving gate made of the composed answer (agent.answering.gate.Gated.as_dict).
    gate: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    citations_verified: Mapped[bool] = mapped_column(Boolean, default=False)
    guidance_status: Mapped[str | None] = mapped_column(String(40))
    outcome: Mapped[str | None] = mapped_column(String(30), index=True)
    route_reason: Mapped[str | None] = mapped_column(String(40))
    model_name: Mapped[str | None] = mapped_column(String(200))
    input_tokens: Mapped[int] = mapped_column(Integer, default=0)
    output_tokens: Mapped[int] = mapped_column(Integer, default=0)
    model_requests: Mapped[int] = mapped_column(Integer, default=0)
    latency_ms: Mapped[float | None]
    error: Mapped[str | None] = mapped_column(String(200))
    # Type and message of each wrapped cause of a failure (secrets scrubbed).
    error_chain: Mapped[list[Any]] = mapped_column(default=list)
    model_base_url: Mapped[str | None] = mapped_column(String(300))
    # What the model suggested when it routed; route_reason is the runtime's own.
    model_route_reason: Mapped[str | None] = mapped_column(String(40))
    # The pydantic-ai messages of this turn, replayed as history in later turns.
    model_messages: Mapped[list[Any]] = mapped_column(default=list)

    __table_args__ = (
        # One turn per claimant message, whatever retries or restarts happen.
        Index("ux_turns_message", "message_id", unique=True),
        # A claim's latest turns in order (the history of every turn) without sorting them all.
        Index("ix_turns_claim_started", "claim_id", "started_at"),
        # Every turn of a wording version (a withdrawal's follow-ups).
        Index("ix_turns_family_version_cited", "family", "version", "citations_verified", "started_at"),
        # The replies that cited something, per wording version, oldest first: the pages of
        # `agent affected` (migration 0014).
        partial_index("ix_turns_citing", "family", "version", "started_at", "id", where=CITING),
        # The latest turns (`agent turns`).
        Index("ix_turns_started", "started_at", "id"),
    )


class WaitingItem(Base):
    """A routed question on the staff waiting list."""

    __tablename__ = "waiting_items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    reference: Mapped[str] = mapped_column(String(20), unique=True)
    claim_id: Mapped[str] = mapped_column(ForeignKey("claims.claim_id"), index=True)
    turn_id: Mapped[str | None] = mapped_column(ForeignKey("turns.id"))
    family: Mapped[str | None] = mapped_column(String(20))
    question: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(String(40), index=True)
    status: Mapped[str] = mapped_column(String(20), default="open", index=True)
    taken_by: Mapped[str | None] = mapped_column(String(100))
    taken_at: Mapped[datetime | None]
    answered_at: Mapped[datetime | None]
    closed_at: Mapped[datetime | None]
    close_reason: Mapped[str | None] = mapped_column(Text)
    answer_message_id: Mapped[int | None] = mapped_column(ForeignKey("messages.id"))
    # Who answered or closed it (staff usernames), and the verified citations of the answer as
    # the claimant was shown them (Citation.as_dict; the whole clause with its first quote).
    answered_by: Mapped[str | None] = mapped_column(String(60))
    answer_citations: Mapped[list[Any] | None] = mapped_column(JSON)
    closed_by: Mapped[str | None] = mapped_column(String(60))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The wording that governed the claim when the answer was sent (with or without citations):
    # a withdrawal of that version follows the answer up.
    answer_version: Mapped[str | None] = mapped_column(String(20))
    answer_content_hash: Mapped[str | None] = mapped_column(String(64))
    # The pre-send check: "passed", or "unavailable" when it could not run and the answer went
    # out with the warning below (counted on the gaps page).
    send_check: Mapped[str | None] = mapped_column(String(20))
    send_warning: Mapped[str | None] = mapped_column(Text)
    # For an answer in part: the span of the claimant's message the answer did not cover, when
    # it is a meaningful one (agent.turn.outcome); `question` is always the whole message.
    part: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        # The waiting list by status (alone, or with a reason or family), oldest first, and
        # its counts per reason and family, from the index alone.
        Index("ix_waiting_status_created", "status", "created_at", "id"),
        # The default queue (open and taken), oldest first, walked in order (migration 0013).
        partial_index("ix_waiting_waiting_created", "created_at", "id", where=WAITING),
        # Answers sent without the pre-send check in the last 30 days (the gaps page).
        Index("ix_waiting_send_check_answered", "send_check", "answered_at"),
        Index("ix_waiting_status_reason", "status", "reason", "created_at"),
        Index("ix_waiting_status_family", "status", "family", "created_at"),
        # A conversation page finds the staff answer of each message.
        Index("ix_waiting_answer_message", "answer_message_id"),
        # Whether a turn was routed (the kept routed share), a family's newest items (the gaps
        # page) and the staff answers per family (`agent affected`), migration 0014.
        Index("ix_waiting_turn", "turn_id"),
        Index("ix_waiting_family_created", "family", "created_at"),
        # Oldest first (the list without a filter), and the last 30 days' counts per family and
        # reason (the gaps page) from the index alone.
        Index("ix_waiting_created", "created_at", "id", "family", "reason"),
        partial_index("ix_waiting_answered", "family", "answered_at", "id", where=ANSWERED),
    )


class Draft(Base):
    """A draft answer for a waiting item, composed by the runtime from the governing wording,
    for the handler to edit; bound to what it was made from, which the pre-send check compares."""

    __tablename__ = "drafts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("waiting_items.id"), index=True)
    made_at: Mapped[datetime] = mapped_column(default=utcnow)
    # None: made by the runtime for the turn's fetched clauses; else the staff user who asked.
    made_by: Mapped[str | None] = mapped_column(String(60))
    origin: Mapped[str] = mapped_column(String(20))  # turn | wording
    text: Mapped[str] = mapped_column(Text)
    # Citation.as_dict per point, as the answer form takes them.
    citations: Mapped[list[Any]] = mapped_column(default=list)
    family: Mapped[str] = mapped_column(String(20), index=True)
    version: Mapped[str] = mapped_column(String(20))
    content_hash: Mapped[str] = mapped_column(String(64))
    last_message_id: Mapped[int | None] = mapped_column(Integer)
    claim_status: Mapped[str] = mapped_column(String(20))

    # The drafts made from a wording version, oldest first (`agent affected`).
    __table_args__ = (Index("ix_drafts_version", "family", "version", "made_at", "id"),)


# Kept tables: derived from the turn records and waiting items by database triggers (migration
# 0014) in the transaction of each write, whoever writes, so they always agree with what they
# count. The code only reads them. A migration that rebuilds `turns` or `waiting_items` on
# SQLite (batch mode) drops the triggers and must create them again: `upgrade()` and the
# read-only commands refuse a database that lacks one (agent.db.revision.KEPT_TRIGGERS).


class RoutedShareDay(Base):
    """Questions and routed questions per UTC day, family and fetched clause ('': the family
    as a whole), as agent.staff.routed_share defines them."""

    __tablename__ = "routed_share_days"

    day: Mapped[date] = mapped_column(Date, primary_key=True)
    family: Mapped[str] = mapped_column(String(20), primary_key=True)
    clause_id: Mapped[str] = mapped_column(String, primary_key=True)
    questions: Mapped[int] = mapped_column(Integer)
    routed: Mapped[int] = mapped_column(Integer)


class CitingCount(Base):
    """How many turn records of a family and version cited something (clause_id '') and cited
    each clause: the wording page's counts and the totals of `agent affected`."""

    __tablename__ = "citing_counts"

    family: Mapped[str] = mapped_column(String(20), primary_key=True)
    version: Mapped[str] = mapped_column(String(20), primary_key=True)
    clause_id: Mapped[str] = mapped_column(String, primary_key=True)
    replies: Mapped[int] = mapped_column(Integer)


class TurnCitation(Base):
    """One clause a turn record cited, with the record's family, version and time: the pages
    of `agent affected --clause`, in time order from the index."""

    __tablename__ = "turn_citations"

    turn_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    clause_id: Mapped[str] = mapped_column(String, primary_key=True)
    family: Mapped[str] = mapped_column(String(20))
    version: Mapped[str] = mapped_column(String(20))
    started_at: Mapped[datetime]

    __table_args__ = (
        Index("ix_turn_citations_clause", "family", "version", "clause_id", "started_at", "turn_id"),
    )


class StaffUser(Base):
    __tablename__ = "staff_users"

    username: Mapped[str] = mapped_column(String(60), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(120))
    password_hash: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    # "handler" works the waiting list; "policy_owner" may also approve and withdraw wording.
    roles: Mapped[list[Any]] = mapped_column(default=lambda: ["handler"])


class ReleaseCheck(Base):
    """A release check: the question inventory run against a candidate wording version and
    the version it would follow, through the turn code; kept so an approval can cite it."""

    __tablename__ = "release_checks"

    id: Mapped[str] = mapped_column(String(20), primary_key=True)  # RC-1a2b3c4d
    family: Mapped[str] = mapped_column(String(20), index=True)
    version: Mapped[str] = mapped_column(String(20))
    content_hash: Mapped[str] = mapped_column(String(64))
    baseline_version: Mapped[str | None] = mapped_column(String(20))
    model_name: Mapped[str] = mapped_column(String(200))
    created_by: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    summary: Mapped[dict[str, Any]] = mapped_column(default=dict)
    report: Mapped[dict[str, Any]] = mapped_column(default=dict)


class AuditTrail:
    """The columns an audit trail's row starts with: which change, when, and who made it."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(120))


class WordingAudit(AuditTrail, Base):
    """One manifest change (ingest, approve, withdraw): who, when, what and why."""

    __tablename__ = "wording_audit"

    action: Mapped[str] = mapped_column(String(20))
    family: Mapped[str] = mapped_column(String(20), index=True)
    version: Mapped[str] = mapped_column(String(20))
    reason: Mapped[str | None] = mapped_column(Text)
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)


class AnsweringMode(Base):
    """One change of the answering mode of a wording version (clause_id None) or of one of its
    clauses (agent.answering.modes): never updated, so the rows are the audit."""

    __tablename__ = "answering_modes"
    __table_args__ = (
        CheckConstraint("mode IN ('drafts', 'answers')", name="ck_answering_modes_mode"),
        Index("ix_answering_modes_version", "family", "version", "clause_id", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    family: Mapped[str] = mapped_column(String(40))
    version: Mapped[str] = mapped_column(String(20))
    clause_id: Mapped[str | None] = mapped_column(String(20))
    mode: Mapped[str] = mapped_column(String(10))
    changed_at: Mapped[datetime] = mapped_column(default=utcnow)
    changed_by: Mapped[str] = mapped_column(String(120))
    reason: Mapped[str | None] = mapped_column(Text)
    release_check_id: Mapped[str | None] = mapped_column(String(40))
    automatic: Mapped[bool] = mapped_column(default=False, server_default=false())
    # Moved to `answers` while its evidence missed the bar, on the written reason (migration
    # 0017): the automatic fall back then weighs only evidence that came after it.
    below_bar: Mapped[bool] = mapped_column(default=False, server_default=false())


class Evidence(Base):
    """One labelled question of a wording version (agent.answering.evidence): what a right
    answer cites or that it must be routed, and, once something was served or drafted for it,
    how that scored. Bound to the content of the clauses it names (their SHA-256)."""

    __tablename__ = "evidence"
    __table_args__ = (
        UniqueConstraint("family", "version", "key", name="uq_evidence_key"),
        CheckConstraint("status IN ('verified', 'awaiting_review')", name="ck_evidence_status"),
        CheckConstraint(
            "outcome IS NULL OR outcome IN ('right', 'wrong', 'irrelevant', 'routed')",
            name="ck_evidence_outcome",
        ),
        Index("ix_evidence_version", "family", "version", "status", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    family: Mapped[str] = mapped_column(String(40))
    version: Mapped[str] = mapped_column(String(20))
    # Stable within the version: the inventory question's ID, or `staff-WL-000123`, `flag-<turn>`.
    key: Mapped[str] = mapped_column(String(80))
    # None: the handler did not keep the claimant's words (they may carry personal details).
    question: Mapped[str | None] = mapped_column(Text)
    # The claimant context that matters: policy, plan or cover level, schedule sections, endorsements.
    context: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # What a right answer cites (empty with `routed`) and the sentences that decide it.
    clauses: Mapped[list[Any]] = mapped_column(default=list)
    deciding: Mapped[list[Any]] = mapped_column(default=list)
    routed: Mapped[bool] = mapped_column(default=False)
    facts: Mapped[list[Any]] = mapped_column(default=list)  # groups: any one string of each
    wrong_facts: Mapped[list[Any]] = mapped_column(default=list)
    source: Mapped[str] = mapped_column(String(20))  # inventory | staff | flag | claimant
    # What was served or drafted for it (the clauses it quoted), the handler's verdict on a draft,
    # and how that scored: right | wrong | irrelevant | routed (None: not scored yet).
    served_clauses: Mapped[list[Any]] = mapped_column(default=list)
    verdict: Mapped[str | None] = mapped_column(String(20))
    outcome: Mapped[str | None] = mapped_column(String(20))
    scored_by: Mapped[str | None] = mapped_column(String(120))  # a release check ID or a staff user
    scored_at: Mapped[datetime | None]
    # clause ID -> SHA-256 of its object in this version, for every clause named above.
    clause_hashes: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(String(20), default="verified")
    carried_from: Mapped[str | None] = mapped_column(String(20))  # the version it was carried from
    created_by: Mapped[str] = mapped_column(String(120))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    item_id: Mapped[int | None] = mapped_column(ForeignKey("waiting_items.id"))
    turn_id: Mapped[str | None] = mapped_column(String(32))


class WithdrawalFollowUp(Base):
    """The waiting-list item made for one conversation that relied on a withdrawn version;
    unique per claim and version, so withdrawing twice never makes a second item."""

    __tablename__ = "withdrawal_follow_ups"
    __table_args__ = (UniqueConstraint("family", "version", "claim_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    family: Mapped[str] = mapped_column(String(20))
    version: Mapped[str] = mapped_column(String(20))
    claim_id: Mapped[str] = mapped_column(ForeignKey("claims.claim_id"), index=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("waiting_items.id"), index=True)
    # The replies that relied on it: turn or staff answer, clause IDs and quotes shown.
    replies: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class StaffSession(Base):
    """A server-side staff session (browser cookie or API bearer): it ends when revoked,
    idle too long or past its absolute lifetime, whatever the client still holds."""

    __tablename__ = "staff_sessions"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    # SHA-256 of the session token the client holds; the token itself is never stored.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    username: Mapped[str] = mapped_column(ForeignKey("staff_users.username"), index=True)
    kind: Mapped[str] = mapped_column(String(10))  # web | api
    client: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]


class PolicyTerm(Base):
    """One term of a policy (start included, end excluded) with its plan and its schedule.
    A claim belongs to the term whose interval holds its incident date (agent.policy.terms).
    `policies.term_start/term_end/plan` and `schedules` mirror the latest term."""

    __tablename__ = "policy_terms"
    __table_args__ = (UniqueConstraint("policy_number", "term_start"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    policy_number: Mapped[str] = mapped_column(ForeignKey("policies.policy_number"), index=True)
    term_start: Mapped[date] = mapped_column(Date)
    term_end: Mapped[date] = mapped_column(Date)
    plan: Mapped[str] = mapped_column(String(60))
    # sections, excess, sums_insured, endorsements, labels, details; None: no schedule on file.
    schedule: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class IntakeAudit(AuditTrail, Base):
    """One change made by the insurer's systems (intake API, bulk import, seed): who, when, what."""

    __tablename__ = "intake_audit"

    # policy_created | policy_updated | claim_created | claim_updated | claim_status
    action: Mapped[str] = mapped_column(String(30))
    subject: Mapped[str] = mapped_column(String(40), index=True)  # policy number or claim ID
    # Field by field: {"field": [before, after]}.
    changes: Mapped[dict[str, Any]] = mapped_column(default=dict)


class IntegrationClient(Base):
    """An insurer system allowed on /integration/api (role `integration`), by its own token."""

    __tablename__ = "integration_clients"

    name: Mapped[str] = mapped_column(String(60), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class OutboxEvent(Base):
    """An event for the insurer's systems, written in the transaction of the change it
    reports; the delivery worker (agent.events.delivery) sends it until a 2xx."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_pending", "delivered_at", "next_attempt_at"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)  # the event ID
    kind: Mapped[str] = mapped_column(String(40))
    payload: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    # A delivery holds an event while it sends it, so two processes never send it at once:
    # its claim token and until when, set together by one conditional UPDATE (migration 0015).
    lease_until: Mapped[datetime | None]
    lease_owner: Mapped[str | None] = mapped_column(String(32))
    delivered_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(String(300))


def make_engine(url: str) -> Engine:
    """hide_parameters: SQL parameters (claimant text among them) never appear in logs or
    in error messages, whatever goes wrong."""
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            hide_parameters=True,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_size=20,
            max_overflow=20,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        return engine
    return create_engine(url, hide_parameters=True, pool_pre_ping=True, pool_size=20, max_overflow=20)


def make_sessionmaker(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)


# Alembic keeps its running migration context in module globals: two upgrades at once in one
# process (a checkpoint's throwaway database beside another) would tear each other's down.
_UPGRADING = threading.Lock()


def upgrade(engine: Engine) -> str | None:
    """Apply every Alembic migration not yet applied to this database. Returns the revision it
    was at before (None: it had no schema), so a caller can say what changed."""
    from alembic import command
    from alembic.config import Config

    here = Path(__file__).parent
    config = Config()
    config.set_main_option("script_location", str(here / "migrations"))
    with _UPGRADING, engine.begin() as connection:
        before = current_revision(connection)
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
        require_kept_triggers(connection)
    return before


def open_current(url: str) -> Engine:
    """An engine on an existing database at the current revision, or SchemaNotReady; for the
    read-only commands, which never migrate. A missing SQLite file is reported, not created."""
    parsed = make_url(url)
    local = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
    if local and not Path(str(parsed.database)).exists():
        raise SchemaNotReady(f"no database at {parsed.database}; {MIGRATE_HINT}")
    engine = make_engine(url)
    try:
        require_current(engine)
    except SchemaNotReady:
        engine.dispose()
        raise
    return engine
