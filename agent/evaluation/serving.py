"""The app served in a thread of this process, on a free loopback port (the adversarial
suite and the tests)."""

from __future__ import annotations

import threading
import time

import uvicorn
from fastapi import FastAPI

from agent.evaluation.localstore import free_port


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
