"""`clausedesk serve` switches Nagle's algorithm off on every accepted connection."""

from __future__ import annotations

import asyncio
import socket

from uvicorn.config import Config
from uvicorn.server import ServerState

from agent.api.protocol import NoDelayH11Protocol


class Transport:
    def __init__(self, sock: socket.socket):
        self.sock = sock

    def get_extra_info(self, name: str, default=None):
        return {"socket": self.sock, "peername": ("127.0.0.1", 1), "sockname": ("127.0.0.1", 2)}.get(
            name, default
        )

    def is_closing(self) -> bool:
        return False


def test_accepted_connections_get_tcp_nodelay() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    # What a worker's copy of the listening socket hands out: Nagle still on.
    accepted.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)
    config = Config(app=lambda *a: None)
    config.load()
    loop = asyncio.new_event_loop()  # its own: an earlier asyncio.run() leaves none current
    protocol = NoDelayH11Protocol(config=config, server_state=ServerState(), app_state={}, _loop=loop)
    protocol.connection_made(Transport(accepted))
    assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
    loop.close()
    for s in (client, accepted, listener):
        s.close()
