"""Seed development policies, terms, schedules and claims from policies/schedules/*.toml
(through agent.policy.intake, the insurer's own path), and development staff accounts from
agent/staff_seed.toml.

Idempotent: existing rows are updated in place, conversations are never touched.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from agent.db.tables import Claim, Policy, StaffUser
from agent.policy.intake import ClaimIn, PolicyIn, upsert_claim, upsert_policy
from agent.security import hash_password, hash_token, verify_password
from agent.settings import get_settings

STAFF_SEED = Path(__file__).resolve().parent / "staff_seed.toml"
SEED_ACTOR = "seed"


@dataclass(frozen=True)
class SeededClaim:
    claim_id: str
    policy_number: str
    family: str
    plan: str
    token: str


def schedules_dir() -> Path:
    return get_settings().policies_dir / "schedules"


def load_seed_files(folder: Path | None = None) -> list[dict]:
    folder = folder or schedules_dir()
    return [tomllib.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.toml"))]


def development_claims(folder: Path | None = None) -> dict[str, str]:
    """Claim number to access code of every development claim; the codes are published in
    the README, so production refuses a claim that still opens with one."""
    return {d["claim"]["claim_id"]: d["claim"]["claimant_token"] for d in load_seed_files(folder)}


def seed_policies(
    sessions: sessionmaker, folder: Path | None = None, *, data: list[dict] | None = None
) -> list[SeededClaim]:
    """The policies of the seed files in `folder` (policies/schedules by default), or the
    policy tables given as `data` (an imported wording's synthetic claimants)."""
    seeded = []
    with sessions.begin() as session:
        for one in load_seed_files(folder) if data is None else data:
            seeded.append(_seed_one(session, one))
    return seeded


def _seed_one(session: Session, data: dict) -> SeededClaim:
    """Through the intake code, as the insurer's systems would send it: one term from the
    file's term dates, plan and schedule, or each of its `[[terms]]`."""
    stored = session.get(Claim, data["claim"]["claim_id"])
    policy, claim = seed_records(data, stored.status if stored is not None else "open")
    upsert_policy(session, policy, SEED_ACTOR)
    upsert_claim(session, claim, SEED_ACTOR, access_code=data["claim"]["claimant_token"])
    token = data["claim"]["claimant_token"]
    return SeededClaim(claim.claim_id, policy.policy_number, policy.family, policy.terms[-1].plan, token)


def seed_records(data: dict, status: str = "open") -> tuple[PolicyIn, ClaimIn]:
    """A claim's status is the file's when it names one, else the stored one (a re-seed
    does not reopen a closed claim)."""
    terms = data.get("terms") or [
        {k: data[k] for k in ("term_start", "term_end", "plan")} | {"schedule": data["schedule"]}
    ]
    policy = PolicyIn.model_validate(
        {
            "policy_number": data["policy_number"],
            "family": data["family"],
            "policyholder": data["policyholder"],
            "terms": terms,
        }
    )
    c = data["claim"]
    claim = ClaimIn.model_validate(
        {
            "claim_id": c["claim_id"],
            "policy_number": data["policy_number"],
            "incident_date": c.get("incident_date"),
            "incident": c.get("incident", ""),
            "status": c.get("status", status),
            "claimant_ref": c.get("claimant_ref"),
        }
    )
    return policy, claim


# Claims cloned for evaluation runs and release checks start with this, so reports and
# clean-ups can tell them from real ones.
CLONE_PREFIX = "EV-"


def clone_claim(session: Session, seeded_claim_id: str, claim_id: str, token: str) -> tuple[Claim, Policy]:
    """A fresh open claim on the same policy and incident as a seeded one, with its own access
    code (evaluation runs and release checks never share a conversation)."""
    seeded = session.get(Claim, seeded_claim_id)
    if seeded is None:
        raise LookupError(f"no seeded claim {seeded_claim_id}: run `python -m agent seed`")
    claim = Claim(
        claim_id=claim_id,
        policy_number=seeded.policy_number,
        status="open",
        incident_date=seeded.incident_date,
        incident=seeded.incident,
        token_hash=hash_token(token),
    )
    session.add(claim)
    return claim, session.get(Policy, seeded.policy_number)


@dataclass(frozen=True)
class SeededStaff:
    username: str
    display_name: str
    password: str
    token: str
    roles: tuple[str, ...] = ("handler",)


def seed_staff(sessions: sessionmaker, path: Path = STAFF_SEED) -> list[SeededStaff]:
    """Development staff users; only hashes of their passwords and tokens are stored."""
    seeded = []
    with sessions.begin() as session:
        for row in tomllib.loads(path.read_text(encoding="utf-8"))["staff"]:
            user = session.get(StaffUser, row["username"]) or StaffUser(username=row["username"])
            user.display_name = row["display_name"]
            if not user.password_hash or not verify_password(row["password"], user.password_hash):
                user.password_hash = hash_password(row["password"])
            user.token_hash = hash_token(row["token"])
            user.active = True
            user.roles = list(row.get("roles", ["handler"]))
            session.add(user)
            seeded.append(
                SeededStaff(
                    row["username"], row["display_name"], row["password"], row["token"], tuple(user.roles)
                )
            )
    return seeded
