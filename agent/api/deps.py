"""Typed dependencies shared by the routes.

Those that only look at the request are `async def`: FastAPI runs a plain `def` dependency
in a worker thread, a trip each request would otherwise pay for nothing. Those that read
the database (or a Redis throttle) stay plain functions, off the event loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from agent.api.claimant_tokens import insurer_signed_claim, looks_like_jwt
from agent.api.schemas.common import error_responses, url_part
from agent.db.tables import Claim, StaffSession, StaffUser
from agent.security import hash_token, token_matches
from agent.settings import Settings
from agent.staff import sessions as staff_sessions
from agent.throttle import Throttle, Throttled
from agent.turn.inbox import repeats_stored_message
from agent.turn.runner import TurnRunner
from agent.wording.checkpoints import Checkpoints
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry


@dataclass
class Services:
    settings: Settings
    sessions: sessionmaker
    runner: TurnRunner
    checkpoints: Checkpoints  # measuring a version again every N new evidence rows


async def services(request: Request) -> Services:
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(services)]


async def library(svc: ServicesDep) -> ClauseLibrary:
    # Read from the runner on each request: the library the turns read is the one routes read.
    return svc.runner.library


LibraryDep = Annotated[ClauseLibrary, Depends(library)]


async def registry(library: LibraryDep) -> Registry:
    return library.registry


RegistryDep = Annotated[Registry, Depends(registry)]


def db_session(svc: ServicesDep):  # type: ignore[no-untyped-def]
    with svc.sessions() as session:
        yield session


SessionDep = Annotated[Session, Depends(db_session)]


async def throttle(request: Request) -> Throttle:
    return request.app.state.throttle


ThrottleDep = Annotated[Throttle, Depends(throttle)]


def client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def too_many(exc: Throttled) -> HTTPException:
    return HTTPException(429, str(exc), headers={"Retry-After": str(exc.retry_after)})


# Declared as the OpenAPI security scheme; the 401 itself is ours, with a clear message.
_BEARER = HTTPBearer(auto_error=False, description="The claim's access code, or a staff token or session")


def _declared_query(dependant: Dependant) -> set[str]:
    names = {p.alias for p in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _declared_query(sub)
    return names


def _query_names(route: APIRoute) -> frozenset[str]:
    names = getattr(route, "_declared_query_names", None)
    if names is None:  # computed once per route and kept on it
        names = frozenset(_declared_query(route.dependant))
        route._declared_query_names = names  # type: ignore[attr-defined]
    return names


async def known_query_only(request: Request) -> None:
    """A query parameter the operation does not declare is an error (422), not ignored:
    a misspelt `ofset=` must not silently give the first page."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    allowed = _query_names(route)
    unknown = sorted(k for k in request.query_params if k not in allowed)
    if unknown:
        takes = ", ".join(sorted(allowed)) or "no query parameters"
        raise HTTPException(422, f"unknown query parameter {unknown[0][:40]!r}; this operation takes {takes}")


def api_router(prefix: str, tag: str, *error_codes: int) -> APIRouter:
    """A JSON API router: its error responses documented, and an undeclared query parameter refused."""
    return APIRouter(
        prefix=prefix,
        tags=[tag],
        responses=error_responses(*error_codes),
        dependencies=[Depends(known_query_only)],
    )


async def bearer_token(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)]) -> str:
    if credentials is None or not credentials.credentials.strip():
        raise HTTPException(
            401,
            "send the claim's access token as 'Authorization: Bearer <token>'",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return credentials.credentials.strip()


def claimant_claim(
    claim_id: Annotated[str, Path(**url_part(40, "The claim number, e.g. CLM-204518"))],
    request: Request,
    svc: ServicesDep,
    limits: ThrottleDep,
    token: Annotated[str, Depends(bearer_token)],
) -> Claim:
    """The claim this token opens. Unknown claims and other claims' tokens look the same: 404.

    Wrong access codes are counted per client address, per claim and address, and per claim
    (agent.throttle.Guard, as staff passwords are): guessing from one address gets nowhere
    (429), and guesses spread over many addresses do not lock the claimant out; each guessing
    address gets one try a window against a 256-bit code.
    Its own short session: a turn must not hold a connection while the runner needs others.
    """
    address = client_address(request)
    try:
        limits.admit(limits.code, claim_id, address)
    except Throttled as exc:
        raise too_many(exc) from exc
    with svc.sessions() as session:
        claim = session.get(Claim, claim_id)
    if looks_like_jwt(token):  # signed by the insurer's portal (agent.api.claimant_tokens)
        return insurer_signed_claim(request.app.state.claimant_tokens, claim, claim_id, token)
    if not svc.settings.claimant_access_codes:
        raise HTTPException(401, "access codes are not accepted here; sign in through your insurer")
    if claim is None or not token_matches(token, claim.token_hash):
        try:
            limits.wrong(limits.code, claim_id, address)
        except Throttled as exc:
            raise too_many(exc) from exc
        raise HTTPException(404, f"no claim {claim_id} for this access token")
    return claim


ClaimantClaim = Annotated[Claim, Depends(claimant_claim)]


def claim_message_quota(
    claim: ClaimantClaim, limits: ThrottleDep, svc: ServicesDep, request: Request
) -> None:
    """Messages per claim (429 past the limit): one claimant cannot flood the waiting list.
    A retry with the Idempotency-Key of a message already stored is not another message.
    Add to the claimant POST route as `dependencies=[Depends(claim_message_quota)]`."""
    key = request.headers.get("idempotency-key")
    if key:
        with svc.sessions() as session:
            if repeats_stored_message(session, claim.claim_id, key):
                return
    try:
        limits.hit(limits.messages_claim, claim.claim_id)
    except Throttled as exc:
        raise too_many(exc) from exc


@dataclass(frozen=True)
class StaffAuth:
    staff: StaffUser
    session: StaffSession | None  # None for a user's standing API token


def staff_auth(
    session: SessionDep, svc: ServicesDep, token: Annotated[str, Depends(bearer_token)]
) -> StaffAuth:
    """A live API session's token (from POST /staff/api/login) or a staff user's own token;
    a claimant's token, an ended session or a disabled user gets 401."""
    found = staff_sessions.session_user(session, token, svc.settings)
    if found is not None:
        return StaffAuth(found[1], found[0])
    staff = session.scalar(
        select(StaffUser).where(StaffUser.token_hash == hash_token(token), StaffUser.active.is_(True))
    )
    if staff is None:
        raise HTTPException(401, "not a staff access token", headers={"WWW-Authenticate": "Bearer"})
    return StaffAuth(staff, None)


CurrentAuth = Annotated[StaffAuth, Depends(staff_auth)]


async def staff_by_token(auth: CurrentAuth) -> StaffUser:
    return auth.staff


CurrentStaff = Annotated[StaffUser, Depends(staff_by_token)]
POLICY_OWNER = "policy_owner"


def has_role(staff: StaffUser, role: str) -> bool:
    return role in (staff.roles or [])


async def policy_owner(staff: CurrentStaff) -> StaffUser:
    """Approving and withdrawing wording is for policy owners; other staff get 403."""
    if not has_role(staff, POLICY_OWNER):
        raise HTTPException(
            403, f"{staff.username} is not a policy owner; approving and withdrawing wording needs that role"
        )
    return staff


PolicyOwner = Annotated[StaffUser, Depends(policy_owner)]
