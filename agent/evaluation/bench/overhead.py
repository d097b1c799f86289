"""1 Overhead: the runtime's time per turn with a zero-latency scripted model, beside the
floor of the same raw store and database calls, measured interleaved; and the agent run
alone, with no store or database call inside."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import insert, select

from agent import metrics
from agent.db.tables import Claim, Message, Policy, Schedule, Turn, new_id, utcnow
from agent.evaluation.bench.measuring import QUESTION, RATE, percentile
from agent.turn.inbox import StoredMessage
from agent.turn.runner import TurnRunner
from agent.turn.steps import Ready, Wording
from knowledge.clauses import ClauseLibrary, Directory, FetchResult, clause_key
from knowledge.manifest import MANIFEST_KEY
from knowledge.store import ObjectStore


class Clock:
    """Accumulates time per part for the current turn."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = defaultdict(float)

    def wrap(self, part: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.parts[part] += time.perf_counter() - started

        return timed

    def wrap_async(self, part: str, fn: Any) -> Any:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                self.parts[part] += time.perf_counter() - started

        return timed


def zero_latency_model(clock: Clock) -> FunctionModel:
    """Calls resolve_clauses, then returns a valid cited answer. The model's whole request is
    its own time (FunctionModel also estimates usage there) and is measured apart."""

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        parts = last.parts if isinstance(last, ModelRequest) else []
        fetched = any(isinstance(p, ToolReturnPart) and p.tool_name == "resolve_clauses" for p in parts)
        if fetched and not any(p.part_kind == "user-prompt" for p in parts):
            reply = {"outcome": "answered", "points": [{"clause_id": "MTR-BEN-03", "span": RATE}]}
            return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, reply)])
        return ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": ["MTR-BEN-03"]})])

    model = FunctionModel(play, model_name="zero-latency")
    model.request = clock.wrap_async("model", model.request)  # type: ignore[method-assign]
    return model


DRIVER_CALLS = ("do_execute", "do_execute_no_params", "do_executemany", "do_commit", "do_rollback")


def measure_overhead_and_floor(
    sessions: Any, engine: Any, store: ObjectStore, turns: int, rounds: int = 3, block: int = 10
) -> dict[str, Any]:
    """The turn's overhead and its floor, measured interleaved: blocks of `block` turns and
    `block` floor repetitions alternate, so both meet the same moments of the S3 stand-in
    and the machine (their latency swings over seconds; measured one after the other, two
    runs gave 1.04× and 2.28×). `rounds` rounds of `turns` each; every round has its own
    ratio, and the median round is reported with the spread of all of them."""
    clock = Clock()
    # Time in the database driver (every statement, commit and rollback) and in the store.
    dialect = sessions.kw["bind"].dialect
    for name in DRIVER_CALLS:
        setattr(dialect, name, clock.wrap("database", getattr(dialect, name)))
    timed_store = ObjectStore(store.settings)
    timed_store.get = clock.wrap("object store", timed_store.get)  # type: ignore[method-assign]
    runner = TurnRunner(
        sessions, ClauseLibrary(timed_store), zero_latency_model(clock), purpose=metrics.EVALUATION
    )
    floor_once = floor_step(engine, store)
    numbers = iter(range(10**9))

    async def one_turn() -> dict[str, float]:
        clock.parts.clear()
        started = time.perf_counter()
        result = await runner.run("CLM-204518", f"{QUESTION} ({next(numbers)})")
        total = time.perf_counter() - started
        assert result.outcome == "answered", result
        parts = dict(clock.parts)
        model = parts.pop("model", 0.0)
        overhead = total - model
        parts["other (agent framework, prompt, checks)"] = overhead - sum(parts.values())
        return {"overhead": overhead * 1000, **{k: v * 1000 for k, v in parts.items()}}

    async def all_rounds() -> list[tuple[list[dict[str, float]], list[float]]]:
        for _ in range(20):  # warm-up, left out
            await one_turn()
            floor_once()
        done = []
        for _ in range(rounds):
            rows: list[dict[str, float]] = []
            floor: list[float] = []
            while len(rows) < turns:
                for _ in range(min(block, turns - len(rows))):
                    rows.append(await one_turn())
                for _ in range(min(block, turns - len(floor))):
                    floor.append(floor_once())
            done.append((rows, floor))
        return done

    try:
        measured = asyncio.run(all_rounds())
    finally:
        for name in DRIVER_CALLS:
            delattr(dialect, name)  # the class's own methods again
    summaries = []
    for rows, floor in measured:
        keys = [k for k in rows[0] if k != "overhead"]
        overhead = {
            "turns": len(rows),
            "p50_ms": round(percentile([r["overhead"] for r in rows], 0.5), 3),
            "p99_ms": round(percentile([r["overhead"] for r in rows], 0.99), 3),
            "breakdown_p50_ms": {k: round(percentile([r.get(k, 0.0) for r in rows], 0.5), 3) for k in keys},
        }
        floor_p = {"p50_ms": round(percentile(floor, 0.5), 3), "p99_ms": round(percentile(floor, 0.99), 3)}
        ratio = round(overhead["p50_ms"] / floor_p["p50_ms"], 2)
        summaries.append({"overhead": overhead, "floor": floor_p, "ratio": ratio})
    median = sorted(summaries, key=lambda r: r["ratio"])[len(summaries) // 2]
    ratios = [r["ratio"] for r in summaries]
    return {
        **median,
        "rounds": [
            {
                "overhead_p50_ms": r["overhead"]["p50_ms"],
                "floor_p50_ms": r["floor"]["p50_ms"],
                "ratio": r["ratio"],
            }
            for r in summaries
        ],
        "ratio_spread": [min(ratios), max(ratios)],
    }


def floor_step(engine: Any, store: ObjectStore) -> Any:
    """One repetition of the floor, in ms: the same raw calls a turn makes, alone, with
    SQLAlchemy Core, in the same transactions: the message stored with the claim's lease
    taken (claim, earlier copy, insert, lease); then one read of this message's result, the
    oldest message to answer, claim, policy, schedule and history; from the store the
    manifest, the cited clause, the manifest again (the release re-checked) and the clause
    again by its version (the served quote re-read); last the turn and reply inserted with
    the lease given back."""
    library = ClauseLibrary(store)
    directory = library.directory(library.governing("motor", _term_start(engine)))
    entry = directory.get("MTR-BEN-03")
    assert entry is not None
    key = clause_key("motor", directory.version, "MTR-BEN-03")
    claims = Claim.__table__
    messages = Message.__table__
    turns_table = Turn.__table__
    claim = claims.c.claim_id == "CLM-204518"

    def raw_get(name: str, version: str | None = None) -> None:
        response = store.client.get_object(store.bucket, name, version_id=version)
        response.read()
        response.release_conn()

    def once() -> float:
        started = time.perf_counter()
        with engine.begin() as c:
            c.execute(select(claims).where(claim)).all()
            c.execute(
                select(messages.c.id).where(
                    messages.c.claim_id == "CLM-204518", messages.c.waiting_sha256 == "x"
                )
            ).all()
            message_id = c.execute(
                insert(messages).values(
                    claim_id="CLM-204518", role="claimant", body=QUESTION, created_at=utcnow()
                )
            ).inserted_primary_key[0]
            c.execute(claims.update().where(claim).values(turn_lease_owner="bench"))
        with engine.connect() as c:
            c.execute(select(turns_table.c.id).where(turns_table.c.message_id == message_id)).all()
            c.execute(
                select(messages.c.id)
                .outerjoin(turns_table, turns_table.c.message_id == messages.c.id)
                .where(messages.c.claim_id == "CLM-204518", turns_table.c.id.is_(None))
                .order_by(messages.c.id)
                .limit(1)
            ).all()
            c.execute(select(claims).where(claim)).all()
            c.execute(select(Policy.__table__).where(Policy.policy_number == "KM-MTR-204518")).all()
            c.execute(select(Schedule.__table__).where(Schedule.policy_number == "KM-MTR-204518")).all()
            c.execute(
                select(Turn.model_messages)
                .where(Turn.claim_id == "CLM-204518")
                .order_by(Turn.started_at.desc())
                .limit(6)
            ).all()
        raw_get(MANIFEST_KEY)
        raw_get(key, entry.object_version)
        raw_get(MANIFEST_KEY)
        raw_get(key, entry.object_version)
        with engine.begin() as c:
            turn_id = new_id()
            c.execute(
                insert(turns_table).values(
                    id=turn_id,
                    claim_id="CLM-204518",
                    message_id=message_id,
                    started_at=utcnow(),
                    outcome="answered",
                )
            )
            c.execute(
                insert(messages).values(
                    claim_id="CLM-204518", role="agent", body=RATE, turn_id=turn_id, created_at=utcnow()
                )
            )
            c.execute(claims.update().where(claim).values(turn_lease_owner=None))
        return (time.perf_counter() - started) * 1000

    return once


class ClausesInMemory(ClauseLibrary):
    """The cited clause fetched from the store once, then handed out from memory."""

    def __init__(self, library: ClauseLibrary, directory: Directory):
        super().__init__(library.store)
        self.result = library.fetch(directory, ["MTR-BEN-03"])

    def fetch(self, directory: Directory, clause_ids: list[str]) -> FetchResult:
        return self.result


def measure_agent_alone(sessions: Any, store: ObjectStore, turns: int) -> dict[str, Any]:
    """Steps 4–7 alone, as the turn runs them (pydantic-ai's run with the tool, the answer
    boundary and the deadline), with no store or database call inside: the part of the
    overhead that belongs to the agent framework and the checks, whatever the I/O costs."""
    clock = Clock()
    library = ClauseLibrary(store)
    runner = TurnRunner(sessions, library, zero_latency_model(clock), purpose=metrics.EVALUATION)
    with sessions() as session:
        facts = runner.claim_and_schedule(session, "CLM-204518")
    wording = runner.governing_wording(facts)
    assert isinstance(wording, Wording)
    runner.library = ClausesInMemory(library, wording.directory)
    ready = Ready(StoredMessage(0, "CLM-204518", QUESTION, datetime.now(UTC)), facts, wording, [], 0.0)
    times = []

    async def runs() -> None:
        for n in range(turns + 20):
            clock.parts.clear()
            started = time.perf_counter()
            run = await runner.ask_model(ready)
            assert run.selection is not None and run.selection.outcome == "answered", run.failure
            if n >= 20:
                times.append((time.perf_counter() - started - clock.parts["model"]) * 1000)

    asyncio.run(runs())
    return {"p50_ms": round(percentile(times, 0.5), 3), "p99_ms": round(percentile(times, 0.99), 3)}


def _term_start(engine: Any) -> Any:
    with engine.connect() as c:
        return c.execute(
            select(Policy.term_start).where(Policy.policy_number == "KM-MTR-204518")
        ).scalar_one()
