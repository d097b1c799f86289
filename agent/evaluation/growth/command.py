"""`python -m agent bench --growth`: a fresh database (or `--existing`, one an earlier run
filled) with its own local S3 server, the data grown, every measure taken, and the table of
p50 and p95 against the target."""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from agent.db.tables import Claim, Message, Turn, WaitingItem, make_engine, make_sessionmaker, upgrade
from agent.evaluation.growth.data import generate
from agent.evaluation.growth.measures import (
    CLIENT_TIMEOUT_S,
    long_conversation,
    measure_reads,
    turn_at_the_end,
)
from agent.evaluation.growth.shape import Sizes
from agent.evaluation.harness import answer_everything, reload_knowledge
from agent.evaluation.localstore import start_local_s3
from agent.evaluation.serving import serve_in_thread
from agent.seed import seed_policies, seed_staff
from knowledge.settings import StoreSettings
from knowledge.store import ObjectStore

TARGET_P95_MS = 100.0


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
