"""What CLAUSEDESK_ENV=production refuses: any development default that would let a
stranger in (the secret key printed in the code, the store's development credentials,
a development staff account that is still active, a development claim that still opens
with its access code from the README), and the explained answer style unless its published
residual risk is accepted by name."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from agent.db.tables import Claim, StaffUser
from agent.security import hash_token, token_matches, verify_password
from agent.seed import STAFF_SEED, development_claims
from agent.settings import DEVELOPMENT_SECRET_KEY, Settings
from knowledge.settings import StoreSettings

# The explained style's published residual risk (docs/changelog.md): a model's lead reaches
# claimants past its free-text checks (24 of the 430 catalogued attacks, 143 of 255 held out).
# Accepting it takes this name, so a new measurement with a new name needs a new acceptance.
EXPLAINED_RISK = "explained-lead-2026-12"


class ProductionRefused(RuntimeError):
    """The settings or database still hold development defaults; the message names each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("CLAUSEDESK_ENV=production refuses to start: " + "; ".join(problems))


def development_staff(path: Path = STAFF_SEED) -> list[dict]:
    return list(tomllib.loads(path.read_text(encoding="utf-8"))["staff"])


def settings_problems(settings: Settings) -> list[str]:
    problems = []
    if settings.secret_key == DEVELOPMENT_SECRET_KEY or len(settings.secret_key) < 32:
        problems.append(
            "CLAUSEDESK_SECRET_KEY is the development value or shorter than 32 characters; "
            "set a long random secret"
        )
    store, defaults = settings.store, StoreSettings.model_fields
    if store.access_key == defaults["access_key"].default:
        problems.append("CLAUSEDESK_S3_ACCESS_KEY is the development value; set the store's real credentials")
    if store.secret_key == defaults["secret_key"].default:
        problems.append("CLAUSEDESK_S3_SECRET_KEY is the development value; set the store's real credentials")
    if not settings.claimant_access_codes and not (
        settings.claimant_token_public_keys or settings.claimant_token_jwks_url
    ):
        problems.append(
            "claimants have no way to sign in: CLAUSEDESK_CLAIMANT_ACCESS_CODES is off and neither "
            "CLAUSEDESK_CLAIMANT_TOKEN_PUBLIC_KEYS nor CLAUSEDESK_CLAIMANT_TOKEN_JWKS_URL is set"
        )
    if settings.answer_style == "explained" and settings.accept_explained_risk != EXPLAINED_RISK:
        problems.append(
            "CLAUSEDESK_ANSWER_STYLE=explained lets the model's own words reach claimants past checks that "
            f"do not hold (published risk {EXPLAINED_RISK}); use the quoted style, or set "
            f"CLAUSEDESK_ACCEPT_EXPLAINED_RISK={EXPLAINED_RISK} to accept it"
        )
    if settings.evaluation_leave_out:
        problems.append(
            "CLAUSEDESK_EVALUATION_LEAVE_OUT lets a request header change what the memory recalls; "
            "leave it unset in production"
        )
    return problems


def active_development_staff(sessions: sessionmaker, path: Path = STAFF_SEED) -> list[str]:
    """Usernames of active accounts that still open with a development password or token."""
    found = []
    with sessions() as session:
        for row in development_staff(path):
            user = session.scalar(
                select(StaffUser).where(StaffUser.username == row["username"], StaffUser.active.is_(True))
            )
            if user is None:
                continue
            if user.token_hash == hash_token(row["token"]) or verify_password(
                row["password"], user.password_hash
            ):
                found.append(user.username)
    return found


def open_development_claims(sessions: sessionmaker) -> list[str]:
    """Claims that still open with a development access code (published in the README)."""
    codes = development_claims()
    if not codes:
        return []
    with sessions() as session:
        rows = session.execute(select(Claim.claim_id, Claim.token_hash).where(Claim.claim_id.in_(codes)))
        return sorted(claim_id for claim_id, token_hash in rows if token_matches(codes[claim_id], token_hash))


def check_production(settings: Settings, sessions: sessionmaker | None = None) -> None:
    """Raise ProductionRefused in production while any development default remains."""
    if not settings.production:
        return
    problems = settings_problems(settings)
    if sessions is not None:
        users = active_development_staff(sessions)
        if users:
            problems.append(
                f"development staff accounts are active ({', '.join(users)}); "
                "disable them with `python -m agent staff disable USERNAME`"
            )
        claims = open_development_claims(sessions)
        if claims:
            problems.append(
                f"development claims open with their published access codes ({', '.join(claims)}); "
                "delete them from this database (`python -m agent seed` creates them outside production only)"
            )
    if problems:
        raise ProductionRefused(problems)
