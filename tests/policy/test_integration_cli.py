"""`python -m agent integration …` prints its answer and nothing from the frameworks under it
(no Alembic or SQLAlchemy log lines), on a database it creates and on one already migrated."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.support import run_agent

pytestmark = pytest.mark.slow  # the command line as processes


def integration(database_url: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, CLAUSEDESK_DATABASE_URL=database_url)
    return run_agent("integration", *args, env=env)


def test_integration_prints_only_its_answer(sqlite_url) -> None:
    added = integration(sqlite_url, "add", "kowhai-claims")  # creates and migrates the database
    listed = integration(sqlite_url, "list")
    disabled = integration(sqlite_url, "disable", "kowhai-claims")
    assert (added.returncode, listed.returncode, disabled.returncode) == (0, 0, 0)
    assert added.stderr == listed.stderr == disabled.stderr == ""
    [line] = added.stdout.splitlines()
    assert line.startswith("integration client kowhai-claims added; its token (shown once): ")
    [row] = listed.stdout.splitlines()
    assert row.split()[:2] == ["kowhai-claims", "active"]
    assert disabled.stdout == "integration client kowhai-claims disabled\n"
