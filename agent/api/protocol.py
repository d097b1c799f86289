"""The HTTP server protocol used by `clausedesk serve`.

With more than one worker, uvicorn hands each worker a copy of the listening socket, and
connections accepted on such a copy report protocol 0, so asyncio does not switch Nagle's
algorithm off for them. Small responses then wait on the client's delayed ACK (about
40 ms a request). Setting TCP_NODELAY on every connection restores normal latency.
"""

from __future__ import annotations

import asyncio
import socket

from uvicorn.protocols.http.h11_impl import H11Protocol


class NoDelayH11Protocol(H11Protocol):
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)
