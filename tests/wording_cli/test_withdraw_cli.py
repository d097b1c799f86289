"""`knowledge withdraw` shows what it will do and asks first; a draft is discarded, not
withdrawn. Real processes against a real S3 server and a real SQLite database."""

from __future__ import annotations

import json

import pytest

from agent.db.tables import (
    Message,
    WaitingItem,
    WithdrawalFollowUp,
    WordingAudit,
    make_engine,
    make_sessionmaker,
)
from agent.seed import seed_policies
from agent.staff.waiting_list import create_item
from tests.wording_cli.test_cli import WITHDRAW_HOME, knowledge
from tests.wording_cli.test_release_cli import at_a_terminal, rows

pytestmark = pytest.mark.slow


def statuses(s3_server, bucket: str, family: str) -> dict[str, str]:
    status = json.loads(knowledge(s3_server, bucket, "status", "--json").stdout)
    return {v["version"]: v["status"] for v in next(r for r in status if r["family"] == family)["versions"]}


def staff_answered_from(database_url: str, claim_id: str, version: str) -> str:
    """A staff answer sent while `version` governed the claim, citing nothing: its reference."""
    engine = make_engine(database_url)
    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    with sessions.begin() as session:
        item = create_item(
            session,
            claim_id=claim_id,
            turn_id=None,
            family="home",
            question="Fence?",
            reason="no_clause_selected",
        )
        message = Message(claim_id=claim_id, role="staff", body="Yes, fences are part of your home.")
        session.add(message)
        session.flush()
        item.status, item.answer_message_id, item.answered_by = "answered", message.id, "aroha.staff"
        item.answer_version, item.answer_citations = version, []
        reference = item.reference
    engine.dispose()
    return reference


def test_withdraw_without_a_terminal_needs_yes_and_says_what_it_would_do(s3_server, bucket, database) -> None:
    for command in ("ingest", "apply-releases"):
        assert knowledge(s3_server, bucket, command, database_url=database).returncode == 0
    answered = staff_answered_from(database, "CLM-310442", "2026.2")

    refused = knowledge(s3_server, bucket, *WITHDRAW_HOME, database_url=database)
    assert refused.returncode == 1
    assert "error: no terminal to confirm on: add --yes to withdraw" in refused.stderr
    assert "home 2026.2: approved for [2026-07-01, open)" in refused.stdout
    assert "Conversations relying on it: 1 (1 reply: agent replies and staff answers)" in refused.stdout
    assert "Will create: 1 follow-up items on the waiting list and 1 notices to claimants (CLM-310442)" in (
        refused.stdout
    )
    assert "not withdrawn" in refused.stdout
    assert statuses(s3_server, bucket, "home")["2026.2"] == "approved"
    assert [i.reference for i in rows(database, WaitingItem)] == [answered]

    done = knowledge(s3_server, bucket, *WITHDRAW_HOME, "--yes", database_url=database)
    assert done.returncode == 0, done.stderr
    assert "home 2026.2: withdrawn" in done.stdout
    [follow_up] = rows(database, WithdrawalFollowUp)
    # A conversation answered by staff from the version, with no citation, is followed up too.
    assert follow_up.claim_id == "CLM-310442"
    assert [(r["kind"], r["item"], r["citations"]) for r in follow_up.replies] == [("staff", answered, [])]
    notices = [m for m in rows(database, Message) if m.role == "notice"]
    assert len(notices) == 1 and "home policy wording 2026.2" in notices[0].body


def test_withdraw_typed_at_a_terminal_takes_only_yes(s3_server, bucket, database) -> None:
    for command in ("ingest", "apply-releases"):
        assert knowledge(s3_server, bucket, command, database_url=database).returncode == 0

    code, out, err = at_a_terminal(s3_server, bucket, "n", database, *WITHDRAW_HOME)
    assert code == 1, err
    assert "Withdraw home 2026.2 (wording error in HOM-BEN-01)? [y/N]" in out and "not withdrawn" in out
    assert statuses(s3_server, bucket, "home")["2026.2"] == "approved"

    code, out, err = at_a_terminal(s3_server, bucket, "yes", database, *WITHDRAW_HOME)
    assert code == 0, err
    assert "home 2026.2: withdrawn" in out and "follow-up items on the waiting list: 0 new" in out
    assert statuses(s3_server, bucket, "home")["2026.2"] == "withdrawn"
    assert [(a.action, a.version) for a in rows(database, WordingAudit) if a.action == "withdraw"] == [
        ("withdraw", "2026.2")
    ]


def test_a_draft_is_discarded_not_withdrawn(s3_server, bucket, database) -> None:
    for command in ("ingest", "apply-releases"):
        assert knowledge(s3_server, bucket, command, database_url=database).returncode == 0
    refused = knowledge(
        s3_server,
        bucket,
        "withdraw",
        "motor",
        "2027.1",
        "--by",
        "Mere",
        "--reason",
        "x",
        "--yes",
        database_url=database,
    )
    assert refused.returncode == 1
    assert "motor 2027.1 is a draft that was never approved" in refused.stderr
    assert "python -m knowledge discard motor 2027.1" in refused.stderr
    assert statuses(s3_server, bucket, "motor")["2027.1"] == "draft"

    approved = knowledge(s3_server, bucket, "discard", "motor", "2026.2", "--by", "Mere", "--yes")
    assert approved.returncode == 1
    assert "motor 2026.2 is approved; only a draft can be discarded" in approved.stderr

    unconfirmed = knowledge(
        s3_server, bucket, "discard", "motor", "2027.1", "--by", "Mere", database_url=database
    )
    assert unconfirmed.returncode == 1 and "add --yes to discard" in unconfirmed.stderr
    assert "motor 2027.1: draft, 20 clauses" in unconfirmed.stdout
    assert "2027.1" in statuses(s3_server, bucket, "motor")

    code, out, err = at_a_terminal(
        s3_server, bucket, "y", database, "discard", "motor", "2027.1", "--by", "Mere"
    )
    assert code == 0, err
    assert out.strip().endswith("motor 2027.1: discarded")
    assert set(statuses(s3_server, bucket, "motor")) == {"2025.1", "2026.2"}
    [audit] = [a for a in rows(database, WordingAudit) if a.action == "discard"]
    assert (audit.actor, audit.family, audit.version) == ("Mere", "motor", "2027.1")
    # Discarded, it can be ingested again as a fresh draft.
    again = knowledge(s3_server, bucket, "ingest", "policies/motor/2027.1.md", database_url=database)
    assert again.returncode == 0 and "motor 2027.1: 22 objects written" in again.stdout
