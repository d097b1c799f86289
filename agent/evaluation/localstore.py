"""A local S3-compatible server for development and tests, when no MinIO binary is around.

moto's server mode speaks the S3 API over HTTP; the code under test talks to it through
the minio client exactly as it would to MinIO. It keeps state in memory only.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from dataclasses import dataclass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LoopbackProcess:
    """A child process listening on a loopback port."""

    port: int
    process: subprocess.Popen

    def stop(self, timeout_s: float = 5) -> None:
        """Terminated, and killed if it has not exited within `timeout_s`."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class LocalS3(LoopbackProcess):
    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.port}"


def start_local_s3(port: int | None = None, timeout_s: float = 20.0) -> LocalS3:
    """Start moto's S3 server on a loopback port and wait until it accepts connections."""
    port = port or free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "agent.evaluation.localstore", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"local S3 server exited with code {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return LocalS3(port, process)
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"local S3 server did not listen on port {port} within {timeout_s} s")


def serve(port: int) -> None:
    """moto's S3 server in this process, in the foreground, with its request lines off: one per
    S3 call (dozens a turn) says nothing to act on, costs the server CPU, and werkzeug colours
    them even into a file. Its warnings and errors still show."""
    import logging

    from moto.server import main

    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    main(["-H", "127.0.0.1", "-p", str(port)])


if __name__ == "__main__":  # python -m agent.evaluation.localstore PORT (start-dev.sh runs it)
    serve(int(sys.argv[1]))
