"""The intake API for the insurer's policy and claims systems (role `integration`).

PUT is an upsert: the same request twice changes nothing and says so (`changed: false`);
every change is audited with the client's name. Create integration clients with
`python -m agent integration add NAME` (the token is printed once).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Path, Response
from fastapi.types import DecoratedCallable
from sqlalchemy.orm import Session

from agent.api.deps import LibraryDep, ServicesDep, api_router, bearer_token
from agent.api.schemas.common import error_responses, shape_of
from agent.api.schemas.intake import IntakeResult, PolicyOut, TermDates, TermOut
from agent.db.tables import Claim, IntegrationClient, Policy
from agent.policy import intake
from agent.policy.terms import terms_of

INTEGRATION = "integration"


def integration_client(svc: ServicesDep, token: Annotated[str, Depends(bearer_token)]) -> IntegrationClient:
    """An active integration client's token; staff and claimant tokens get 401."""
    with svc.sessions() as session:
        client = intake.client_by_token(session, token)
    if client is None:
        raise HTTPException(401, "not an integration token", headers={"WWW-Authenticate": "Bearer"})
    return client


Client = Annotated[IntegrationClient, Depends(integration_client)]

router = api_router("/integration/api", INTEGRATION, 400, 401, 413, 422)

PolicyNumber = Annotated[
    str, Path(pattern=r"^[A-Z0-9][A-Z0-9-]{1,39}$", description="The policy number, e.g. KM-MTR-204518")
]
ClaimId = Annotated[
    str, Path(pattern=r"^[A-Z0-9][A-Z0-9-]{1,39}$", description="The claim ID, e.g. CLM-204518")
]


def result(outcome: intake.Outcome, response: Response, **extra: Any) -> IntakeResult:
    response.status_code = 201 if outcome.created else 200
    return shape_of(IntakeResult, outcome, **extra)


def upsert(path: str, summary: str) -> Callable[[DecoratedCallable], DecoratedCallable]:
    """A PUT that creates the resource (201) or updates it (200); the endpoint answers with `result`."""
    return router.put(
        path,
        response_model=IntakeResult,
        responses={201: {"model": IntakeResult, "description": "created"}},
        summary=summary,
    )


def refused(exc: intake.IntakeRefused) -> HTTPException:
    return HTTPException(422, str(exc))


@upsert("/policies/{policy_number}", "Create or update a policy with its terms")
def put_policy(
    policy_number: PolicyNumber,
    body: intake.PolicyBody,
    client: Client,
    svc: ServicesDep,
    library: LibraryDep,
    response: Response,
) -> IntakeResult:
    """Terms are matched by `term_start`: a term sent again replaces the stored one, terms not
    sent are kept. Terms are half-open and may not overlap."""
    data = intake.PolicyIn(policy_number=policy_number, **body.model_dump())
    actor = f"{INTEGRATION}:{client.name}"
    try:
        warnings = intake.check_plans(library, data)
        outcome = intake.in_transaction(
            svc.sessions, lambda session: intake.upsert_policy(session, data, actor)
        )
    except intake.IntakeRefused as exc:
        raise refused(exc) from None
    return result(outcome, response, warnings=warnings)


@router.get("/policies/{policy_number}", response_model=PolicyOut, responses=error_responses(404))
def get_policy(policy_number: PolicyNumber, client: Client, svc: ServicesDep) -> PolicyOut:
    with svc.sessions() as session:
        policy = session.get(Policy, policy_number)
        if policy is None:
            raise HTTPException(404, f"no policy {policy_number}")
        terms = [TermOut.model_validate(t) for t in terms_of(session, policy_number)]
    return shape_of(PolicyOut, policy, terms=terms)


@upsert("/claims/{claim_id}", "Create or update a claim (policy, incident date, status, claimant reference)")
def put_claim(
    claim_id: ClaimId, body: intake.ClaimBody, client: Client, svc: ServicesDep, response: Response
) -> IntakeResult:
    data = intake.ClaimIn(claim_id=claim_id, **body.model_dump())
    actor = f"{INTEGRATION}:{client.name}"

    def upsert(session: Session) -> tuple[intake.Outcome, tuple[date, date] | None]:
        outcome = intake.upsert_claim(session, data, actor)
        return outcome, intake.claim_term_dates(session, session.get(Claim, claim_id))

    try:
        outcome, dates = intake.in_transaction(svc.sessions, upsert)
    except intake.IntakeRefused as exc:
        raise refused(exc) from None
    term = TermDates(term_start=dates[0], term_end=dates[1]) if dates else None
    return result(outcome, response, term=term, warnings=intake.claim_warnings(data, dates))


@router.put(
    "/claims/{claim_id}/status",
    response_model=IntakeResult,
    responses=error_responses(404),
    summary="Change a claim's status (a closed claim's chat takes no new questions)",
)
def put_status(
    claim_id: ClaimId, body: intake.StatusIn, client: Client, svc: ServicesDep, response: Response
) -> IntakeResult:
    try:
        with svc.sessions.begin() as session:
            outcome = intake.set_status(session, claim_id, body.status, f"{INTEGRATION}:{client.name}")
    except intake.ClaimMissing:
        raise HTTPException(404, f"no claim {claim_id}") from None
    return result(outcome, response)
