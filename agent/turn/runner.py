"""The turn runner: one claimant message in, one composed reply out. Read top to bottom.

The nine steps of design.md's "A turn", each a call that returns a frozen value
(agent.turn.steps):

1 `store`: the message committed first (agent.turn.inbox: deduplicated, one turn at a time per
  claim, oldest first); the record's `started_at` is the moment it arrived
2 `claim_and_schedule` -> ClaimFacts · 3 `governing_wording` -> Wording | WordingUnavailable,
  read with the claim's earlier turns (agent.turn.history) in `next_step` -> Ready
4–6 `ask_model` -> ModelRun: the directory in the instructions until clauses come back,
  resolve_clauses (what it fetched travels in the tool's return), a Selection as output, the
  boundary as output validator with one corrective retry, all within the turn deadline; the
  attempts read back from the messages
7–8 `outcome` -> Decision: the release re-checked, every selected span re-read from the store
  by its version, the runtime composes the reply (agent.boundary.compose); answered (whole or
  in part) | routed_to_staff | nothing_asked | unavailable | no_schedule, the route reason
  the runtime's own
9 `build_record` (agent.turn.records) and `save`: the record, the waiting-list item and the
  reply in one transaction, `finished_at` stamped. A routed reply is always the runtime's own
  words; in the quoted style so is every answer but its clause sentences.

Messages a killed process left without a turn are routed by agent.turn.recovery.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from datetime import timedelta
from typing import Any

from pydantic_ai import UsageLimits, capture_run_messages
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.usage import RunUsage
from sqlalchemy import exc as sql_errors
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from agent.boundary import replies as notices
from agent.boundary.checks import Check, release_unchanged
from agent.boundary.compose import compose
from agent.boundary.reply import BY_NATURE, Selection
from agent.claimant.agent import (
    PROMPTS,
    Fetched,
    TurnDeps,
    attempts_in,
    claimant_agent,
    fetched_in,
)
from agent.db.tables import Claim, Message, Policy, Turn, WaitingItem
from agent.events import outbox
from agent.models.errors import causes, route_reason_for
from agent.policy.terms import claim_term
from agent.settings import Settings
from agent.staff.waiting_list import create_item
from agent.turn import history as earlier
from agent.turn import recovery
from agent.turn.inbox import (
    ClaimLease,
    ClaimNotFound,
    StoredMessage,
    oldest_unanswered,
    store_message,
)
from agent.turn.records import build_record, result_from
from agent.turn.steps import (
    ClaimFacts,
    Decision,
    Incoming,
    ModelRun,
    Ready,
    TurnResult,
    Wording,
    WordingUnavailable,
)
from knowledge.clauses import ClauseLibrary
from knowledge.errors import IntegrityError, KnowledgeUnavailable, RegistryConflict, RegistryGap
from knowledge.manifest import VersionEntry

log = logging.getLogger(__name__)
LIMITS = UsageLimits(request_limit=6, tool_calls_limit=4)


class CountedModel(WrapperModel):
    """Counts the requests a turn sends, failed ones included (pydantic-ai's usage counts
    only the requests that came back)."""

    def __init__(self, wrapped: Model):
        super().__init__(wrapped)
        self.sent = 0

    async def request(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.sent += 1
        return await super().request(*args, **kwargs)


# The runner -------------------------------------------------------------------------------


class TurnRunner:
    def __init__(
        self, sessions: sessionmaker, library: ClauseLibrary, model: Model, settings: Settings | None = None
    ):
        self.sessions = sessions
        self.library = library
        self.model = model
        self.settings = settings or Settings()
        self.lease = ClaimLease(sessions, ttl_s=self.settings.turn_lease_ttl_s)

    async def run(self, claim_id: str, text: str, *, idempotency_key: str | None = None) -> TurnResult:
        incoming = Incoming(claim_id, text, idempotency_key)
        lock = self.lease.lock(claim_id)
        message = None
        if lock.locked():  # a turn of this claim runs in this process: store before waiting
            message, _ = await asyncio.to_thread(self.store, incoming, None, take_lease=False)
        async with lock:
            given_back = False
            try:
                message, step = await asyncio.to_thread(self.arrive, incoming, message)
                delay = 0.01
                while step is None:  # another process is answering this claim
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, 0.25)
                    message, step = await asyncio.to_thread(self.arrive, incoming, message)
                async with self.lease.extended(claim_id):
                    # This claim's messages are answered oldest first until this one has its
                    # reply (a retry finds it already there).
                    while isinstance(step, Ready):
                        last = step.message.id == message.id
                        result = await self.answer(step, give_back=last)
                        if last:
                            given_back = True  # with the saved reply
                            return result
                        step = await asyncio.to_thread(self.next_step, message)
                    return step
            finally:
                # On any other way out (a retry answered already, an error), whether or not
                # the lease was taken: giving back only touches a lease this process holds.
                if not given_back:
                    await asyncio.to_thread(self.lease.give_back_now, claim_id)

    # 1 ------------------------------------------------------------------------------------
    def arrive(
        self, incoming: Incoming, message: StoredMessage | None
    ) -> tuple[StoredMessage, TurnResult | Ready | None]:
        """One trip to a worker thread: the message stored (unless it already is) with the
        claim's lease taken in the same transaction; then, holding the lease, the next step.
        No step when another process holds the lease."""
        message, taken = self.store(incoming, message, take_lease=True)
        return message, self.next_step(message) if taken else None

    def store(
        self, incoming: Incoming, message: StoredMessage | None, *, take_lease: bool
    ) -> tuple[StoredMessage, bool]:
        """The message committed (unless it already is), with the claim's lease taken in the
        same transaction when asked; whether the lease was taken."""
        try:
            return self._store_once(incoming, message, take_lease)
        except sql_errors.IntegrityError:
            # The same Idempotency-Key stored by a concurrent request a moment ago: that copy
            # is this message, found on the second try.
            return self._store_once(incoming, None, take_lease)

    def _store_once(
        self, incoming: Incoming, message: StoredMessage | None, take_lease: bool
    ) -> tuple[StoredMessage, bool]:
        with self.sessions.begin() as session:
            if message is None:
                message = store_message(
                    session,
                    incoming.claim_id,
                    incoming.text,
                    idempotency_key=incoming.idempotency_key,
                    duplicate_window=timedelta(seconds=self.settings.duplicate_window_s),
                )
            taken = take_lease and self.lease.take(session, incoming.claim_id)
        return message, taken

    def next_step(self, message: StoredMessage) -> TurnResult | Ready:
        """This message's saved result, or else the claim's oldest message still to answer,
        with the claim, schedule, governing wording and history it is answered with (2–3)."""
        started = time.perf_counter()
        with self.sessions() as session:
            result = self._result(session, message.id)
            if result is not None:
                return result
            oldest = oldest_unanswered(session, message.claim_id)
            assert oldest is not None, "a message without a turn is unanswered"
            facts = self.claim_and_schedule(session, message.claim_id)
            stored_history = self.stored_history(session, message.claim_id) if facts.schedule else []
        ready = StoredMessage.of(oldest)
        if facts.schedule is None:
            return Ready(ready, facts, None, [], started)
        wording = self.governing_wording(facts)
        if isinstance(wording, Wording) and wording.directory.currency:
            # The schedule's amounts are in the governing wording's currency (GBP for a UK wording).
            schedule = dataclasses.replace(facts.schedule, currency=wording.directory.currency)
            facts = dataclasses.replace(facts, schedule=schedule)
        history = earlier.replay(stored_history) if isinstance(wording, Wording) else []
        return Ready(ready, facts, wording, history, started)

    # 2 ------------------------------------------------------------------------------------
    @staticmethod
    def claim_and_schedule(session: Session, claim_id: str) -> ClaimFacts:
        claim = session.get(Claim, claim_id)
        if claim is None:
            raise ClaimNotFound(claim_id)
        term = claim_term(session, claim)  # the schedule and the wording are the term's
        return ClaimFacts(claim, session.get(Policy, claim.policy_number), term and term.schedule, term)

    # 3 ------------------------------------------------------------------------------------
    def governing_wording(self, facts: ClaimFacts) -> Wording | WordingUnavailable:
        """The one approved version for the claim's term, confirmed with the store now."""
        assert facts.term is not None  # a claim without a term is routed before its wording
        try:
            entry = self.library.governing(facts.policy.family, facts.term.term_start)
            return Wording(entry, self.library.directory(entry))
        except WORDING_ERRORS as exc:
            return wording_unavailable(exc)

    # 4–9: one message's turn, once steps 1–3 are done --------------------------------------
    async def answer(self, ready: Ready, *, give_back: bool) -> TurnResult:
        """The model asked (4–6) when there is a wording to ask it with, then, in a worker
        thread, the outcome decided (7–8) and the record saved with the reply (9)."""
        run = None
        if isinstance(ready.wording, Wording):
            run = await self.ask_model(ready.facts, ready.wording, ready.message.text, ready.history)
        return await asyncio.to_thread(self.conclude, ready, run, give_back)

    def conclude(self, ready: Ready, run: ModelRun | None, give_back: bool) -> TurnResult:
        message, facts, wording = ready.message, ready.facts, ready.wording
        decision = self.outcome(ready, run)  # 7–8
        latency_ms = round((time.perf_counter() - ready.started) * 1000, 2)
        record = build_record(self.model, message, facts, wording, run, decision, latency_ms)  # 9
        result = self.save(record, decision, facts, message, give_back=give_back)
        log.info(
            "turn %s claim %s message %s outcome %s reason %s cited %s model %s %.1f ms",
            record.id,
            message.claim_id,
            message.id,
            record.outcome,
            record.route_reason,
            record.cited,
            record.model_name,
            latency_ms,
        )
        return result

    # 4–6 ----------------------------------------------------------------------------------
    async def ask_model(
        self, facts: ClaimFacts, wording: Wording, text: str, history: list[ModelMessage]
    ) -> ModelRun:
        assert facts.schedule is not None
        style = self.settings.answer_style
        deps = TurnDeps(
            self.library,
            wording.directory,
            facts.schedule,
            render_context(facts, explained=style == "explained"),
            text,
            style,
        )
        usage = RunUsage()  # filled in place, so failed runs still show what they used
        counted = CountedModel(self.model)  # and how many requests were really sent
        selection: Selection | None = None
        stored: list[Any] = []
        failure: BaseException | None = None
        with capture_run_messages() as messages:  # a failed run's messages too
            try:
                # The deadline bounds every request, tool call and retry of the run. asyncio's
                # own timeout: pydantic-ai's `timeout=` does the same at about 4 ms more per turn.
                async with asyncio.timeout(self.settings.turn_deadline_s):
                    result = await claimant_agent.run(
                        text,
                        deps=deps,
                        model=counted,
                        usage_limits=LIMITS,
                        usage=usage,
                        message_history=history,
                    )
                selection, stored = result.output, earlier.replayable(result.new_messages())
            except Exception as exc:  # every failure is routed with a reason; never the claimant's
                failure = exc
        return ModelRun(
            selection,
            fetched_in(messages),
            attempts_in(messages, deps),
            usage,
            counted.sent,
            stored,
            failure,
        )

    # 7–8 ----------------------------------------------------------------------------------
    def outcome(self, ready: Ready, run: ModelRun | None) -> Decision:
        """What comes of the turn: routed before the model when the claim has no term, no
        schedule or no usable wording; else decided from what the model selected."""
        facts, wording = ready.facts, ready.wording
        if facts.term is None:
            return Decision("routed_to_staff", route_reason="no_term_for_incident")
        if wording is None:
            return Decision("no_schedule", route_reason="no_schedule")
        if isinstance(wording, WordingUnavailable):
            return Decision("unavailable", route_reason="knowledge_unavailable", wording_kind=wording.kind)
        assert run is not None
        return self.decide(facts, wording, run)

    def decide(self, facts: ClaimFacts, wording: Wording, run: ModelRun) -> Decision:
        if run.failure is not None:
            return self.failed(run)
        selection, schedule = run.selection, facts.schedule
        assert selection is not None and schedule is not None  # the model is asked only with both
        if selection.outcome == "nothing_asked":
            return Decision("nothing_asked")
        if selection.outcome == "routed_to_staff":
            return Decision(
                "routed_to_staff",
                route_reason=self.why_the_model_routed(run),
                model_route_reason=selection.route_reason,
            )
        assert facts.term is not None
        try:  # 7: the release must still govern, and each served span re-read, when the answer goes out
            now = self.library.governing(facts.policy.family, facts.term.term_start)
            verified = self.spans_hold(selection, run.fetched)
        except WORDING_ERRORS as exc:  # withdrawn or unreachable while the model selected or after it
            gone = wording_unavailable(exc)
            return Decision(
                "unavailable", route_reason="knowledge_unavailable", wording_kind=gone.kind, error=exc
            )
        unchanged = release_unchanged(_identity(wording.entry), _identity(now))
        if not (unchanged.passed and verified.passed):
            return Decision("routed_to_staff", route_reason="failed_check", checks=(unchanged, verified))
        composed = compose(
            selection, run.fetched.clauses, schedule, wording.entry.version, style=self.settings.answer_style
        )
        part = selection.unanswered_part
        return Decision(
            "answered",
            route_reason="answered_in_part" if part else None,
            composed=composed,
            unanswered_part=part,
            citations_verified=bool(composed.clauses),
            checks=(unchanged, verified),
        )

    def failed(self, run: ModelRun) -> Decision:
        exc = run.failure
        store = next((e for e in causes(exc) if isinstance(e, WORDING_ERRORS)), None) if exc else None
        if store is not None:  # the tool's fetch met a store outage: neither the model nor a check
            kind = wording_unavailable(store).kind
            return Decision("unavailable", route_reason="knowledge_unavailable", wording_kind=kind, error=exc)
        if isinstance(exc, TimeoutError):  # the turn deadline
            return Decision("routed_to_staff", route_reason="model_timeout")
        if isinstance(exc, UnexpectedModelBehavior) and run.attempts and not run.attempts[-1].passed:
            return Decision("routed_to_staff", route_reason="failed_check")
        return Decision("routed_to_staff", route_reason=route_reason_for(exc))

    @staticmethod
    def why_the_model_routed(run: ModelRun) -> str:
        """Decided from what happened; the model's own suggestion is kept beside it. A question
        the model judged no wording answers by its nature (a decision on the claim, its progress,
        a request for staff, a question outside the wording) without asking for any clause is
        staff's: the claimant is told that, not that no clause was found."""
        assert run.selection is not None
        asked_for_nothing = not run.fetched.clauses and not run.fetched.not_found
        if asked_for_nothing and run.selection.route_reason in BY_NATURE:
            return run.selection.route_reason
        if not run.fetched.clauses:
            return "clause_not_in_directory" if run.fetched.not_found else "no_clause_selected"
        return "clauses_do_not_answer"

    def spans_hold(self, selection: Selection, fetched: Fetched) -> Check:
        """Every selected span re-read from the store under its clause's object version (each
        cited clause read once, however many of its spans are served). A store that cannot be
        read raises KnowledgeUnavailable: the knowledge is unavailable, the check did not fail."""
        spans: dict[str, list[str]] = {}
        for point in selection.points:
            spans.setdefault(point.clause_id, []).append(point.span)
        broken = [
            cid
            for cid, said in spans.items()
            if cid not in fetched.clauses or not self.library.quotes_hold(fetched.clauses[cid], said)
        ]
        if broken:
            return Check("citations_verified", False, f"spans not found on re-reading {', '.join(broken)}")
        return Check("citations_verified", True, "" if spans else "nothing cited: schedule facts only")

    # 9 ------------------------------------------------------------------------------------
    def save(
        self,
        record: Turn,
        decision: Decision,
        facts: ClaimFacts,
        message: StoredMessage,
        *,
        give_back: bool = False,
    ) -> TurnResult:
        """The record, the waiting-list item (a named step) and the reply, in one transaction;
        with the claim's lease given back in it when this was the last message to answer."""
        with self.sessions.begin() as session:
            session.add(record)
            session.flush()
            reference = (
                self.put_on_waiting_list(session, record, message, decision) if decision.routes else None
            )
            reply = Message(
                claim_id=record.claim_id,
                role="agent",
                body=claimant_reply(decision, facts, reference),
                turn_id=record.id,
                waiting_list_reference=reference,
            )
            session.add(reply)
            if give_back:
                self.lease.give_back(session, record.claim_id)
        return result_from(record, reply)

    @staticmethod
    def put_on_waiting_list(
        session: Session, record: Turn, message: StoredMessage, decision: Decision
    ) -> str:
        """The claimant's own words go to staff (for an answer in part, the words of the part
        left unanswered), with the turn record that explains the route. The same question
        already waiting on this claim keeps its one item."""
        question = decision.unanswered_part or message.text
        waiting = session.scalars(
            select(WaitingItem).where(
                WaitingItem.claim_id == record.claim_id,
                WaitingItem.question == question,
                WaitingItem.status.in_(("open", "taken")),
            )
        ).first()
        if waiting is not None:
            return waiting.reference
        item = create_item(
            session,
            claim_id=record.claim_id,
            turn_id=record.id,
            family=record.family,
            question=question,
            reason=record.route_reason,  # type: ignore[arg-type]
        )
        outbox.add(session, "question_routed", routed_event(item, record))  # in the same transaction
        return item.reference

    # Reading back -------------------------------------------------------------------------
    @staticmethod
    def _result(session: Session, message_id: int) -> TurnResult | None:
        turn = session.scalars(select(Turn).where(Turn.message_id == message_id)).first()
        if turn is None:
            return None
        reply = session.scalars(
            select(Message).where(Message.turn_id == turn.id, Message.role == "agent")
        ).first()
        return result_from(turn, reply)

    stored_history = staticmethod(earlier.stored_history)

    # Interrupted messages (agent.turn.recovery) ---------------------------------------------
    async def recover(self, *, full: bool = True) -> int:
        return await recovery.recover(self, full=full)

    async def recover_forever(self) -> None:
        await recovery.recover_forever(self)


# Replies --------------------------------------------------------------------------------------


def routed_event(item: WaitingItem, record: Turn) -> dict[str, Any]:
    """For the insurer's systems: which claim, the reference and why (not the question's text)."""
    return {
        "claim_id": item.claim_id,
        "reference": item.reference,
        "reason": item.reason,
        "turn_id": record.id,
        "family": record.family,
        "version": record.version,
    }


def claimant_reply(decision: Decision, facts: ClaimFacts, reference: str | None) -> str:
    """What the claimant reads: the composed answer (and, for an answer in part, where the
    rest went), or the runtime's own sentences."""
    if decision.outcome == "answered":
        assert decision.composed is not None
        if decision.unanswered_part is None:
            return decision.composed.text
        assert reference is not None
        return (
            f"{decision.composed.text}\n\n{notices.part_sent_to_staff(decision.unanswered_part, reference)}"
        )
    if decision.outcome == "nothing_asked":
        return notices.NOTHING_ASKED
    assert reference is not None
    if decision.outcome == "unavailable":
        return notices.wording_unavailable(
            decision.wording_kind or "store_unreachable",
            reference,
            schedule=facts.schedule,
            policy_number=facts.policy.policy_number,
            claim_facts=facts.confirmed(),
        )
    return notices.routed(decision.route_reason or "model_error", reference)


WORDING_ERRORS = (KnowledgeUnavailable, RegistryGap, RegistryConflict, IntegrityError)


def wording_unavailable(exc: Exception) -> WordingUnavailable:
    """Which honest sentence the claimant gets for a wording that can't be used."""
    if isinstance(exc, RegistryGap):
        return WordingUnavailable("wording_withdrawn" if exc.versions else "no_approved_wording", exc)
    if isinstance(exc, RegistryConflict):
        return WordingUnavailable("wording_conflict", exc)
    if isinstance(exc, IntegrityError):
        return WordingUnavailable("wording_damaged", exc)
    return WordingUnavailable("store_unreachable", exc)


def _identity(entry: VersionEntry) -> tuple[str, str, str]:
    return (entry.family, entry.version, entry.content_hash)


def render_context(facts: ClaimFacts, *, explained: bool = False) -> str:
    assert facts.schedule is not None
    return (
        PROMPTS.get_template("context.j2")
        .render(
            claim=facts.claim,
            policy=facts.policy,
            term=facts.term,
            schedule_summary=facts.schedule.summary(),
            schedule_keys=facts.schedule.keys(),
            explained=explained,
        )
        .strip()
    )


__all__ = ["ClaimNotFound", "TurnResult", "TurnRunner"]
