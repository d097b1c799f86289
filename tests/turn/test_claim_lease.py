"""The claim's lease: taken with the stored message, given back with the saved reply, and
one turn at a time per claim across two runners (two processes' worth: two lease owners)
on the same database, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.function import FunctionModel
from sqlalchemy import select

from agent.db.tables import Claim, Message, Turn
from agent.settings import Settings
from agent.turn.runner import TurnRunner
from knowledge.clauses import ClauseLibrary
from tests.support import route, seeded_database

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases


def runners(database_url: str, store, model, count: int) -> tuple[list[TurnRunner], object]:
    engine, sessions = seeded_database(database_url)
    library = ClauseLibrary(store)
    return [
        TurnRunner(sessions, library, model, Settings(database_url=database_url)) for _ in range(count)
    ], engine


async def routes(messages, info) -> ModelResponse:
    """A model that routes every question to staff at once."""
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, route("x", "q"))])


def lease_of(sessions, claim_id: str) -> tuple[str | None, object]:
    with sessions() as session:
        claim = session.get(Claim, claim_id)
        return claim.turn_lease_owner, claim.turn_lease_until


def test_the_lease_is_given_back_with_the_saved_reply(database_url, corpus_store) -> None:
    seen_leases = []

    async def model(messages, info):
        seen_leases.append(lease_of(runner.sessions, "CLM-204518")[0])
        return await routes(messages, info)

    (runner,), engine = runners(database_url, corpus_store, FunctionModel(function=model), 1)
    try:
        result = asyncio.run(runner.run("CLM-204518", "Where is my claim up to?"))
        assert result.outcome == "routed_to_staff"
        assert seen_leases == [runner.lease.owner]  # held while the model was asked
        assert lease_of(runner.sessions, "CLM-204518") == (None, None)  # and given back
    finally:
        engine.dispose()


def test_two_runners_answer_one_claim_one_turn_at_a_time_in_order(database_url, corpus_store) -> None:
    active = {"now": 0, "most": 0}

    async def model(messages, info):
        active["now"] += 1
        active["most"] = max(active["most"], active["now"])
        await asyncio.sleep(0.02)
        active["now"] -= 1
        return await routes(messages, info)

    (first, second), engine = runners(database_url, corpus_store, FunctionModel(function=model), 2)
    assert first.lease.owner != second.lease.owner

    async def both() -> list:
        texts = [f"question {n} about my claim" for n in range(8)]
        return await asyncio.gather(
            *((first if n % 2 else second).run("CLM-204518", text) for n, text in enumerate(texts))
        )

    try:
        results = asyncio.run(both())
        assert active["most"] == 1  # never two turns of the claim at once, across owners
        assert all(r.outcome == "routed_to_staff" for r in results)
        with first.sessions() as session:
            asked = session.scalars(
                select(Message.id).where(Message.claim_id == "CLM-204518", Message.role == "claimant")
            ).all()
            answered = session.scalars(select(Turn.message_id).order_by(Turn.finished_at)).all()
        assert len(asked) == 8 and answered == sorted(asked)  # each once, oldest first
        assert lease_of(first.sessions, "CLM-204518") == (None, None)
    finally:
        engine.dispose()


def test_a_lease_held_elsewhere_is_waited_for_then_taken(database_url, corpus_store) -> None:
    (runner,), engine = runners(database_url, corpus_store, FunctionModel(function=routes), 1)
    with runner.sessions.begin() as session:  # another process holds the claim for a moment
        assert runner.lease.take(session, "CLM-204518") is True
        session.get(Claim, "CLM-204518").turn_lease_owner = "another-process"

    async def release_later() -> None:
        await asyncio.sleep(0.3)
        await asyncio.to_thread(lambda: _free(runner.sessions, "CLM-204518"))

    async def turn_while_held():
        waiting = asyncio.create_task(runner.run("CLM-204518", "Where is my claim up to?"))
        await asyncio.sleep(0.15)
        # The message is stored at once, even though its turn has to wait.
        with runner.sessions() as session:
            stored = session.scalars(select(Message).where(Message.role == "claimant")).all()
            turns = session.scalars(select(Turn)).all()
        assert len(stored) == 1 and turns == []
        await release_later()
        return await waiting

    try:
        result = asyncio.run(turn_while_held())
        assert result.outcome == "routed_to_staff"
        assert lease_of(runner.sessions, "CLM-204518") == (None, None)
    finally:
        engine.dispose()


def _free(sessions, claim_id: str) -> None:
    with sessions.begin() as session:
        claim = session.get(Claim, claim_id)
        claim.turn_lease_owner = None
        claim.turn_lease_until = None


def test_a_key_stored_by_a_concurrent_request_first_is_that_message(
    database_url, corpus_store, monkeypatch
) -> None:
    """Two requests with one Idempotency-Key: the later one looked for an earlier copy before
    the first committed, so its insert hits the unique key; it tries again and gets the first."""
    import agent.turn.inbox

    (runner,), engine = runners(database_url, corpus_store, FunctionModel(function=routes), 1)
    try:
        first = asyncio.run(runner.run("CLM-204518", "Where is my claim up to?", idempotency_key="k-race"))
        looked = agent.turn.inbox._earlier_copy
        calls = []

        def too_early(*args, **kwargs):  # the first look happens before that commit
            calls.append(1)
            return None if len(calls) == 1 else looked(*args, **kwargs)

        monkeypatch.setattr(agent.turn.inbox, "_earlier_copy", too_early)
        again = asyncio.run(runner.run("CLM-204518", "Where is my claim up to?", idempotency_key="k-race"))
        assert len(calls) == 2  # refused by the unique key once, then found
        assert again == first
        with runner.sessions() as session:
            stored = session.scalars(select(Message).where(Message.role == "claimant")).all()
        assert len(stored) == 1
    finally:
        engine.dispose()


def test_a_turn_that_fails_after_taking_the_lease_gives_it_back(database_url, corpus_store) -> None:
    (runner,), engine = runners(database_url, corpus_store, FunctionModel(function=routes), 1)

    def broken(session, claim_id):
        raise RuntimeError("the database went away mid-read")

    runner.stored_history = broken
    try:
        with pytest.raises(RuntimeError, match="went away"):
            asyncio.run(runner.run("CLM-204518", "Where is my claim up to?"))
        # The message is kept (it is swept as interrupted later) and the claim is free.
        assert lease_of(runner.sessions, "CLM-204518") == (None, None)
        with runner.sessions() as session:
            assert len(session.scalars(select(Message).where(Message.role == "claimant")).all()) == 1
    finally:
        engine.dispose()
