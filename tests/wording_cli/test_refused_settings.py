"""A start-up setting the code cannot take is refused in one line naming the variable and what
is wrong, never a validation traceback, and never echoing a secret's value."""

from __future__ import annotations

import os
import subprocess
import sys


def run(module: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_short_metrics_token_is_refused_in_one_line() -> None:
    done = run("agent", "serve", CLAUSEDESK_METRICS_TOKEN="short-secret")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: a start-up setting was refused: CLAUSEDESK_METRICS_TOKEN: "
        "String should have at least 32 characters"
    ]
    assert "short-secret" not in done.stderr and "Traceback" not in done.stderr


def test_a_bad_bucket_name_is_refused_in_one_line_by_the_wording_commands() -> None:
    done = run("knowledge", "status", CLAUSEDESK_S3_BUCKET="Not_A_Bucket")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: a start-up setting was refused: CLAUSEDESK_S3_BUCKET: ")
    assert "not a valid S3 bucket name" in line
