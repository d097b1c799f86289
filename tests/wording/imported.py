"""Steps the tests of the imported AXA UK car wording share: its synthetic claimants seeded, and
the version approved to govern without evidence."""

from __future__ import annotations

from sqlalchemy.orm import sessionmaker

from agent.seed import seed_policies
from tests.conftest import AXA_FAMILY, AXA_VERSION, STAFF_TOKENS
from tests.support import LiveServer

FAMILY, VERSION = AXA_FAMILY, AXA_VERSION
OWNER = STAFF_TOKENS["mere.staff"]


def seed_claimants(sessions: sessionmaker, claimants: list[dict]) -> dict[str, str]:
    """Seeds these claimants: each one's claim ID by policy number."""
    return {s.policy_number: s.claim_id for s in seed_policies(sessions, data=claimants)}


def approve_without_evidence(live: LiveServer) -> dict:
    """The policy owner runs the version's release check asking no inventory question (so it
    fails for want of evidence) and approves the version citing it: the check's result."""
    with live.client(OWNER, timeout=120) as owner:
        check = owner.post(f"/staff/api/wording/{FAMILY}/{VERSION}/check", params={"questions": 0}).json()
        approved = owner.post(
            f"/staff/api/wording/{FAMILY}/{VERSION}/approve",
            json={"effective_from": "2021-04-01", "check_id": check["check_id"]},
        )
        assert approved.status_code == 200, approved.text
    return check
