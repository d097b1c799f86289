"""Typed dependencies shared by the routes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from agent.db import Claim, StaffUser
from agent.security import hash_token, token_matches
from agent.settings import Settings
from agent.turn import TurnRunner


@dataclass
class Services:
    settings: Settings
    sessions: sessionmaker
    runner: TurnRunner


def services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(services)]


def db_session(svc: ServicesDep):  # type: ignore[no-untyped-def]
    with svc.sessions() as session:
        yield session


SessionDep = Annotated[Session, Depends(db_session)]


def bearer_token(authorization: Annotated[str | None, Header()] = None) -> str:
    if not authorization or not authorization.lower().startswith("bearer "):
        raise HTTPException(
            401,
            "send the claim's access token as 'Authorization: Bearer <token>'",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return authorization[7:].strip()


def claimant_claim(claim_id: str, svc: ServicesDep, token: Annotated[str, Depends(bearer_token)]) -> Claim:
    """The claim this token opens. Unknown claims and other claims' tokens look the same: 404.

    Its own short session: a turn must not hold a connection while the runner needs others.
    """
    with svc.sessions() as session:
        claim = session.get(Claim, claim_id)
    if claim is None or not token_matches(token, claim.token_hash):
        raise HTTPException(404, f"no claim {claim_id} for this access token")
    return claim


ClaimantClaim = Annotated[Claim, Depends(claimant_claim)]


def staff_by_token(session: SessionDep, token: Annotated[str, Depends(bearer_token)]) -> StaffUser:
    """A staff user's own token; a claimant's token matches no staff user and gets 401."""
    staff = session.scalar(
        select(StaffUser).where(StaffUser.token_hash == hash_token(token), StaffUser.active.is_(True))
    )
    if staff is None:
        raise HTTPException(401, "not a staff access token", headers={"WWW-Authenticate": "Bearer"})
    return staff


CurrentStaff = Annotated[StaffUser, Depends(staff_by_token)]
POLICY_OWNER = "policy_owner"


def has_role(staff: StaffUser, role: str) -> bool:
    return role in (staff.roles or [])


def policy_owner(staff: CurrentStaff) -> StaffUser:
    """Approving and withdrawing wording is for policy owners; other staff get 403."""
    if not has_role(staff, POLICY_OWNER):
        raise HTTPException(
            403, f"{staff.username} is not a policy owner; approving and withdrawing wording needs that role"
        )
    return staff


PolicyOwner = Annotated[StaffUser, Depends(policy_owner)]
