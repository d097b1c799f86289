"""The insurer's event receiver on loopback: checks each signature, records every delivery,
and deduplicates by event ID as a real receiver must (delivery is at least once)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agent.events.delivery import verify

SECRET = "test-events-secret-0123456789-abcdef"


@dataclass
class Receiver:
    port: int = 0
    # Hold the Nth request (1-based) after reading it, until `release` is set: a delivery in flight.
    hold: int | None = None
    deliveries: list[dict] = field(default_factory=list)
    bad_signatures: int = 0
    held: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        outer = self
        lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                good = verify(
                    SECRET, self.headers["Clausedesk-Timestamp"], body, self.headers["Clausedesk-Signature"]
                )
                event = json.loads(body)
                with lock:
                    if not good or event["id"] != self.headers["Clausedesk-Event-Id"]:
                        outer.bad_signatures += 1
                        self.send_response(401)
                        self.end_headers()
                        return
                    outer.deliveries.append(event)
                    n = len(outer.deliveries)
                if n == outer.hold:
                    outer.held.set()
                    outer.release.wait(60)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *_args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/events"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def ids(self) -> list[str]:
        return [d["id"] for d in self.deliveries]

    def processed(self) -> dict[str, dict]:
        """What the receiver acts on: each event once, by ID."""
        return {d["id"]: d for d in self.deliveries}

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
