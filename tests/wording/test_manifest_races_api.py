"""Approvals and withdrawals through the staff API that meet another writer of the manifest
(a command-line approval or withdrawal forced between the API's read and its write): both
stand, and the audit trail and carried evidence follow only the write that took effect."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import select

from agent.db.tables import ReleaseCheck, WordingAudit
from agent.wording import lifecycle
from knowledge.manifest import Registry
from tests.conftest import STAFF_TOKENS
from tests.knowledge.races import rival_before_manifest_write

OWNER = STAFF_TOKENS["mere.staff"]
pytestmark = pytest.mark.databases


def audit(live, action: str, family: str, version: str) -> list[WordingAudit]:
    with live.app.state.services.sessions() as session:
        return list(
            session.scalars(
                select(WordingAudit).where(
                    WordingAudit.action == action,
                    WordingAudit.family == family,
                    WordingAudit.version == version,
                )
            )
        )


def a_check_of(live, family: str, version: str) -> str:
    """A release check on record for the version as ingested (what an approval cites)."""
    entry = Registry(live.app.state.services.runner.library.store).read()[0].entry(family, version)
    with live.app.state.services.sessions.begin() as session:
        session.add(
            ReleaseCheck(
                id="RC-0race001",
                family=family,
                version=version,
                content_hash=entry.content_hash,
                model_name="test",
                created_by="Mere Tautahi (mere.staff)",
            )
        )
    return "RC-0race001"


def test_two_withdrawals_at_once_by_api_and_command_line_both_stand(wording_live, monkeypatch) -> None:
    live = wording_live
    store = live.app.state.services.runner.library.store
    sessions = live.app.state.services.sessions
    rival_before_manifest_write(
        monkeypatch,
        store,
        lambda: lifecycle.withdraw(
            Registry(store),
            sessions,
            "home",
            "2026.2",
            withdrawn_by="Rival",
            reason="flood limit",
            via="command line",
        ),
    )
    with live.client(OWNER) as owner:
        done = owner.post("/staff/api/wording/motor/2026.2/withdraw", json={"reason": "hire car limit wrong"})
    assert done.status_code == 200, done.text
    assert done.json()["changed"] is True
    manifest = Registry(store).read()[0]
    assert manifest.entry("motor", "2026.2").status == "withdrawn"
    assert manifest.entry("home", "2026.2").status == "withdrawn"
    assert len(audit(live, "withdraw", "motor", "2026.2")) == 1
    assert len(audit(live, "withdraw", "home", "2026.2")) == 1


def test_the_same_approval_at_once_by_api_and_command_line_is_one_change(wording_live, monkeypatch) -> None:
    live = wording_live
    store = live.app.state.services.runner.library.store
    sessions = live.app.state.services.sessions
    check = a_check_of(live, "motor", "2027.1")
    rival_before_manifest_write(
        monkeypatch,
        store,
        lambda: lifecycle.approve(
            Registry(store),
            sessions,
            "motor",
            "2027.1",
            effective_from=date(2027, 7, 1),
            effective_to=None,
            approved_by="Rival",
            check_id=check,
            via="command line",
        ),
    )
    with live.client(OWNER) as owner:
        done = owner.post(
            "/staff/api/wording/motor/2027.1/approve",
            json={"effective_from": "2027-07-01", "check_id": check},
        )
    assert done.status_code == 200, done.text
    assert done.json()["changed"] is False  # the command line's approval took effect first
    assert Registry(store).read()[0].entry("motor", "2027.1").approved_by == "Rival"
    [row] = audit(live, "approve", "motor", "2027.1")
    assert row.actor == "Rival" and row.detail["via"] == "command line"
