"""`python -m agent bench --growth`: how the system behaves as its data grows.

On a fresh database (a temporary SQLite file, or `--database-url` pointing at an empty
PostgreSQL database) with its own local S3 server: the development claims and staff are
seeded, a long conversation is built on CLM-204518 by real turns through the HTTP API
(offline model), and the claimant turn at its end is timed. Then, in bulk (batched
executemany), 10,000 claims with their policies and schedules, 1,000,000 turns with a
claimant message and a reply each, and 100,000 waiting-list items (one per routed turn)
are written, spread over the last year. Bulk turn records copy the columns of a real
answered or routed record of this run, except the two large ones (the model messages and
the directory seen), which only the long conversation's real turns keep. Then p50 and p95
of every staff read, the wording page, `agent affected` (its totals and first page, with a
clause filter, and a page deep in the list), conversation reads and the turn at the end of
the long conversation again, all through HTTP except `affected` (its function, as the command
calls it). `--scale` shrinks every count for a smoke run. The bulk rows go through the
database triggers that keep the counts (migration 0014), as every write does.
PostgreSQL is vacuumed and analysed after the bulk load, as its autovacuum would (it vacuums
insert-only tables too, so index-only scans need not visit the rows); SQLite is not (no SQLite
application analyses on its own). `--existing` measures a database an earlier run filled
again (after a migration, say) without filling it: `--database-url sqlite:///FILE` keeps a
SQLite one.
"""

from __future__ import annotations

import itertools
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import Engine

from agent.db.tables import (
    Claim,
    Message,
    Policy,
    Schedule,
    Turn,
    WaitingItem,
    make_engine,
    make_sessionmaker,
    upgrade,
    utcnow,
)
from agent.evaluation.harness import answer_everything, reload_knowledge
from agent.evaluation.localstore import start_local_s3
from agent.evaluation.serving import serve_in_thread
from agent.security import hash_token
from agent.seed import load_seed_files, seed_policies, seed_staff
from agent.staff.waiting_list import STATUS_FILTERS
from agent.wording.affected import affected
from knowledge.settings import StoreSettings
from knowledge.store import ObjectStore

FULL = {"claims": 10_000, "turns": 1_000_000, "waiting": 100_000, "conversation": 200}
LONG_CLAIM = "CLM-204518"
LONG_TOKEN = "dev-claimant-204518"
STAFF_TOKEN = "dev-staff-token-aroha"
TARGET_P95_MS = 100.0
BUDGET_S, MIN_CALLS, SLOW_S, CLIENT_TIMEOUT_S = 20.0, 5, 5.0, 180.0
BATCH = 20_000
REPLY = "A generated reply."
REPLY_AFTER = timedelta(milliseconds=40)
# The turn record's JSON columns copied from the templates (written as text in bulk).
JSON_COLUMNS = {"requested", "returned", "not_found", "cited", "citations", "checks", "error_chain"}
QUESTIONS = (
    "Can I get a rental car while mine is being repaired?",
    "What is my excess for a driver under 25?",
    "Does my policy cover windscreen damage?",
    "How long can I keep the hire car?",
    "Is my jewellery covered away from home?",
)
REASONS = (
    ("no_clause_selected", 30),
    ("clauses_do_not_answer", 25),
    ("needs_decision", 15),
    ("failed_check", 8),
    ("knowledge_unavailable", 7),
    ("model_timeout", 6),
    ("interrupted", 5),
    ("model_server_error", 4),
)
STATUSES = (("open", 35), ("taken", 10), ("answered", 35), ("closed", 20))
FAMILY_PLAN = {"motor": "Comprehensive", "home": "Home Replacement", "contents": "Standard"}


@dataclass(frozen=True)
class Sizes:
    claims: int
    turns: int
    waiting: int
    conversation: int

    @classmethod
    def at(cls, scale: float) -> Sizes:
        n = {k: max(1, round(v * scale)) for k, v in FULL.items()}
        # At least a few messages of conversation, and never more items than routed turns.
        return cls(n["claims"], n["turns"], min(n["waiting"], n["turns"]), max(n["conversation"], 10))


def _percentiles(values: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(values, n=20, method="inclusive") if len(values) > 1 else values * 19
    return {"p50_ms": round(statistics.median(values), 2), "p95_ms": round(cuts[18], 2), "n": len(values)}


def _timed(call: Callable[[], Any], repeat: int) -> dict[str, Any]:
    """`repeat` timed calls after a warm-up. A measure slower than BUDGET_S in all stops after
    MIN_CALLS, and one whose warm-up alone takes SLOW_S is that one call (a scan of a million
    rows would otherwise take the run's hour); a call past the client's timeout is recorded
    as timed out."""
    times: list[float] = []
    try:
        started = time.perf_counter()
        call()  # warm-up, left out unless it is all there is time for
        warm_up = time.perf_counter() - started
        if warm_up >= SLOW_S:
            return {**_percentiles([warm_up * 1000]), "warm_up_only": True}
        while len(times) < repeat and (len(times) < MIN_CALLS or sum(times) < BUDGET_S * 1000):
            started = time.perf_counter()
            call()
            times.append((time.perf_counter() - started) * 1000)
    except httpx.TimeoutException:
        return {
            "p50_ms": CLIENT_TIMEOUT_S * 1000,
            "p95_ms": CLIENT_TIMEOUT_S * 1000,
            "n": len(times) + 1,
            "timed_out": True,
        }
    return _percentiles(times)


def _weighted(choices: tuple[tuple[str, int], ...], rng: random.Random) -> Iterator[str]:
    names = [c for c, _ in choices]
    weights = [w for _, w in choices]
    while True:
        yield from rng.choices(names, weights, k=1024)


# The data -------------------------------------------------------------------------------------


def _templates(engine: Engine) -> dict[str, dict[str, Any]]:
    """Columns of a real answered and a real routed turn record of this run."""
    keep = ("requested", "returned", "not_found", "cited", "citations", "checks", "error_chain")
    with engine.connect() as c:
        found = {}
        for outcome in ("answered", "routed_to_staff"):
            row = c.execute(
                select(Turn).where(Turn.claim_id == LONG_CLAIM, Turn.outcome == outcome).limit(1)
            ).first()
            if row is not None:
                found[outcome] = {k: getattr(row, k) for k in keep} | {
                    "directory_hash": row.directory_hash,
                    "model_name": row.model_name,
                    "input_tokens": row.input_tokens,
                    "output_tokens": row.output_tokens,
                    "model_requests": row.model_requests,
                    "latency_ms": row.latency_ms,
                }
    answered = found["answered"]
    routed = found.get("routed_to_staff") or {**answered, "cited": [], "citations": [], "checks": []}
    return {"answered": answered, "routed": routed}


def _insert(engine: Engine, table: Any, rows: Iterator[dict[str, Any]]) -> int:
    count, batch = 0, []
    with engine.begin() as c:
        for row in rows:
            batch.append(row)
            if len(batch) == BATCH:
                c.execute(insert(table), batch)
                count, batch = count + len(batch), []
        if batch:
            c.execute(insert(table), batch)
            count += len(batch)
    return count


def _bulk(engine: Engine, table: Any, names: tuple[str, ...], rows: Iterator[tuple[Any, ...]]) -> int:
    """Rows written straight through the driver: COPY on PostgreSQL, executemany in batches
    on SQLite. Values come ready: JSON as text, times as the dialect stores them (_Stamp)."""
    count = 0
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        if engine.dialect.name == "sqlite":
            sql = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
            while batch := list(itertools.islice(rows, BATCH)):
                cursor.executemany(sql, batch)
                count += len(batch)
        else:
            with cursor.copy(f"COPY {table.name} ({', '.join(names)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
                    count += 1
        raw.commit()
    finally:
        raw.close()
    return count


class _Stamp:
    """Times as agent.db.tables.UTCDateTime stores them: naive UTC text on SQLite."""

    def __init__(self, engine: Engine) -> None:
        self.sqlite = engine.dialect.name == "sqlite"

    def __call__(self, value: datetime | None) -> Any:
        if value is None or not self.sqlite:
            return value
        return value.replace(tzinfo=None).isoformat(" ", "microseconds")


def generate(engine: Engine, sizes: Sizes, seed: int = 20) -> dict[str, Any]:
    """The bulk data; returns what was written and how long it took."""
    started = time.perf_counter()
    rng = random.Random(seed)
    templates = _templates(engine)
    schedules = {d["family"]: d["schedule"] for d in load_seed_files()}
    families = list(FAMILY_PLAN)
    now = utcnow()
    year = timedelta(days=365)

    policies = [
        {
            "policy_number": f"KM-G-{i:06d}",
            "family": families[i % 3],
            "policyholder": f"Growth Claimant {i}",
            "plan": FAMILY_PLAN[families[i % 3]],
            # Half the terms under each approved version (2025.1 until 2026-07-01, then 2026.2).
            "term_start": date(2026, 3, 1) if i % 2 else date(2026, 8, 1),
            "term_end": date(2027, 3, 1) if i % 2 else date(2027, 8, 1),
        }
        for i in range(sizes.claims)
    ]
    _insert(engine, Policy.__table__, iter(policies))
    _insert(
        engine,
        Schedule.__table__,
        (
            {
                "policy_number": p["policy_number"],
                "sections": list(schedules[p["family"]].get("sections", [])),
                "excess": dict(schedules[p["family"]].get("excess", {})),
                "sums_insured": dict(schedules[p["family"]].get("sums_insured", {})),
                "details": dict(schedules[p["family"]].get("details", {})),
                "labels": dict(schedules[p["family"]].get("labels", {})),
            }
            for p in policies
        ),
    )
    _insert(
        engine,
        Claim.__table__,
        (
            {
                "claim_id": f"CLM-G{i:06d}",
                "policy_number": p["policy_number"],
                "status": "open" if i % 10 else "closed",
                "incident": "Generated for the growth benchmark.",
                "token_hash": hash_token(f"growth-CLM-G{i:06d}"),
                "created_at": now - year,
            }
            for i, p in enumerate(policies)
        ),
    )

    with engine.connect() as c:
        first_message = (c.scalar(select(func.max(Message.id))) or 0) + 1
        first_item = (c.scalar(select(func.max(WaitingItem.id))) or 0) + 1
    # Which turns are routed: `waiting` of them, at random over the year, so the last 30 days
    # hold their share of the items (the gaps page counts those).
    routed_turns = set(rng.sample(range(sizes.turns), sizes.waiting))
    reasons, statuses = _weighted(REASONS, rng), _weighted(STATUSES, rng)
    stamp = _Stamp(engine)
    per_claim = sizes.turns / sizes.claims
    step = year / max(per_claim, 1)
    # Each turn: number, claim, family, version, its time, route reason (None when answered).
    plan: list[tuple[int, str, str, str, datetime, str | None]] = []
    for n in range(sizes.turns):
        claim = int(n / per_claim)
        started_at = now - year + step * (n - claim * per_claim) + timedelta(seconds=claim % 3600)
        reason = next(reasons) if n in routed_turns else None
        family, version = families[claim % 3], "2025.1" if claim % 2 else "2026.2"
        plan.append((n, f"CLM-G{claim:06d}", family, version, started_at, reason))

    def message_rows() -> Iterator[tuple[Any, ...]]:
        item = first_item
        for n, claim_id, _, _, started_at, reason in plan:
            mid = first_message + 2 * n
            yield mid, claim_id, "claimant", QUESTIONS[n % len(QUESTIONS)], None, None, stamp(started_at)
            reply, reference = ("Our claims team will answer.", f"WL-{item:06d}") if reason else (REPLY, None)
            yield mid + 1, claim_id, "agent", reply, f"{n:032x}", reference, stamp(started_at + REPLY_AFTER)
            item += reason is not None

    answered, routed = (
        {k: json.dumps(v) if k in JSON_COLUMNS else v for k, v in templates[kind].items()}
        for kind in ("answered", "routed")
    )
    constant = tuple(answered)  # the same columns in both templates

    def turn_rows() -> Iterator[tuple[Any, ...]]:
        for n, claim_id, family, version, started_at, reason in plan:
            record = routed if reason else answered
            yield (
                *(record[k] for k in constant),
                f"{n:032x}",
                claim_id,
                first_message + 2 * n,
                stamp(started_at),
                family,
                version,
                "[]",
                "[]",
                reason is None,
                "no_clause_selected" if reason == "no_clause_selected" else "clauses_returned",
                "routed_to_staff" if reason else "answered",
                reason,
            )

    def item_rows() -> Iterator[tuple[Any, ...]]:
        item = first_item
        for n, claim_id, family, _, started_at, reason in plan:
            if reason is None:
                continue
            status = next(statuses)
            done = stamp(started_at + timedelta(hours=4))
            worked = status != "open"
            yield (
                item,
                f"WL-{item:06d}",
                claim_id,
                f"{n:032x}",
                family,
                QUESTIONS[n % len(QUESTIONS)],
                reason,
                status,
                "aroha.staff" if worked else None,
                stamp(started_at + timedelta(hours=1)) if worked else None,
                done if status == "answered" else None,
                "aroha.staff" if status == "answered" else None,
                done if status == "closed" else None,
                "aroha.staff" if status == "closed" else None,
                "Answered by phone." if status == "closed" else None,
                stamp(started_at),
            )
            item += 1

    message_columns = ("id", "claim_id", "role", "body", "turn_id", "waiting_list_reference", "created_at")
    turn_columns = (
        *constant,
        "id",
        "claim_id",
        "message_id",
        "started_at",
        "family",
        "version",
        "directory_seen",
        "model_messages",
        "citations_verified",
        "guidance_status",
        "outcome",
        "route_reason",
    )
    item_columns = (
        "id",
        "reference",
        "claim_id",
        "turn_id",
        "family",
        "question",
        "reason",
        "status",
        "taken_by",
        "taken_at",
        "answered_at",
        "answered_by",
        "closed_at",
        "closed_by",
        "close_reason",
        "created_at",
    )
    messages = _bulk(engine, Message.__table__, message_columns, message_rows())
    turns = _bulk(engine, Turn.__table__, turn_columns, turn_rows())
    items = _bulk(engine, WaitingItem.__table__, item_columns, item_rows())
    if engine.dialect.name == "postgresql":
        with engine.begin() as c:
            for table in ("messages", "waiting_items"):
                c.execute(
                    text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}")
                )
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("VACUUM ANALYZE"))
    return {
        "claims": sizes.claims,
        "turns": turns,
        "messages": messages,
        "waiting_items": items,
        "seconds": round(time.perf_counter() - started, 1),
    }


# The measurements -----------------------------------------------------------------------------


def long_conversation(client: httpx.Client, messages: int) -> None:
    """Real turns on the long claim until its conversation holds `messages` messages."""
    for n in range(messages // 2):
        reply = client.post(
            f"/claims/{LONG_CLAIM}/messages",
            json={"text": f"{QUESTIONS[n % len(QUESTIONS)]} ({n})"},
            headers={"Authorization": f"Bearer {LONG_TOKEN}"},
        )
        reply.raise_for_status()


def turn_at_the_end(client: httpx.Client, repeat: int, label: str) -> dict[str, float]:
    counter = iter(range(10**9))

    def ask() -> None:
        reply = client.post(
            f"/claims/{LONG_CLAIM}/messages",
            json={"text": f"Can I get a rental car while mine is being repaired? ({label} {next(counter)})"},
            headers={"Authorization": f"Bearer {LONG_TOKEN}"},
        )
        reply.raise_for_status()

    return _timed(ask, repeat)


def measure_reads(
    client: httpx.Client, sessions: Any, sizes: Sizes, repeat: int, rng: random.Random
) -> dict[str, dict[str, float]]:
    staff = {"Authorization": f"Bearer {STAFF_TOKEN}"}

    def get(path: str, **params: Any) -> Callable[[], None]:
        def call() -> None:
            client.get(path, params=params, headers=staff).raise_for_status()

        return call

    rows: dict[str, dict[str, float]] = {}
    rows["staff list, no filter"] = _timed(get("/staff/api/items"), repeat)
    for status in STATUS_FILTERS:
        rows[f"staff list, status={status}"] = _timed(get("/staff/api/items", status=status), repeat)
    for reason, _ in REASONS:
        rows[f"staff list, status=waiting, reason={reason}"] = _timed(
            get("/staff/api/items", status="waiting", reason=reason), repeat
        )
    for family in FAMILY_PLAN:
        rows[f"staff list, status=waiting, family={family}"] = _timed(
            get("/staff/api/items", status="waiting", family=family), repeat
        )
    rows["staff list, status=waiting, offset 10,000"] = _timed(
        get("/staff/api/items", status="waiting", offset=min(10_000, sizes.waiting // 3)), repeat
    )
    with sessions() as s:
        references = s.scalars(select(WaitingItem.reference).order_by(WaitingItem.id)).all()
    picks = iter(rng.choices(references, k=repeat + 1))
    rows["one item"] = _timed(lambda: get(f"/staff/api/items/{next(picks)}")(), repeat)
    rows["content gaps"] = _timed(get("/staff/api/content-gaps"), repeat)
    rows["wording page (API)"] = _timed(get("/staff/api/wording"), repeat)

    # As the command asks: each kind's total (agent replies, staff answers, drafts) and a page of each.
    def affected_call(clauses: set[str] | None, offset: int = 0) -> Callable[[], None]:
        def call() -> None:
            with sessions() as session:
                affected(session, "motor", "2026.2", clauses, offset=offset)

        return call

    deep = sizes.turns // 10  # about two thirds of the version's replies
    rows["agent affected motor 2026.2"] = _timed(affected_call(None), repeat)
    rows["agent affected motor 2026.2 --clause MTR-BEN-03"] = _timed(affected_call({"MTR-BEN-03"}), repeat)
    rows[f"agent affected motor 2026.2 --offset {deep:,}"] = _timed(affected_call(None, deep), repeat)
    claimant = {"Authorization": f"Bearer {LONG_TOKEN}"}
    rows["conversation read, long claim"] = _timed(
        lambda: client.get(f"/claims/{LONG_CLAIM}/messages", headers=claimant).raise_for_status(), repeat
    )
    claims = iter(rng.choices(range(sizes.claims), k=repeat + 1))

    def random_conversation() -> None:
        claim = f"CLM-G{next(claims):06d}"
        auth = {"Authorization": f"Bearer growth-{claim}"}
        client.get(f"/claims/{claim}/messages", headers=auth).raise_for_status()

    rows["conversation read, generated claim"] = _timed(random_conversation, repeat)
    return rows


def _counts(engine: Engine) -> dict[str, Any]:
    with engine.connect() as c:
        n = {
            t.__tablename__: c.scalar(select(func.count()).select_from(t))
            for t in (Claim, Turn, Message, WaitingItem)
        }
    return {
        "claims": n["claims"],
        "turns": n["turns"],
        "messages": n["messages"],
        "waiting_items": n["waiting_items"],
        "seconds": 0,
    }


def run_growth(
    database_url: str | None = None,
    scale: float = 1.0,
    repeat: int = 30,
    json_path: str | None = None,
    *,
    existing: bool = False,
) -> int:
    """Fill an empty database and measure; `existing`: measure a database an earlier run
    filled (after a migration, say), without filling it again."""
    from agent.api.app import create_app
    from agent.settings import Settings

    sizes = Sizes.at(scale)
    folder = Path(tempfile.mkdtemp(prefix="clausedesk-growth-"))
    url = database_url or f"sqlite:///{folder / 'growth.db'}"
    engine = make_engine(url)
    upgrade(engine)
    with engine.connect() as c:
        if not existing and c.scalar(select(func.count()).select_from(Claim)):
            print("growth bench: the database is not empty; give it an empty one", file=sys.stderr)
            return 2
    s3 = start_local_s3()
    store_settings = StoreSettings(
        endpoint=s3.endpoint, bucket="growth", access_key="g", secret_key="g-secret"
    )
    server = None
    try:
        store = ObjectStore(store_settings)
        reload_knowledge(store)
        sessions = make_sessionmaker(engine)
        if not existing:
            seed_policies(sessions)
            seed_staff(sessions)
            answer_everything(sessions, store)  # the reads measured are those of served answers
        settings = Settings(
            database_url=url,
            limit_messages_per_claim="1000000/minute",
            limit_login_per_address="1000000/minute",
            # The sweep for interrupted messages would meet the bulk messages before their turns.
            recovery_interval_s=10**7,
        )
        app = create_app(settings, store=store)
        base, server, _ = serve_in_thread(app)
        rng = random.Random(7)
        print(f"growth bench: {engine.dialect.name}, {sizes}", file=sys.stderr)
        with httpx.Client(base_url=base, timeout=CLIENT_TIMEOUT_S) as client:
            if existing:
                turn_before, generated = None, _counts(engine)
            else:
                long_conversation(client, sizes.conversation)
                turn_before = turn_at_the_end(client, repeat, "before")
                generated = generate(engine, sizes)
            print(f"growth bench: generated {generated}", file=sys.stderr)
            rows = measure_reads(client, sessions, sizes, repeat, rng)
            rows["claimant turn at the end of the long conversation"] = turn_at_the_end(
                client, repeat, "after"
            )
        figures = {
            "database": engine.dialect.name,
            "sizes": sizes.__dict__,
            "generated": generated,
            "turn_before_bulk": turn_before,
            "rows": rows,
        }
    finally:
        if server is not None:
            server.should_exit = True
        s3.stop()
        engine.dispose()
    print(render(figures))
    if json_path:
        Path(json_path).write_text(json.dumps(figures, indent=2))
    return 0


def render(f: dict[str, Any]) -> str:
    g = f["generated"]
    lines = [
        f"growth bench on {f['database']}: {g['turns']:,} turns, {g['waiting_items']:,} waiting items, "
        f"{g['claims']:,} claims, {g['messages']:,} bulk messages, a {f['sizes']['conversation']}-message "
        f"conversation; generated in {g['seconds']} s",
        "",
        f"| measure | p50 ms | p95 ms | calls | ≤ {TARGET_P95_MS:.0f} ms p95 |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, row in f["rows"].items():
        met = "met" if row["p95_ms"] <= TARGET_P95_MS else "**missed**"
        met += " (timed out)" if row.get("timed_out") else ""
        lines.append(f"| {name} | {row['p50_ms']} | {row['p95_ms']} | {row['n']} | {met} |")
    before = f["turn_before_bulk"]
    if before is not None:
        lines.append(
            f"| claimant turn at the end, before the bulk data | {before['p50_ms']} | {before['p95_ms']} "
            f"| {before['n']} | |"
        )
    return "\n".join(lines)
