"""The bulk data: claims with their policies and schedules, turns with a claimant message and
a reply each, and waiting-list items (one per routed turn), spread over the last year,
written in batches straight through the driver. Bulk turn records copy the columns of a
real answered or routed record of this run, but for the model messages and the directory
seen."""

from __future__ import annotations

import itertools
import json
import random
import time
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, text
from sqlalchemy.engine import Engine

from agent.db.tables import Claim, Message, Policy, Schedule, Turn, WaitingItem, utcnow
from agent.evaluation.growth.shape import FAMILY_PLAN, LONG_CLAIM, QUESTIONS, REASONS, Sizes
from agent.security import hash_token
from agent.seed import load_seed_files

BATCH = 20_000
REPLY = "A generated reply."
REPLY_AFTER = timedelta(milliseconds=40)
YEAR = timedelta(days=365)
# The turn record's JSON columns copied from the templates (written as text in bulk).
JSON_COLUMNS = {"requested", "returned", "not_found", "cited", "citations", "checks", "error_chain"}
STATUSES = (("open", 35), ("taken", 10), ("answered", 35), ("closed", 20))
MESSAGE_COLUMNS = ("id", "claim_id", "role", "body", "turn_id", "waiting_list_reference", "created_at")
# A bulk turn's own columns, after those copied from its template.
TURN_COLUMNS = (
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
ITEM_COLUMNS = (
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
# A planned turn: number, claim, family, version, its time, route reason (None when answered).
Planned = tuple[int, str, str, str, datetime, str | None]


def _weighted(choices: tuple[tuple[str, int], ...], rng: random.Random) -> Iterator[str]:
    names = [c for c, _ in choices]
    weights = [w for _, w in choices]
    while True:
        yield from rng.choices(names, weights, k=1024)


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
    answered, routed = (_as_written(templates[kind]) for kind in ("answered", "routed"))
    now = utcnow()
    _write_claims(engine, sizes, now)
    with engine.connect() as c:
        first_message = (c.scalar(select(func.max(Message.id))) or 0) + 1
        first_item = (c.scalar(select(func.max(WaitingItem.id))) or 0) + 1
    plan = _turn_plan(sizes, rng, now)
    stamp = _Stamp(engine)
    messages = _bulk(
        engine, Message.__table__, MESSAGE_COLUMNS, _message_rows(plan, first_message, first_item, stamp)
    )
    turns = _bulk(
        engine,
        Turn.__table__,
        (*answered, *TURN_COLUMNS),  # the same copied columns in both templates
        _turn_rows(plan, answered, routed, first_message, stamp),
    )
    items = _bulk(
        engine,
        WaitingItem.__table__,
        ITEM_COLUMNS,
        _item_rows(plan, first_item, _weighted(STATUSES, rng), stamp),
    )
    if engine.dialect.name == "postgresql":
        _after_the_bulk_load(engine)
    return {
        "claims": sizes.claims,
        "turns": turns,
        "messages": messages,
        "waiting_items": items,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _as_written(template: dict[str, Any]) -> dict[str, Any]:
    """A template's columns as the bulk rows carry them: its JSON columns as text."""
    return {k: json.dumps(v) if k in JSON_COLUMNS else v for k, v in template.items()}


def _write_claims(engine: Engine, sizes: Sizes, now: datetime) -> None:
    """`sizes.claims` policies, their schedules (the seeded ones of their family) and a claim
    on each, a tenth of them closed."""
    schedules = {d["family"]: d["schedule"] for d in load_seed_files()}
    families = list(FAMILY_PLAN)
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
                "created_at": now - YEAR,
            }
            for i, p in enumerate(policies)
        ),
    )


def _turn_plan(sizes: Sizes, rng: random.Random, now: datetime) -> list[Planned]:
    """Every turn planned, spread over the year before `now`. Which turns are routed:
    `waiting` of them, at random over the year, so the last 30 days hold their share of the
    items (the gaps page counts those)."""
    families = list(FAMILY_PLAN)
    routed_turns = set(rng.sample(range(sizes.turns), sizes.waiting))
    reasons = _weighted(REASONS, rng)
    per_claim = sizes.turns / sizes.claims
    step = YEAR / max(per_claim, 1)
    plan: list[Planned] = []
    for n in range(sizes.turns):
        claim = int(n / per_claim)
        started_at = now - YEAR + step * (n - claim * per_claim) + timedelta(seconds=claim % 3600)
        reason = next(reasons) if n in routed_turns else None
        family, version = families[claim % 3], "2025.1" if claim % 2 else "2026.2"
        plan.append((n, f"CLM-G{claim:06d}", family, version, started_at, reason))
    return plan


def _message_rows(
    plan: list[Planned], first_message: int, first_item: int, stamp: _Stamp
) -> Iterator[tuple[Any, ...]]:
    """Each turn's claimant message and the reply: the generated one, or the waiting-list
    reference of a routed turn."""
    item = first_item
    for n, claim_id, _, _, started_at, reason in plan:
        mid = first_message + 2 * n
        yield mid, claim_id, "claimant", QUESTIONS[n % len(QUESTIONS)], None, None, stamp(started_at)
        reply, reference = ("Our claims team will answer.", f"WL-{item:06d}") if reason else (REPLY, None)
        yield mid + 1, claim_id, "agent", reply, f"{n:032x}", reference, stamp(started_at + REPLY_AFTER)
        item += reason is not None


def _turn_rows(
    plan: list[Planned],
    answered: dict[str, Any],
    routed: dict[str, Any],
    first_message: int,
    stamp: _Stamp,
) -> Iterator[tuple[Any, ...]]:
    """Each turn's record: its template's copied columns, then TURN_COLUMNS."""
    copied = tuple(answered)
    for n, claim_id, family, version, started_at, reason in plan:
        record = routed if reason else answered
        yield (
            *(record[k] for k in copied),
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


def _item_rows(
    plan: list[Planned], first_item: int, statuses: Iterator[str], stamp: _Stamp
) -> Iterator[tuple[Any, ...]]:
    """A waiting-list item for each routed turn, in one of the weighted statuses."""
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


def _after_the_bulk_load(engine: Engine) -> None:
    """PostgreSQL: the sequences moved past the rows written with their IDs, and the tables
    vacuumed and analysed, as its autovacuum would."""
    with engine.begin() as c:
        for table in ("messages", "waiting_items"):
            c.execute(text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), max(id)) FROM {table}"))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
        c.execute(text("VACUUM ANALYZE"))
