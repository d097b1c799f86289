"""The turn runner: one claimant message in, one checked reply out. Read top to bottom.

1 store the message · 2 claim and schedule · 3 governing version and directory ·
4–6 the agent (directory in context, resolve_clauses, structured reply) ·
7 the answer boundary (output validator, one corrective retry; release re-checked) ·
8 outcome: answered | routed_to_staff | unavailable | no_schedule · 9 the turn record.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import UsageLimits
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest, ToolReturnPart
from pydantic_ai.models import Model
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from agent.boundary import Check, release_unchanged
from agent.claimant import PROMPTS, TurnDeps, claimant_agent
from agent.db import Claim, Message, Policy, Schedule, Turn, new_id, utcnow
from agent.models import model_label
from agent.reply import ClaimantReply
from agent.schedule import ScheduleView
from agent.waiting_list import Reason, create_item
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.errors import IntegrityError, KnowledgeUnavailable, NoGoverningVersion
from knowledge.manifest import VersionEntry

log = logging.getLogger(__name__)
HISTORY_TURNS = 6
LIMITS = UsageLimits(request_limit=6, tool_calls_limit=4)
UNAVAILABLE = (KnowledgeUnavailable, NoGoverningVersion, IntegrityError)


class ClaimNotFound(LookupError):
    pass


@dataclass
class CitationOut:
    clause_id: str
    title: str
    version: str
    quote: str


@dataclass
class TurnResult:
    turn_id: str
    claim_id: str
    reply: str
    outcome: str
    citations: list[CitationOut] = field(default_factory=list)
    citations_verified: bool = False
    release: dict[str, str] | None = None
    waiting_reference: str | None = None
    model: str | None = None
    guidance_status: str | None = None
    # Set when the question goes on the waiting list (written with the turn record).
    routed_question: str | None = field(default=None, repr=False)


@dataclass
class ClaimFacts:
    claim: Claim
    policy: Policy
    schedule: Schedule | None


class TurnRunner:
    def __init__(self, sessions: sessionmaker, library: ClauseLibrary, model: Model):
        self.sessions = sessions
        self.library = library
        self.model = model

    def run(self, claim_id: str, text: str) -> TurnResult:
        started = time.perf_counter()
        message_id = self.store_message(claim_id, text)
        turn = Turn(id=new_id(), claim_id=claim_id, message_id=message_id, started_at=utcnow())
        facts = self.claim_and_schedule(claim_id)
        if facts.schedule is None:
            result = self.route(
                turn, facts, text, "no_schedule", outcome="no_schedule", reply=no_schedule_reply()
            )
        else:
            result = self.answer(turn, facts, text)
        turn.latency_ms = round((time.perf_counter() - started) * 1000, 2)
        self.save(turn, result, facts)
        log.info(
            "turn %s claim %s outcome %s reason %s cited %s model %s %.1f ms",
            turn.id,
            claim_id,
            result.outcome,
            turn.route_reason,
            turn.cited,
            turn.model_name,
            turn.latency_ms,
        )
        return result

    # 1 ------------------------------------------------------------------------------------
    def store_message(self, claim_id: str, text: str) -> int:
        """Stored and committed before anything else can fail."""
        with self.sessions.begin() as session:
            if session.get(Claim, claim_id) is None:
                raise ClaimNotFound(claim_id)
            message = Message(claim_id=claim_id, role="claimant", body=text)
            session.add(message)
            session.flush()
            return message.id

    # 2 ------------------------------------------------------------------------------------
    def claim_and_schedule(self, claim_id: str) -> ClaimFacts:
        with self.sessions() as session:
            claim = session.get(Claim, claim_id)
            policy = session.get(Policy, claim.policy_number)
            schedule = session.get(Schedule, claim.policy_number)
            return ClaimFacts(claim, policy, schedule)

    # 3–8 ----------------------------------------------------------------------------------
    def answer(self, turn: Turn, facts: ClaimFacts, text: str) -> TurnResult:
        policy = facts.policy
        schedule = schedule_view(facts)
        turn.family = policy.family
        try:
            entry = self.library.governing(policy.family, policy.term_start)
            directory = self.library.directory(entry)
        except UNAVAILABLE as exc:
            return self.unavailable(turn, facts, text, exc)
        turn.version = entry.version
        turn.directory_hash = entry.content_hash
        turn.directory_seen = directory.listing()
        deps = TurnDeps(self.library, directory, schedule, render_context(facts, schedule, directory))
        turn.model_name = model_label(self.model)
        try:
            run = claimant_agent.run_sync(
                text,
                deps=deps,
                model=self.model,
                usage_limits=LIMITS,
                message_history=self.history(facts.claim.claim_id),
            )
        except UNAVAILABLE as exc:
            self.record_lookup(turn, deps)
            return self.unavailable(turn, facts, text, exc)
        except UnexpectedModelBehavior as exc:
            self.record_lookup(turn, deps)
            if deps.attempts and not all(c.passed for c in deps.attempts[-1]):
                return self.route(turn, facts, text, "failed_check", reply=safe_reply())
            turn.error = error_summary(exc)
            return self.route(turn, facts, text, "model_error", reply=safe_reply())
        except Exception as exc:  # provider errors, timeouts, usage limits: never the claimant's
            self.record_lookup(turn, deps)
            turn.error = error_summary(exc)
            log.warning("turn %s model error %s", turn.id, type(exc).__name__)
            return self.route(turn, facts, text, "model_error", reply=safe_reply())

        self.record_lookup(turn, deps)
        usage = run.usage
        turn.input_tokens, turn.output_tokens = usage.input_tokens, usage.output_tokens
        turn.model_requests = usage.requests
        turn.model_messages = replayable(run.new_messages())
        reply: ClaimantReply = run.output

        # 7: the release must still govern when the answer goes out.
        try:
            now = self.library.governing(policy.family, policy.term_start)
        except UNAVAILABLE as exc:
            return self.unavailable(turn, facts, text, exc)
        recheck = release_unchanged(_identity(entry), _identity(now))
        turn.checks = [*turn.checks, recheck.as_dict()]
        if not recheck.passed:
            return self.route(turn, facts, text, "failed_check", reply=safe_reply())

        citations = [
            CitationOut(c.clause_id, deps.fetched[c.clause_id].title, entry.version, c.quote)
            for c in reply.citations
        ]
        turn.cited = list(dict.fromkeys(c.clause_id for c in citations))
        turn.citations = [c.__dict__ for c in citations]
        turn.citations_verified = bool(citations)
        release = {"family": entry.family, "version": entry.version}
        if reply.outcome == "routed_to_staff":
            reason: Reason = reply.route_reason or (
                "no_clause_selected" if not deps.fetched else "needs_decision"
            )
            return self.route(
                turn,
                facts,
                reply.staff_question or text,
                reason,
                reply=reply.text,
                citations=citations,
                release=release,
            )
        turn.outcome = "answered"
        return TurnResult(
            turn_id=turn.id,
            claim_id=facts.claim.claim_id,
            reply=reply.text,
            outcome="answered",
            citations=citations,
            citations_verified=turn.citations_verified,
            release=release,
            model=turn.model_name,
            guidance_status=turn.guidance_status,
        )

    def unavailable(self, turn: Turn, facts: ClaimFacts, text: str, exc: Exception) -> TurnResult:
        turn.error = error_summary(exc)
        turn.guidance_status = "unavailable"
        log.warning("turn %s knowledge unavailable: %s", turn.id, type(exc).__name__)
        return self.route(
            turn, facts, text, "knowledge_unavailable", outcome="unavailable", reply=unavailable_reply(facts)
        )

    def route(
        self,
        turn: Turn,
        facts: ClaimFacts,
        question: str,
        reason: Reason,
        *,
        reply: str,
        outcome: str = "routed_to_staff",
        citations: list[CitationOut] | None = None,
        release: dict[str, str] | None = None,
    ) -> TurnResult:
        """Put the question on the waiting list; the reply carries the item's reference."""
        turn.outcome = outcome
        turn.route_reason = reason
        if outcome == "no_schedule":
            turn.guidance_status = "no_schedule"
        if citations is None:
            turn.cited, turn.citations_verified = [], False
        # The item itself is written in save(), in the same transaction as the turn.
        return TurnResult(
            turn_id=turn.id,
            claim_id=facts.claim.claim_id,
            reply=reply,
            outcome=outcome,
            citations=citations or [],
            citations_verified=bool(citations),
            release=release,
            model=turn.model_name,
            guidance_status=turn.guidance_status,
            routed_question=question,
        )

    def record_lookup(self, turn: Turn, deps: TurnDeps) -> None:
        turn.requested = list(deps.requested)
        turn.returned = list(deps.fetched)
        turn.not_found = list(deps.not_found)
        turn.checks = [
            dict(c.as_dict(), attempt=n) for n, attempt in enumerate(deps.attempts, 1) for c in attempt
        ]
        turn.guidance_status = "clauses_returned" if deps.fetched else "no_clause_selected"

    # 9 ------------------------------------------------------------------------------------
    def save(self, turn: Turn, result: TurnResult, facts: ClaimFacts) -> None:
        with self.sessions.begin() as session:
            session.add(turn)
            session.flush()
            if result.routed_question is not None:
                item = create_item(
                    session,
                    claim_id=turn.claim_id,
                    turn_id=turn.id,
                    family=facts.policy.family,
                    question=result.routed_question,
                    reason=turn.route_reason,
                )
                result.waiting_reference = item.reference
                result.reply = f"{result.reply.rstrip()} {reference_sentence(item.reference)}"
            session.add(
                Message(
                    claim_id=turn.claim_id,
                    role="agent",
                    body=result.reply,
                    turn_id=turn.id,
                    waiting_reference=result.waiting_reference,
                )
            )

    def history(self, claim_id: str) -> list[ModelMessage]:
        """Earlier turns' model messages, clause texts left out (cite only what is fetched now)."""
        with self.sessions() as session:
            rows = session.scalars(
                select(Turn.model_messages)
                .where(Turn.claim_id == claim_id)
                .order_by(Turn.started_at.desc())
                .limit(HISTORY_TURNS)
            ).all()
        messages: list[ModelMessage] = []
        for stored in reversed(rows):
            if stored:
                messages.extend(ModelMessagesTypeAdapter.validate_python(stored))
        for message in messages:
            if isinstance(message, ModelRequest):
                for part in message.parts:
                    if isinstance(part, ToolReturnPart) and isinstance(part.content, dict):
                        part.content = _without_texts(part.content)
        return messages


def error_summary(exc: Exception) -> str:
    """What the turn record keeps of a failure: its type and the start of its message."""
    return f"{type(exc).__name__}: {str(exc)[:150]}"


def replayable(messages: list[ModelMessage]) -> list[Any]:
    """This turn's messages as stored for later turns: clause texts are left out (the record
    keeps the IDs and version, and a later turn must fetch again to cite)."""
    stored = ModelMessagesTypeAdapter.dump_python(messages, mode="json")
    for message in stored:
        for part in message.get("parts", []):
            if part.get("part_kind") == "tool-return" and isinstance(part.get("content"), dict):
                part["content"] = _without_texts(part["content"])
    return stored


def _without_texts(content: dict[str, Any]) -> dict[str, Any]:
    clauses = [{k: v for k, v in c.items() if k != "text"} for c in content.get("clauses", [])]
    return {
        **content,
        "clauses": clauses,
        "note": "Clause texts of earlier turns are not evidence now; fetch again to cite.",
    }


def _identity(entry: VersionEntry) -> tuple[str, str, str]:
    return (entry.family, entry.version, entry.content_hash)


def schedule_view(facts: ClaimFacts) -> ScheduleView:
    assert facts.schedule is not None
    return ScheduleView.of(facts.policy, facts.schedule)


def render_context(
    facts: ClaimFacts, schedule: ScheduleView, directory: Directory | None, unavailable_reason: str = ""
) -> str:
    return (
        PROMPTS.get_template("context.j2")
        .render(
            claim=facts.claim,
            policy=facts.policy,
            schedule_summary=schedule.summary(),
            directory=directory,
            unavailable_reason=unavailable_reason,
        )
        .strip()
    )


def reference_sentence(reference: str) -> str:
    return (
        f"I've passed your question to our claims team under reference {reference}; "
        "their answer will appear in this conversation."
    )


def safe_reply() -> str:
    return (
        "I can't give you a reliable answer to that from your policy wording, and I won't "
        "guess. Nothing about your claim has been decided."
    )


def no_schedule_reply() -> str:
    return "I can't find a policy schedule for this claim, so I can't answer from your policy wording."


def unavailable_reply(facts: ClaimFacts) -> str:
    lines = [
        "I can't reach your policy wording right now, so I can't quote or rely on any "
        "clause for this question."
    ]
    if facts.schedule is not None:
        lines.append(
            f"What I can confirm from your schedule ({facts.policy.policy_number}): "
            f"{schedule_view(facts).summary()}."
        )
    lines.append(
        f"Your claim {facts.claim.claim_id} is {facts.claim.status}"
        + (f", incident date {facts.claim.incident_date}." if facts.claim.incident_date else ".")
    )
    return " ".join(lines)


__all__ = ["Check", "ClaimNotFound", "TurnResult", "TurnRunner"]
