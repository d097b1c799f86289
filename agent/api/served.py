"""The app as `python -m agent serve` runs it in each worker process: built from the
environment's settings, then its heap settled (agent.api.heap) before the first request."""

from __future__ import annotations

from fastapi import FastAPI

from agent.api.app import create_app
from agent.api.heap import settle_heap


def app() -> FastAPI:
    served = create_app()
    settle_heap()
    return served
