"""A reader that leaves early (`python -m knowledge status | head -1`): both command lines stop
quietly, with the status a command ended by a closed pipe has, and no traceback."""

from __future__ import annotations

import os
import subprocess
import sys

from agent.closed_pipe import CLOSED_PIPE_STATUS
from tests.conftest import REPO
from tests.wording_cli.test_cli import knowledge_env


def run_with_reader_gone(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """The command with its stdout a pipe whose reader closed before the first line."""
    read, write = os.pipe()
    os.close(read)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", *args], cwd=REPO, env=env, stdout=write, stderr=subprocess.PIPE, text=True
        )
    finally:
        os.close(write)
    _, err = process.communicate(timeout=120)
    return process.returncode, err


def test_knowledge_status_into_a_closed_pipe_exits_quietly(s3_server, corpus_store) -> None:
    env = knowledge_env(s3_server, corpus_store.bucket)
    status, err = run_with_reader_gone(["knowledge", "status"], env)
    assert (status, err) == (CLOSED_PIPE_STATUS, "")


def test_agent_turns_into_a_closed_pipe_exits_quietly(database_url: str) -> None:
    env = dict(os.environ, CLAUSEDESK_DATABASE_URL=database_url)
    status, err = run_with_reader_gone(["agent", "turns"], env)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert status == CLOSED_PIPE_STATUS
