"""`python -m agent bench`: the system it measures made from nothing (a local S3 server, a
temporary SQLite database, the corpus and the seeded claims), every measurement run, the
figures printed and optionally written as JSON."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from agent.api.heap import settle_heap
from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.evaluation.bench.output import render
from agent.evaluation.bench.overhead import measure_agent_alone, measure_overhead_and_floor
from agent.evaluation.bench.targets import targets
from agent.evaluation.bench.throughput import measure_throughput
from agent.evaluation.bench.tokens import measure_tokens
from agent.evaluation.harness import answer_everything, reload_knowledge
from agent.evaluation.imported_prompts import measure_imported
from agent.evaluation.localstore import start_local_s3
from agent.seed import seed_policies
from knowledge.settings import StoreSettings
from knowledge.store import ObjectStore


def run_bench(
    turns: int = 300,
    throughput_turns: int = 160,
    json_path: str | None = None,
    workers: int = 1,
    baseline_path: str | None = None,
    token_questions: int | None = None,
) -> int:
    baseline = read_baseline(baseline_path) if baseline_path else None
    folder = Path(tempfile.mkdtemp(prefix="clausedesk-bench-"))
    database_url = f"sqlite:///{folder / 'bench.db'}"
    s3 = start_local_s3()
    settings = StoreSettings(
        endpoint=s3.endpoint, bucket="bench", access_key="bench", secret_key="bench-secret"
    )
    try:
        store = ObjectStore(settings)
        reload_knowledge(store)
        engine = make_engine(database_url)
        upgrade(engine)
        sessions = make_sessionmaker(engine)
        seed_policies(sessions)
        answer_everything(sessions, store)  # a turn measured is a turn served
        print(f"bench: local S3 {s3.endpoint}, SQLite {folder / 'bench.db'}", file=sys.stderr)
        settle_heap()  # as every `agent serve` worker does once started (agent.api.served)
        interleaved = measure_overhead_and_floor(sessions, engine, store, turns)
        overhead, floor = interleaved["overhead"], interleaved["floor"]
        agent_alone = measure_agent_alone(sessions, store, turns)
        tokens = measure_tokens(sessions, store, database_url, token_questions)
        imported = measure_imported(store)
        print("bench: overhead, floor and tokens measured; now throughput over HTTP", file=sys.stderr)
        throughput = measure_throughput(database_url, settings, throughput_turns, workers, s3.process.pid)
        engine.dispose()
    finally:
        s3.stop()
    figures = {
        "overhead": overhead,
        "floor": floor,
        "agent_alone": agent_alone,
        "tokens": tokens,
        "imported_tokens": imported,
        "throughput": throughput,
        "workers": workers,
    }
    # The median of the interleaved rounds, with their spread.
    figures["ratio_to_floor"] = interleaved["ratio"]
    figures["ratio_rounds"] = interleaved["rounds"]
    figures["ratio_spread"] = interleaved["ratio_spread"]
    if baseline is not None:
        figures["baseline"] = baseline
    figures["targets"] = targets(figures)
    print(render(figures))
    if json_path:
        Path(json_path).write_text(json.dumps(figures, indent=2))
    return 0


def read_baseline(path: str) -> dict[str, Any]:
    """The figures compared against from an earlier run's --json file."""
    try:
        earlier = json.loads(Path(path).read_text())
        return {
            "source": path,
            "ratio_to_floor": earlier["ratio_to_floor"],
            "turns_per_s_c16": earlier["throughput"]["16"]["turns_per_s"],
        }
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"bench: {path} is not the --json output of a bench run ({exc})") from None
