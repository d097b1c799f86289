"""Messages left without a turn by a killed process: found at start-up and on a schedule, and
put on the waiting list as `interrupted` (nothing a claimant sends is lost)."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Protocol

from pydantic_ai.models import Model
from sqlalchemy.orm import Session, sessionmaker

from agent.db.tables import Turn, utcnow
from agent.settings import Settings
from agent.turn.inbox import ClaimLease, StoredMessage, interrupted_claims, oldest_unanswered
from agent.turn.records import build_record
from agent.turn.steps import ClaimFacts, Decision, TurnResult

log = logging.getLogger(__name__)

# A message stranded while other processes kept running is seen by their next sweep within
# the grace period plus the interval; the periodic sweeps look back this far (with room to
# spare), and the start-up sweep further, so they read recent messages, not every one.
SWEEP_LOOKBACK = timedelta(hours=1)


class Runner(Protocol):
    """What the sweep uses of the turn runner: its database, lease and settings, and its steps
    2 (claim and schedule) and 9 (save)."""

    sessions: sessionmaker
    lease: ClaimLease
    settings: Settings
    model: Model

    def claim_and_schedule(self, session: Session, claim_id: str) -> ClaimFacts: ...

    # The sweep gives the lease back itself (give_back_now), so it never asks save to.
    def save(
        self, record: Turn, decision: Decision, facts: ClaimFacts, message: StoredMessage
    ) -> TurnResult: ...


async def recover(runner: Runner, *, full: bool = True) -> int:
    """Route every message left without a turn (a killed process) to staff as
    `interrupted`; returns how many. Messages younger than the grace period are left to
    the request that stored them. Not `full`: only messages of the last SWEEP_LOOKBACK."""
    cutoff = utcnow() - timedelta(seconds=runner.settings.interrupted_grace_s)
    since = None if full else cutoff - SWEEP_LOOKBACK
    claims = await asyncio.to_thread(_interrupted_claims, runner, cutoff, since)
    routed = 0
    for claim_id in claims:
        async with runner.lease.lock(claim_id):
            routed += await asyncio.to_thread(_route_interrupted, runner, claim_id, cutoff)
    return routed


def _interrupted_claims(runner: Runner, cutoff: datetime, since: datetime | None) -> list[str]:
    # Off the event loop: the start-up sweep reads every waiting message.
    with runner.sessions() as session:
        return interrupted_claims(session, cutoff, since)


def _route_interrupted(runner: Runner, claim_id: str, cutoff: datetime) -> int:
    with runner.sessions.begin() as session:
        if not runner.lease.take(session, claim_id):
            return 0  # another process is answering this claim after all
    routed = 0
    try:
        while True:
            with runner.sessions() as session:
                message = oldest_unanswered(session, claim_id)
                if message is None or message.created_at >= cutoff:
                    break
                waiting = StoredMessage.of(message)
                facts = runner.claim_and_schedule(session, claim_id)
            decision = Decision("routed_to_staff", route_reason="interrupted")
            record = build_record(runner.model, waiting, facts, None, None, decision, 0.0)
            runner.save(record, decision, facts, waiting)
            log.warning("claim %s message %s was interrupted; routed to staff", claim_id, waiting.id)
            routed += 1
    finally:
        runner.lease.give_back_now(claim_id)
    return routed


async def recover_forever(runner: Runner) -> None:
    """The schedule: sweep for interrupted messages until cancelled; the first sweep (at
    start-up) reads every waiting message, later ones the recent ones only."""
    full = True
    while True:
        try:
            await recover(runner, full=full)
            full = False
        except Exception as exc:  # a sweep that fails is tried again next time
            log.warning("interrupted-message sweep failed: %s", type(exc).__name__)
        await asyncio.sleep(runner.settings.recovery_interval_s)
