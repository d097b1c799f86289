"""The policy owner's release check, approval and withdrawal on the command line, as real
processes against a real S3 server and a real SQLite database."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import uuid

import pytest
from sqlalchemy import select

from agent.db.revision import head_revision
from agent.db.tables import ReleaseCheck, WordingAudit, make_engine, make_sessionmaker
from tests.conftest import REPO
from tests.wording_cli.test_cli import WITHDRAW_HOME, knowledge, knowledge_env

pytestmark = pytest.mark.slow

# The policy owner approving the motor draft from its start date.
APPROVE_DRAFT = ("approve", "motor", "2027.1", "--from", "2027-07-01", "--by", "Mere Tautahi")


def rows(url: str, model) -> list:  # type: ignore[no-untyped-def]
    engine = make_engine(url)
    try:
        with make_sessionmaker(engine)() as session:
            return list(session.scalars(select(model)).all())
    finally:
        engine.dispose()


def test_check_release_then_approve_cites_the_check(s3_server, bucket, database, tmp_path) -> None:
    assert knowledge(s3_server, bucket, "ingest", "--by", "Mere", database_url=database).returncode == 0
    assert knowledge(s3_server, bucket, "apply-releases", database_url=database).returncode == 0

    before = knowledge(s3_server, bucket, *APPROVE_DRAFT, database_url=database)
    assert before.returncode == 1
    assert "no release check on record for motor 2027.1" in before.stderr
    assert "check-release motor 2027.1" in before.stderr

    checked = knowledge(
        s3_server,
        bucket,
        "check-release",
        "motor",
        "2027.1",
        "--by",
        "Mere Tautahi",
        "--report-dir",
        str(tmp_path / "reports"),
        database_url=database,
    )
    assert checked.returncode == 0, checked.stderr
    assert "motor 2027.1 against 2026.2" in checked.stdout
    assert "MTR-BEN-03" in checked.stdout and "− NZD 60" in checked.stdout and "+ NZD 80" in checked.stdout
    [check] = rows(database, ReleaseCheck)
    report = json.loads((tmp_path / "reports" / f"release-check-{check.id}.json").read_text())
    assert report["summary"] == check.summary
    assert (tmp_path / "reports" / f"release-check-{check.id}.html").read_text().count(
        "<del>NZD 60</del>"
    ) == 1

    unconfirmed = knowledge(s3_server, bucket, *APPROVE_DRAFT, database_url=database)
    assert unconfirmed.returncode == 1
    assert f"Release check {check.id}: motor 2027.1 against 2026.2" in unconfirmed.stdout
    assert "add --yes" in unconfirmed.stderr

    approved = knowledge(s3_server, bucket, *APPROVE_DRAFT, "--yes", database_url=database)
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout.strip().endswith("motor 2027.1: approved")
    status = json.loads(knowledge(s3_server, bucket, "status", "--json").stdout)
    motor = {v["version"]: v for v in next(r for r in status if r["family"] == "motor")["versions"]}
    assert motor["2027.1"]["status"] == "approved"

    audit = {(a.action, a.family, a.version): a for a in rows(database, WordingAudit)}
    assert audit[("ingest", "motor", "2027.1")].actor == "Mere"
    assert audit[("approve", "motor", "2026.2")].detail["via"].startswith("release record")
    assert audit[("check", "motor", "2027.1")].detail["check_id"] == check.id
    assert audit[("approve", "motor", "2027.1")].detail["check_id"] == check.id


def test_check_release_of_one_part_with_a_limit_of_no_question_fails_for_want_of_evidence(
    s3_server, bucket, database, tmp_path
) -> None:
    assert knowledge(s3_server, bucket, "ingest", database_url=database).returncode == 0
    assert knowledge(s3_server, bucket, "apply-releases", database_url=database).returncode == 0
    checked = knowledge(
        s3_server,
        bucket,
        *("check-release", "motor", "2026.2", "--parts", "dev", "--questions", "0"),
        *("--report-dir", str(tmp_path / "reports")),
        database_url=database,
    )
    assert checked.returncode == 0, checked.stderr
    first = checked.stdout.splitlines()[0]
    assert first.startswith("FAILED: no evidence: the check asked no questions (a limit of 0 of 72)"), first
    [check] = rows(database, ReleaseCheck)
    assert check.report["evidence"] == {"parts": [], "asked": 0, "available": 72, "limit": 0, "store": None}


def test_store_only_withdrawal_works_and_says_what_was_not_kept(s3_server, bucket) -> None:
    for command in ("ingest", "apply-releases"):  # the store changes; the notes say what was not kept
        done = knowledge(s3_server, bucket, command)
        assert done.returncode == 0, done.stderr
        assert done.stderr.count("note: no audit record kept: no database at /nonexistent/clausedesk.db") == 1
    done = knowledge(s3_server, bucket, *WITHDRAW_HOME, "--yes")
    assert done.returncode == 0
    assert done.stdout.strip().endswith("home 2026.2: withdrawn")
    assert "Conversations relying on it: unknown (no clausedesk database)" in done.stdout
    assert "no audit record kept and no follow-up items made" in done.stderr
    assert "no database at /nonexistent/clausedesk.db" in done.stderr


def agent_cli(*args: str, database_url: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, CLAUSEDESK_DATABASE_URL=database_url)
    return subprocess.run(
        [sys.executable, "-m", "agent", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )


def test_affected_reads_without_migrating_and_prints_no_framework_logs(tmp_path, database) -> None:
    missing = f"sqlite:///{tmp_path / 'absent.db'}"
    refused = agent_cli("affected", "motor", "2026.2", database_url=missing)
    assert refused.returncode == 2
    assert "no database at" in refused.stderr and "python -m agent seed" in refused.stderr
    assert not (tmp_path / "absent.db").exists()

    engine = make_engine(database)
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = '0002'")
    engine.dispose()
    outdated = agent_cli("affected", "motor", "2026.2", database_url=database)
    assert outdated.returncode == 2
    assert f"is at schema revision 0002, this code needs {head_revision()}" in outdated.stderr

    engine = make_engine(database)
    with engine.begin() as connection:
        connection.exec_driver_sql(f"UPDATE alembic_version SET version_num = '{head_revision()}'")
    engine.dispose()
    ok = agent_cli("affected", "motor", "2026.2", database_url=database)
    assert ok.returncode == 0
    assert ok.stdout.strip() == (
        "0 replies relied on motor 2026.2: 0 agent replies, 0 staff answers; 0 drafts were made from it"
    )
    assert ok.stderr == ""


def approve_at_a_terminal(s3_server, bucket: str, answer: str, database_url: str):  # type: ignore[no-untyped-def]
    """`knowledge approve` without --yes, its standard input a terminal (a pty) that types `answer`."""
    return at_a_terminal(s3_server, bucket, answer, database_url, *APPROVE_DRAFT, "--no-check")


def at_a_terminal(s3_server, bucket: str, answer: str, database_url: str, *args: str):  # type: ignore[no-untyped-def]
    """`knowledge ARGS`, its standard input a terminal (a pty) that types `answer`."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "knowledge", *args],
        cwd=REPO,
        env=knowledge_env(s3_server, bucket, database_url),
        stdin=follower,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(follower)
    try:
        os.write(leader, f"{answer}\n".encode())
        out, err = process.communicate(timeout=120)
    finally:
        os.close(leader)
    return process.returncode, out, err


def test_approval_typed_at_a_terminal_asks_first_and_takes_only_yes(s3_server, bucket, database) -> None:
    assert knowledge(s3_server, bucket, "ingest", database_url=database).returncode == 0
    assert knowledge(s3_server, bucket, "apply-releases", database_url=database).returncode == 0

    code, out, err = approve_at_a_terminal(s3_server, bucket, "n", database)
    assert code == 1, err
    assert "Approve motor 2027.1 for [2027-07-01, open)? [y/N]" in out and "not approved" in out
    status = json.loads(knowledge(s3_server, bucket, "status", "--json").stdout)
    motor = {v["version"]: v for v in next(r for r in status if r["family"] == "motor")["versions"]}
    assert motor["2027.1"]["status"] == "draft"

    code, out, err = approve_at_a_terminal(s3_server, bucket, "y", database)
    assert code == 0, err
    assert out.strip().endswith("motor 2027.1: approved")
    audit = {(a.action, a.version): a for a in rows(database, WordingAudit)}
    assert audit[("approve", "2027.1")].detail == {
        "effective_from": "2027-07-01",
        "effective_to": None,
        "check_id": None,
        "via": "command line",
    }


def test_restoring_a_store_that_lost_its_state_writes_no_second_audit_record(s3_server, database) -> None:
    """start-dev.sh's local store keeps its state in memory: every start ingests and applies
    the release records into an empty bucket. The wording did not change, so neither does
    the audit trail; a real change (another actor's approval after a withdrawal) still counts."""
    first, second = (f"cli-{uuid.uuid4().hex[:10]}" for _ in range(2))
    for bucket in (first, second):
        assert knowledge(s3_server, bucket, "ingest", "--by", "Mere", database_url=database).returncode == 0
        assert knowledge(s3_server, bucket, "apply-releases", database_url=database).returncode == 0
        if bucket == first:
            after_first = [(a.action, a.family, a.version) for a in rows(database, WordingAudit)]
    after_second = [(a.action, a.family, a.version) for a in rows(database, WordingAudit)]
    assert after_second == after_first
    assert after_first.count(("ingest", "motor", "2027.1")) == 1
    assert after_first.count(("approve", "motor", "2026.2")) == 1

    withdrawn = knowledge(
        s3_server,
        second,
        "withdraw",
        "home",
        "2026.2",
        "--reason",
        "test",
        "--by",
        "Mere",
        "--yes",
        database_url=database,
    )
    assert withdrawn.returncode == 0, withdrawn.stderr
    third = f"cli-{uuid.uuid4().hex[:10]}"
    assert knowledge(s3_server, third, "ingest", "--by", "Mere", database_url=database).returncode == 0
    assert knowledge(s3_server, third, "apply-releases", database_url=database).returncode == 0
    audit = [(a.action, a.family, a.version) for a in rows(database, WordingAudit)]
    assert audit.count(("approve", "home", "2026.2")) == 2  # approved again after its withdrawal
    assert audit.count(("approve", "motor", "2026.2")) == 1
