"""Nothing lost on a crash: a real API process is killed with SIGKILL mid-turn; after a
restart every claimant message is answered or on the waiting list, and the claimant sees it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from agent.db.tables import Message, Turn, WaitingItem
from agent.evaluation.localstore import free_port
from tests.conftest import REPO, TOKENS
from tests.support import process_env, wait_until

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = [pytest.mark.databases, pytest.mark.slow]

CLAIMS = ["CLM-204518", "CLM-310442", "CLM-402117"]


def start(command: list[str], env: dict[str, str], port: int) -> subprocess.Popen:
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited: {process.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.1)  # polling for the server to listen, not timing the test
    process.kill()
    raise RuntimeError("server did not start")


def scalar(url: str, query):
    engine = create_engine(url)
    with Session(engine) as session:
        value = session.scalar(query)
    engine.dispose()
    return value


def unanswered(url: str) -> int:
    return scalar(
        url,
        select(func.count())
        .select_from(Message)
        .outerjoin(Turn, Turn.message_id == Message.id)
        .where(Message.role == "claimant", Turn.id.is_(None)),
    )


def test_kill_9_mid_turn_then_restart_leaves_no_message_unanswered(database_url, corpus_store) -> None:
    env = process_env(
        database_url,
        corpus_store,
        CLAUSEDESK_TURN_LEASE_TTL_S="1",
        CLAUSEDESK_RECOVERY_INTERVAL_S="0.2",
        CLAUSEDESK_INTERRUPTED_GRACE_S="0.5",
    )
    port = free_port()
    hung = start([sys.executable, "-m", "tests.hung_server", str(port)], env, port)

    def ask(claim: str, n: int) -> None:
        with contextlib.suppress(httpx.HTTPError):  # the server is killed under it
            httpx.post(
                f"http://127.0.0.1:{port}/claims/{claim}/messages",
                json={"text": f"question {n} about my claim"},
                headers={"Authorization": f"Bearer {TOKENS[claim]}"},
                timeout=60,
            )

    with ThreadPoolExecutor(6) as pool:
        for n, claim in enumerate(CLAIMS * 2):
            pool.submit(ask, claim, n)
        total = select(func.count()).select_from(Message).where(Message.role == "claimant")
        wait_until(lambda: scalar(database_url, total) == 6, timeout=30, interval=0.1)
        assert unanswered(database_url) == 6  # every one stored, none answered: mid-turn
        os.kill(hung.pid, signal.SIGKILL)
        hung.wait(10)

    port = free_port()
    restarted = start([sys.executable, "-m", "agent", "serve", "--port", str(port)], env, port)
    try:
        wait_until(lambda: unanswered(database_url) == 0, timeout=30, interval=0.1)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            conversation = client.get(
                f"/claims/{CLAIMS[0]}/messages", headers={"Authorization": f"Bearer {TOKENS[CLAIMS[0]]}"}
            ).json()
    finally:
        restarted.terminate()
        restarted.wait(10)

    engine = create_engine(database_url)
    with Session(engine) as session:
        turns = session.scalars(select(Turn)).all()
        items = session.scalars(select(WaitingItem)).all()
    engine.dispose()
    assert len(turns) == 6 and {t.route_reason for t in turns} == {"interrupted"}
    assert len(items) == 6 and {i.reason for i in items} == {"interrupted"}
    agent_replies = [m for m in conversation["messages"] if m["role"] == "agent"]
    assert len(agent_replies) == 2
    assert all("interrupted" in m["body"] and "WL-" in m["body"] for m in agent_replies)
