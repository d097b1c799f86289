"""The turn runner: one claimant message in, one reply out. Read top to bottom: the nine steps
of design.md's "A turn", each a call that returns a frozen value (agent.turn.steps).

1 `store`: the message committed first (agent.turn.inbox: deduplicated, one turn at a time per
  claim, oldest first) · 2 `claim_and_schedule` -> ClaimFacts · 3 `governing_wording` -> Wording,
  with the claim's earlier turns in `next_step` -> Ready
4–6 `ask_model` -> ModelRun (agent.claimant.run): the claimant agent, the directory this
  claimant may see, a Selection checked by the boundary, one corrective retry, the deadline
7–8 `decide` -> Decision (agent.turn.outcome): the runtime's reading of the message, the release
  re-checked, the reply composed with what qualifies it, served only where every quoted clause
  answers claimants, else drafted for staff
9 `build_record` and `save`: the record, the waiting-list item with its draft and the reply in
  one transaction. Messages a killed process left without a turn: agent.turn.recovery.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from datetime import timedelta

from pydantic_ai.models import Model
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from agent import metrics
from agent.answering.examples import Cover
from agent.answering.gate import POOLED, Gated, gate, is_near, ungated
from agent.answering.modes import modes_for
from agent.boundary.triage import Triage
from agent.claimant import history as earlier
from agent.claimant.run import ModelRun, ask
from agent.db.tables import Claim, Message, Policy, Turn
from agent.models.memory import CLOSE, Memories
from agent.policy.terms import claim_term
from agent.settings import Settings
from agent.turn import outcome, recovery
from agent.turn.inbox import ClaimLease, ClaimNotFound, StoredMessage, oldest_unanswered, store_incoming
from agent.turn.records import build_record, result_from
from agent.turn.steps import ClaimFacts, Decision, Incoming, Ready, TurnResult, Wording, WordingUnavailable
from agent.turn.waiting import ExpectedWait, draft_from_turn, put_on_waiting_list
from knowledge.clauses import ClauseLibrary

log = logging.getLogger(__name__)


class TurnRunner:
    def __init__(
        self,
        sessions: sessionmaker,
        library: ClauseLibrary,
        model: Model,
        settings: Settings | None = None,
        *,
        answer_all: bool = False,
        memories: Memories | None = None,
        purpose: str = metrics.CLAIMANT,
    ):
        self.sessions = sessions
        self.library = library
        self.model = model
        self.settings = settings or Settings()
        # A release check measures what every clause would serve: it answers whatever the modes.
        self.answer_all = answer_all
        # The runtime memory of verified questions: the gate's near rule reads it, whatever the model.
        self.memories = memories
        # Whose turns these are, for /metrics: claimants', or a release check's or evaluation's.
        self.purpose = purpose
        self.lease = ClaimLease(sessions, ttl_s=self.settings.turn_lease_ttl_s)
        self.wait = ExpectedWait(self.settings.draft_wait)

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
        window = timedelta(seconds=self.settings.duplicate_window_s)
        fields = (incoming.claim_id, incoming.text, incoming.idempotency_key)
        with self.sessions() as session:
            return store_incoming(session, self.lease, fields, message, take_lease, window)

    def next_step(self, message: StoredMessage) -> TurnResult | Ready:
        """This message's saved result, or else the claim's oldest message still to answer,
        with the claim, schedule, governing wording and history it is answered with (2–3)."""
        started = time.perf_counter()
        with self.sessions() as session:
            turn = session.scalars(select(Turn).where(Turn.message_id == message.id)).first()
            if turn is not None:
                reply = session.scalars(
                    select(Message).where(Message.turn_id == turn.id, Message.role == "agent")
                ).first()
                return result_from(turn, reply)
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

    stored_history = staticmethod(earlier.stored_history)

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
        except outcome.WORDING_ERRORS as exc:
            return outcome.why_unavailable(exc)

    # 4–9: one message's turn, once steps 1–3 are done --------------------------------------
    async def answer(self, ready: Ready, *, give_back: bool) -> TurnResult:
        """The runtime reads the message; the model is asked (4–6) when there is a wording and
        a question; then, in a worker thread, the outcome (7–8) and the record saved (9)."""
        read = outcome.read_message(ready)
        decision, run = outcome.before_the_model(ready, read), None
        if decision is None:
            run = await self.ask_model(ready)
        return await asyncio.to_thread(self.conclude, ready, read, decision, run, give_back)

    async def ask_model(self, ready: Ready) -> ModelRun:  # 4–6
        facts, wording = ready.facts, ready.wording
        assert isinstance(wording, Wording) and facts.schedule is not None and facts.term is not None
        claim_facts = (facts.claim, facts.policy, facts.term, facts.schedule)
        style, deadline_s = self.settings.answer_style, self.settings.turn_deadline_s
        text, history = ready.message.text, ready.history
        return await ask(
            self.model,
            self.library,
            wording.directory,
            claim_facts,
            text,
            history,
            style=style,
            deadline_s=deadline_s,
        )

    def conclude(
        self, ready: Ready, read: Triage, decision: Decision | None, run: ModelRun | None, give_back: bool
    ) -> TurnResult:
        if decision is None:  # 7–8
            assert run is not None
            decision = outcome.decide(
                ready,
                run,
                read,
                library=self.library,
                style=self.settings.answer_style,
                gate_of=lambda family, version, quoted: self.gated(family, version, ready, quoted),
            )
        ms = round((time.perf_counter() - ready.started) * 1000, 2)
        record = build_record(self.model, ready.message, ready.facts, ready.wording, run, decision, ms)
        result = self.save(record, decision, ready.facts, ready.message, give_back=give_back)  # 9
        log.info(
            "turn %s claim %s message %s outcome %s reason %s cited %s model %s %.1f ms", record.id,
            ready.message.claim_id, ready.message.id, record.outcome, record.route_reason, record.cited,
            record.model_name, ms,
        )  # fmt: skip
        return result

    def gated(self, family: str, version: str, ready: Ready, quoted: list[str]) -> Gated:
        """The serving gate on an answer quoting `quoted` (agent.answering.gate)."""
        schedule = ready.facts.schedule
        cover = Cover(schedule.plan, frozenset(schedule.sections)) if schedule is not None else None
        theirs = list(quoted)
        if schedule is not None and isinstance(ready.wording, Wording):
            entries = [ready.wording.directory.get(c) for c in quoted]
            theirs = [c for c, e in zip(quoted, entries, strict=True) if e is None or schedule.holds(e.plans)]
        near = self.near(family, version, ready.message.text, quoted, cover, theirs)
        if self.answer_all:
            return ungated(quoted, near=near)
        with self.sessions() as session:
            modes = modes_for(session, family, version, [*quoted, *POOLED])
        return gate(modes, quoted, near=near)

    def near(
        self,
        family: str,
        version: str,
        question: str,
        quoted: list[str],
        cover: Cover | None,
        theirs: list[str],
    ) -> bool:
        """Whether the nearest verified question (one that may steer this claimant's cover) is
        close and cites every quoted clause. `theirs`: the quoted clauses of the claimant's own
        plan, which another plan's example may share (a clause of other plans only does not
        make another plan's answer this claimant's)."""
        if self.memories is None or not quoted:
            return False
        recalled = self.memories.recall(family, version, question, cover=cover, visible=frozenset(theirs))
        if recalled is None or recalled.example.routed:
            return False
        close = CLOSE[recalled.matching]
        return is_near(recalled.closeness, close, recalled.example.clause_ids, quoted)

    # 9 ------------------------------------------------------------------------------------
    def save(
        self,
        record: Turn,
        decision: Decision,
        facts: ClaimFacts,
        message: StoredMessage,
        give_back: bool = False,
    ) -> TurnResult:
        """The record, the waiting-list item and its draft, and the reply, in one transaction;
        with the claim's lease given back in it when this was the last message to answer."""
        with self.sessions.begin() as session:
            session.add(record)
            session.flush()
            item = put_on_waiting_list(session, record, message, decision) if decision.routes else None
            reference = item.reference if item is not None else None
            wait = self.wait.sentence(session) if decision.drafted else ""
            body = outcome.claimant_reply(decision, facts, reference, wait)
            reply = Message(claim_id=record.claim_id, role="agent", body=body, turn_id=record.id)
            reply.waiting_list_reference = reference
            session.add(reply)
            if item is not None:
                session.flush()
                draft_from_turn(session, item, decision, record, reply)
            if give_back:
                self.lease.give_back(session, record.claim_id)
        metrics.turn_finished(record, self.purpose)
        return result_from(record, reply)

    # Interrupted messages (agent.turn.recovery) ---------------------------------------------
    async def recover(self, *, full: bool = True) -> int:
        return await recovery.recover(self, full=full)

    async def recover_forever(self) -> None:
        await recovery.recover_forever(self)


__all__ = ["TurnResult", "TurnRunner"]
