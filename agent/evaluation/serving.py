"""The app served in a thread of this process, on a free loopback port (the adversarial
suite and the tests), or as `python -m agent serve` processes (the bench and the probes)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from typing import IO

import uvicorn
from fastapi import FastAPI

from agent.evaluation.localstore import free_port
from knowledge.settings import StoreSettings


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


def serve_environment(database_url: str, store: StoreSettings, **settings: str) -> dict[str, str]:
    """This process's environment for `python -m agent serve` on this database and object store
    with the offline model, and these further settings."""
    return dict(
        os.environ,
        CLAUSEDESK_DATABASE_URL=database_url,
        CLAUSEDESK_MODEL="offline",
        CLAUSEDESK_S3_ENDPOINT=store.endpoint,
        CLAUSEDESK_S3_BUCKET=store.bucket,
        CLAUSEDESK_S3_ACCESS_KEY=store.access_key,
        CLAUSEDESK_S3_SECRET_KEY=store.secret_key,
        **settings,
    )


def start_serve(
    port: int, env: Mapping[str, str], *, workers: int = 1, output: IO[bytes] | int = subprocess.DEVNULL
) -> subprocess.Popen:
    """`python -m agent serve` on this loopback port, its output and errors both to `output`;
    not yet listening when this returns."""
    return subprocess.Popen(
        [sys.executable, "-m", "agent", "serve", "--port", str(port), "--workers", str(workers)],
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
    )
