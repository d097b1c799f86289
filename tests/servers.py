"""App servers for the tests: a few uvicorn servers per test run (per xdist worker), each
serving whichever app a test mounts on it.

Starting uvicorn, and stopping it (its main loop polls every 0.1 s), costs far more than
building an app. So a server is started once and kept in a pool; a test builds its own app
(its own settings, database and model) and mounts it on a free server for as long as it
needs it, with the app's lifespan (the recovery sweep, event delivery) run in the server's
event loop exactly as uvicorn would run it. Two apps live at once (two processes sharing a
database) take two servers. Every request still crosses real HTTP on loopback.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import uvicorn

from agent.evaluation.serving import serve_in_thread
from tests import budget

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


class Slot:
    """The ASGI app a pooled server runs: it forwards each request to the app mounted now."""

    def __init__(self) -> None:
        self.app: ASGIApp | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, scope: Scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        if scope["type"] == "lifespan":  # the server's own start and stop: note its loop
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    self.loop = asyncio.get_running_loop()
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        app = self.app
        if app is None:  # a request after its test ended: refuse it rather than serve another test
            await send({"type": "http.response.start", "status": 503, "headers": []})
            await send({"type": "http.response.body", "body": b"no app mounted"})
            return
        await app(scope, receive, send)


@dataclass
class PooledServer:
    url: str
    server: uvicorn.Server
    thread: threading.Thread
    slot: Slot
    busy: bool = False
    stop_lifespan: Callable[[], None] | None = field(default=None, repr=False)

    def mount(self, app: Any, timeout_s: float = 20.0) -> None:
        """Serve `app` here, its lifespan started first (and ended by unmount)."""
        loop = self.slot.loop
        assert loop is not None, "the pooled server has not started"
        stop = asyncio.Event()
        started = threading.Event()

        async def lifespan() -> None:
            async with app.router.lifespan_context(app):
                started.set()
                await stop.wait()

        running: Future = asyncio.run_coroutine_threadsafe(lifespan(), loop)
        while not started.wait(0.01):
            if running.done():
                running.result()  # the app's start-up failed: raise its error in the test
            timeout_s -= 0.01
            if timeout_s <= 0:
                raise RuntimeError("the app's lifespan did not start")
        self.slot.app = app

        def stop_lifespan() -> None:
            self.slot.app = None
            loop.call_soon_threadsafe(stop.set)
            running.result(timeout=20)

        self.stop_lifespan = stop_lifespan

    def unmount(self) -> None:
        if self.stop_lifespan is not None:
            self.stop_lifespan()
            self.stop_lifespan = None

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


class ServerPool:
    """Servers started on demand and handed out one app at a time; counted, so a module
    that starts more than it should is seen (tests/test_budget.py)."""

    def __init__(self) -> None:
        self.servers: list[PooledServer] = []
        self._lock = threading.Lock()

    def take(self) -> PooledServer:
        with self._lock:
            for server in self.servers:
                if not server.busy:
                    server.busy = True
                    return server
            slot = Slot()
            url, server, thread = serve_in_thread(slot)  # type: ignore[arg-type]
            pooled = PooledServer(url, server, thread, slot, busy=True)
            self.servers.append(pooled)
            budget.USED.servers_started += 1
            return pooled

    def give_back(self, server: PooledServer) -> None:
        server.unmount()
        with self._lock:
            server.busy = False

    def close(self) -> None:
        for server in self.servers:
            server.unmount()
            server.close()
        self.servers.clear()


# One pool per test process (each xdist worker has its own), closed when the run ends.
POOL = ServerPool()
