"""What starting the app says about its database: one line, no traceback, for a database not at
this code's schema however the app is started; one line when `serve` migrates it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent.db.revision import head_revision
from agent.evaluation.localstore import free_port
from tests.support import ROOT, run_agent

pytestmark = pytest.mark.slow  # processes of their own


def uvicorn(target: str, database_url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "uvicorn", target, "--factory", "--port", str(free_port())],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "CLAUSEDESK_DATABASE_URL": database_url},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("target", ["agent.api.served:app", "agent.api.app:create_app"])
def test_an_unmigrated_database_under_uvicorn_is_one_line(tmp_path: Path, target: str) -> None:
    blank = tmp_path / "blank.db"
    blank.touch()
    started = uvicorn(target, f"sqlite:///{blank}")
    assert started.returncode != 0
    assert "Traceback" not in started.stderr, started.stderr
    [line] = started.stderr.strip().splitlines()
    assert line.startswith("clausedesk cannot start: the database sqlite:///")
    assert line.endswith("has no clausedesk schema; run `python -m agent seed` to create or migrate it")


def test_serve_says_in_one_line_that_it_migrated(tmp_path: Path) -> None:
    """Production without its secret refuses after migrating: a quick way to see what `serve`
    printed on its way to serving."""
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    env = {"PATH": "/usr/bin:/bin", "CLAUSEDESK_DATABASE_URL": url, "CLAUSEDESK_ENV": "production"}
    first = run_agent("serve", "--port", str(free_port()), env=env)
    migrated = [line for line in first.stderr.splitlines() if "migrated" in line]
    assert migrated == [
        f"clausedesk serve: migrated the database {url} from no schema to revision {head_revision()}"
    ]
    assert "production refuses to start" in first.stderr
    again = run_agent("serve", "--port", str(free_port()), env=env)
    assert "migrated" not in again.stderr and "production refuses to start" in again.stderr
