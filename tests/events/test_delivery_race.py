"""Two delivery workers (two API processes, each with its own engine) on one outbox and a
slow receiver: an event is claimed by one worker at a time, so no event is ever being sent by
both at the same moment, and every event arrives (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.events import outbox
from agent.events.delivery import Delivery
from agent.settings import Settings
from tests.events.receiver import SECRET

EVENTS = 16
TRIALS = 2
RECEIVER_TAKES_S = 0.3  # each event; 16 of them take longer than a lease


@dataclass
class SlowReceiver:
    """Takes RECEIVER_TAKES_S over each event and records when each request was in flight."""

    spans: list[tuple[str, float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        outer, lock = self, threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                began = time.monotonic()
                event = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                time.sleep(RECEIVER_TAKES_S)  # the receiver's own work, not test timing
                self.send_response(204)
                self.end_headers()
                with lock:
                    outer.spans.append((event["id"], began, time.monotonic()))

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/events"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def at_once(self) -> list[str]:
        """Events that two requests carried at overlapping times."""
        ordered = sorted(self.spans, key=lambda s: (s[0], s[1]))
        return [a[0] for a, b in itertools.pairwise(ordered) if a[0] == b[0] and b[1] < a[2]]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def work(delivery: Delivery, done: asyncio.Event) -> None:
    async with httpx.AsyncClient(timeout=delivery.settings.events_timeout_s) as client:
        while not done.is_set():
            if not await delivery.run_once(client):
                await asyncio.sleep(0.02)


async def two_workers(deliveries: list[Delivery], receiver: SlowReceiver, ids: set[str]) -> None:
    done = asyncio.Event()
    workers = [asyncio.create_task(work(d, done)) for d in deliveries]
    deadline = time.monotonic() + 60
    while not ids <= {s[0] for s in receiver.spans} and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    done.set()
    await asyncio.gather(*workers)


@pytest.mark.databases
def test_two_workers_never_send_one_event_at_the_same_moment(database_url) -> None:
    receiver = SlowReceiver()
    settings = Settings(
        events_url=receiver.url,
        events_secret=SECRET,
        events_timeout_s=1.0,  # a lease of 3 s: longer than any one delivery, shorter than 16
        events_retry_base_s=0.05,
    )
    engines = [make_engine(database_url) for _ in range(2)]
    upgrade(engines[0])
    deliveries = [Delivery(make_sessionmaker(e), settings) for e in engines]
    try:
        for _ in range(TRIALS):
            with make_sessionmaker(engines[0]).begin() as session:
                ids = {
                    outbox.add(
                        session, "question_routed", {"claim_id": "CLM-1", "reference": f"WL-{n:06d}"}
                    ).id
                    for n in range(EVENTS)
                }
            asyncio.run(two_workers(deliveries, receiver, ids))
            assert ids <= {s[0] for s in receiver.spans}  # at least once: every event arrived
    finally:
        receiver.stop()
        for engine in engines:
            engine.dispose()
    assert receiver.at_once() == []
