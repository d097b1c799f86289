"""Seed development policies, schedules and claims from policies/schedules/*.toml.

Idempotent: existing rows are updated in place, conversations are never touched.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from agent.db import Claim, Policy, Schedule
from agent.security import hash_token

SCHEDULES = Path(__file__).resolve().parent.parent / "policies" / "schedules"


@dataclass(frozen=True)
class SeededClaim:
    claim_id: str
    policy_number: str
    family: str
    plan: str
    token: str


def load_seed_files(folder: Path = SCHEDULES) -> list[dict]:
    return [tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.toml"))]


def seed_policies(sessions: sessionmaker, folder: Path = SCHEDULES) -> list[SeededClaim]:
    seeded = []
    with sessions.begin() as session:
        for data in load_seed_files(folder):
            seeded.append(_seed_one(session, data))
    return seeded


def _seed_one(session: Session, data: dict) -> SeededClaim:
    number = data["policy_number"]
    policy = session.get(Policy, number) or Policy(policy_number=number)
    policy.family = data["family"]
    policy.policyholder = data["policyholder"]
    policy.plan = data["plan"]
    policy.term_start = data["term_start"]
    policy.term_end = data["term_end"]
    session.add(policy)
    schedule = session.get(Schedule, number) or Schedule(policy_number=number)
    raw = data["schedule"]
    schedule.sections = list(raw.get("sections", []))
    schedule.excess = dict(raw.get("excess", {}))
    schedule.sums_insured = dict(raw.get("sums_insured", {}))
    schedule.details = dict(raw.get("details", {}))
    session.add(schedule)
    c = data["claim"]
    claim = session.get(Claim, c["claim_id"]) or Claim(claim_id=c["claim_id"])
    claim.policy_number = number
    claim.incident_date = c.get("incident_date")
    claim.incident = c.get("incident", "")
    claim.token_hash = hash_token(c["claimant_token"])
    claim.status = claim.status or "open"
    session.add(claim)
    session.flush()
    return SeededClaim(c["claim_id"], number, data["family"], data["plan"], c["claimant_token"])
