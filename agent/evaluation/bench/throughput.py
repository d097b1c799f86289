"""3 Throughput: turns per second through the HTTP API at concurrency 1, 4 and 16, with
the CPU time each process spends per turn."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from agent.evaluation.bench.measuring import QUESTION
from agent.evaluation.harness import Harness, wait_port
from agent.evaluation.localstore import free_port
from agent.evaluation.serving import serve_environment, start_serve
from knowledge.settings import StoreSettings


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) of a process and its children so far; None off Linux."""
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (OSError, ValueError, IndexError):
        return None
    for child in children:
        total += cpu_seconds(int(child)) or 0.0
    return total


def measure_throughput(
    database_url: str, store: StoreSettings, turns: int, workers: int, store_pid: int | None = None
) -> dict[str, Any]:
    port = free_port()
    # Load from one address on a few claims is the point here, not something to throttle.
    env = serve_environment(database_url, store, CLAUSEDESK_LIMIT_MESSAGES_PER_CLAIM="100000/minute")
    server = start_serve(port, env, workers=workers)
    harness = Harness(f"http://127.0.0.1:{port}", database_url, timeout_s=30)
    try:
        wait_port(port, open_=True, timeout_s=60)
        claims = [harness.open_claim("CLM-204518") for _ in range(16)]
        for claim in claims[:2]:
            harness.send(claim, QUESTION)  # warm-up
        results = {}
        for concurrency in (1, 4, 16):
            count = max(concurrency * 5, turns if concurrency > 1 else turns // 2)
            processes = {"server": server.pid, "S3 stand-in": store_pid}
            cpu_before = {k: cpu_seconds(pid) if pid else None for k, pid in processes.items()}
            started = time.perf_counter()
            errors = _load(harness, claims[:concurrency], count)
            elapsed = time.perf_counter() - started
            cpu_after = {k: cpu_seconds(pid) if pid else None for k, pid in processes.items()}
            results[str(concurrency)] = {
                "turns": count,
                "seconds": round(elapsed, 2),
                "turns_per_s": round(count / elapsed, 1),
                "errors": errors,
                # Where the 2 cores go: CPU milliseconds per turn in each process.
                "cpu_ms_per_turn": {
                    k: round((cpu_after[k] - cpu_before[k]) / count * 1000, 1)
                    for k in processes
                    if cpu_before[k] is not None and cpu_after[k] is not None
                },
            }
        return results
    finally:
        harness.close()
        server.terminate()
        server.wait(timeout=10)


def _load(harness: Harness, claims: list[Any], count: int) -> int:
    """Send `count` turns from len(claims) workers, one claim each; the number of failures."""
    remaining, errors = [count], [0]
    lock = threading.Lock()

    def worker(claim: Any) -> None:
        while True:
            with lock:
                if remaining[0] <= 0:
                    return
                remaining[0] -= 1
            try:
                ok = harness.send(claim, QUESTION).status_code == 200
            except Exception:  # a reset connection under load is counted, not fatal
                ok = False
            if not ok:
                with lock:
                    errors[0] += 1

    with ThreadPoolExecutor(len(claims)) as pool:
        list(pool.map(worker, claims))
    return errors[0]
