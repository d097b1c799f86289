"""The wording command line (the policy owner's), run as a real process against a real S3 server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import POLICIES, REPO

pytestmark = pytest.mark.slow  # the command line as processes

# A store-only environment unless a test names a database: no clausedesk database here.
NO_DATABASE = "sqlite:////nonexistent/clausedesk.db"


# Withdrawing the current home wording, as a policy owner would (add --yes to skip the prompt).
WITHDRAW_HOME = (
    "withdraw",
    "home",
    "2026.2",
    "--by",
    "Daniel Kerr",
    "--reason",
    "wording error in HOM-BEN-01",
)


def knowledge_env(s3_server, bucket: str, database_url: str = NO_DATABASE) -> dict[str, str]:
    """The environment a `python -m knowledge` process runs with in these tests."""
    return dict(
        os.environ,
        CLAUSEDESK_DATABASE_URL=database_url,
        CLAUSEDESK_S3_ENDPOINT=s3_server.endpoint,
        CLAUSEDESK_S3_BUCKET=bucket,
        CLAUSEDESK_S3_ACCESS_KEY="test",
        CLAUSEDESK_S3_SECRET_KEY="test-secret",
    )


def knowledge(
    s3_server, bucket: str, *args: str, cwd: Path = REPO, database_url: str = NO_DATABASE
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "knowledge", *args],
        cwd=cwd,
        env=knowledge_env(s3_server, bucket, database_url),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_validate_ingest_release_and_status(s3_server, bucket) -> None:
    assert knowledge(s3_server, bucket, "validate").stdout.startswith("ok: 7 wording files")
    ingested = knowledge(s3_server, bucket, "ingest")
    assert ingested.returncode == 0, ingested.stderr
    assert "motor 2027.1: 22 objects written" in ingested.stdout
    again = knowledge(s3_server, bucket, "ingest")
    assert again.stdout.count("unchanged") == 7
    released = knowledge(s3_server, bucket, "apply-releases")
    assert "approved motor 2026.2 from 2026-07-01 to open" in released.stdout
    assert (
        knowledge(s3_server, bucket, "apply-releases").stdout.strip() == "all release records already applied"
    )
    status = json.loads(knowledge(s3_server, bucket, "status", "--on", "2026-06-30", "--json").stdout)
    assert {row["family"]: row["governing"] for row in status} == {
        "contents": "2025.1",
        "home": "2025.1",
        "motor": "2025.1",
    }
    motor = next(row for row in status if row["family"] == "motor")
    assert {v["version"]: v["status"] for v in motor["versions"]}["2027.1"] == "draft"


def test_apply_releases_refuses_before_ingestion(s3_server, bucket) -> None:
    knowledge(s3_server, bucket, "ingest", "policies/home")
    refused = knowledge(s3_server, bucket, "apply-releases")
    assert refused.returncode == 1
    assert "release records name versions not ingested yet: motor 2025.1" in refused.stderr
    status = knowledge(s3_server, bucket, "status", "--json").stdout
    assert '"approved"' not in status


def test_withdraw_leaves_a_gap_not_a_fallback(s3_server, bucket) -> None:
    knowledge(s3_server, bucket, "ingest")
    knowledge(s3_server, bucket, "apply-releases")
    done = knowledge(s3_server, bucket, *WITHDRAW_HOME, "--yes")
    assert done.stdout.strip().endswith("home 2026.2: withdrawn")
    status = knowledge(s3_server, bucket, "status", "--on", "2026-08-01").stdout
    assert "home: governing on 2026-08-01: none: no approved home wording is effective" in status


def test_approve_refuses_an_overlap_with_a_clear_error(s3_server, bucket) -> None:
    knowledge(s3_server, bucket, "ingest")
    knowledge(s3_server, bucket, "apply-releases")
    refused = knowledge(
        s3_server,
        bucket,
        "approve",
        "motor",
        "2027.1",
        "--from",
        "2026-01-01",
        "--to",
        "2026-09-01",
        "--by",
        "Someone",
    )
    assert refused.returncode == 1
    assert "error: motor 2027.1 [2026-01-01, 2026-09-01) overlaps approved" in refused.stderr


def test_invalid_wording_fails_loudly_and_writes_nothing(s3_server, bucket, tmp_path) -> None:
    shutil.copytree(POLICIES, tmp_path / "policies")
    bad = tmp_path / "policies" / "motor" / "2026.2.md"
    bad.write_text(bad.read_text().replace("## MTR-BEN-06 - ", "## MTR-BEN-05 - "))
    result = knowledge(s3_server, bucket, "ingest", cwd=tmp_path)
    assert result.returncode == 1
    assert "policies/motor/2026.2.md: MTR-BEN-05: [duplicate-id]" in result.stderr
    status = knowledge(s3_server, bucket, "status")
    assert "nothing has been ingested" in status.stdout or "could not" in status.stderr
