"""start-dev.sh --serve --detach: the system comes up in the background with no terminal (on
free ports, with its own data folder), keeps serving after the script returns, writes plain
lines (no escape codes, no Alembic INFO), and --stop ends it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from agent.evaluation.localstore import free_port
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # start-dev.sh and the commands run as processes


def gone(pid: int) -> bool:
    """Ended (a zombie nobody reaps yet counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return True
    return state in ("Z", "X")


def test_serve_detach_runs_in_the_background_and_stop_ends_it(tmp_path: Path) -> None:
    api_port, store_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUSEDESK_")}
    env.update(
        CLAUSEDESK_PORT=str(api_port),
        CLAUSEDESK_S3_PORT=str(store_port),
        CLAUSEDESK_DEV_DATA=str(tmp_path),
        CLAUSEDESK_PYTHON=sys.executable,
    )
    script = str(REPO / "start-dev.sh")
    started = subprocess.run(
        [script, "--serve", "--detach"],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    pids = [int((tmp_path / f"{name}.pid").read_text()) for name in ("api", "store")]
    try:
        assert started.returncode == 0, started.stdout[-2000:] + started.stderr[-2000:]
        assert "usable after" in started.stdout and "--stop" in started.stdout
        logs = (tmp_path / "api.log").read_text() + (tmp_path / "store.log").read_text()
        said = started.stdout + started.stderr + logs
        assert "\x1b[" not in said  # not a terminal: no raw escape codes
        assert "alembic" not in said.lower()  # no Alembic INFO lines
        # The script has returned; the system still answers.
        health = httpx.get(f"http://127.0.0.1:{api_port}/health", timeout=10)
        assert health.status_code == 200 and health.json()["knowledge"] == "ok", health.text
    finally:
        stopped = subprocess.run([script, "--stop"], env=env, capture_output=True, text=True, timeout=60)
    assert stopped.returncode == 0, stopped.stderr
    deadline = time.monotonic() + 15
    while not all(gone(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(gone(pid) for pid in pids)
    assert not (tmp_path / "api.pid").exists() and not (tmp_path / "store.pid").exists()


def test_seed_and_integration_print_their_answer_without_alembic_lines(tmp_path: Path) -> None:
    """Migrating a new database says nothing of Alembic's; the commands' own lines remain."""
    env = dict(os.environ, CLAUSEDESK_DATABASE_URL=f"sqlite:///{tmp_path / 'new.db'}")
    commands = ((["seed"], "CLM-204518"), (["integration", "add", "portal"], "token (shown once)"))
    for args, expected in commands:
        done = subprocess.run(
            [sys.executable, "-m", "agent", *args], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert expected in done.stdout
        assert "alembic" not in (done.stdout + done.stderr).lower() and " INFO " not in done.stderr
