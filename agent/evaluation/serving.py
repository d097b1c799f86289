"""The HTTP server protocol used by `clausedesk serve`, and the app served in a thread of
this process (the adversarial suite and the tests).

With more than one worker, uvicorn hands each worker a copy of the listening socket, and
connections accepted on such a copy report protocol 0, so asyncio does not switch Nagle's
algorithm off for them. Small responses then wait on the client's delayed ACK (about
40 ms a request). Setting TCP_NODELAY on every connection restores normal latency.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.h11_impl import H11Protocol

from agent.evaluation.localstore import free_port


class NoDelayH11Protocol(H11Protocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)


def serve_in_thread(app: FastAPI, timeout_s: float = 20.0) -> tuple[str, uvicorn.Server, threading.Thread]:
    """The app on a free loopback port, served by a background thread of this process: its
    base URL, the server (set `should_exit` to stop it) and the thread."""
    port = free_port()
    # X-Forwarded-For is the app's to read (agent.api.middleware.ForwardedFor), not uvicorn's.
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", proxy_headers=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"uvicorn did not start on port {port}")
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server, thread
