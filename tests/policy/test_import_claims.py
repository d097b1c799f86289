"""`python -m agent import-policies FILE.jsonl` takes claims and claim statuses beside policies,
as the README says and the intake API takes them (an insurer loading its open claims at
go-live): each new claim's access code is printed once and opens the claim; a claim no term
holds is loaded with the API's warning; bad lines name their field; loading again changes
nothing (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from agent.db.tables import Claim, IntakeAudit
from tests.policy.intake_support import two_term_policy
from tests.policy.test_import_policies import run_import

POLICY = "KM-MTR-970001"
LINES = [
    {"policy_number": POLICY, **two_term_policy()},
    {"claim_id": "CLM-970001", "policy_number": POLICY, "incident_date": "2026-02-10", "incident": "Hail."},
    {"claim_id": "CLM-970002", "policy_number": POLICY, "incident_date": None, "claimant_ref": "portal-77"},
    {"claim_id": "CLM-970003", "policy_number": "KM-MTR-979999", "incident_date": "2026-02-10"},
    {"claim_id": "CLM-970004", "policy_number": POLICY, "incident_date": "soon"},
    {"claim_id": "CLM-979999", "status": "closed"},
    {"claim_id": "CLM-970002", "status": "open"},
]


@pytest.mark.slow  # a process of its own
def test_claims_and_statuses_are_loaded_through_the_intake_code(live, database_url, tmp_path) -> None:
    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in LINES) + "\n", encoding="utf-8")

    first = run_import(database_url, path)
    assert first.returncode == 1, first.stderr
    assert "3 created, 0 updated, 1 unchanged, 3 bad lines" in first.stdout
    codes = dict(re.findall(r"^claim (CLM-\d+) access code \(shown once\): (\S+)$", first.stdout, re.M))
    assert set(codes) == {"CLM-970001", "CLM-970002"}
    errors = first.stderr.splitlines()
    assert "claims.jsonl: line 4: policy_number: no policy KM-MTR-979999; upsert the policy first" in errors
    assert any(
        e.startswith("claims.jsonl: line 5: incident_date: Input should be a valid date") for e in errors
    )
    assert "claims.jsonl: line 6: claim_id: no claim CLM-979999; load the claim first" in errors
    assert (
        "claims.jsonl: line 3: incident_date: no incident date: questions are routed to staff until it is "
        "known (loaded)" in errors
    )

    engine = create_engine(database_url)
    with Session(engine) as session:
        claims = {c.claim_id: c for c in session.scalars(select(Claim).where(Claim.claim_id.like("CLM-97%")))}
        actors = set(session.scalars(select(IntakeAudit.actor).where(IntakeAudit.subject.like("%97000%"))))
    engine.dispose()
    assert set(claims) == {"CLM-970001", "CLM-970002"}
    assert claims["CLM-970001"].status == "open" and claims["CLM-970002"].claimant_ref == "portal-77"
    assert actors == {"import:claims.jsonl"}
    with live.client(codes["CLM-970002"]) as claimant:  # the printed code opens its claim
        assert claimant.get("/claims/CLM-970002/messages").status_code == 200

    again = run_import(database_url, path)
    assert "0 created, 0 updated, 4 unchanged, 3 bad lines" in again.stdout
    assert "access code" not in again.stdout

    # Later, a claim closed in the insurer's system: a status line.
    statuses = tmp_path / "statuses.jsonl"
    statuses.write_text(json.dumps({"claim_id": "CLM-970001", "status": "closed"}) + "\n", encoding="utf-8")
    closed = run_import(database_url, statuses)
    assert closed.returncode == 0 and "0 created, 1 updated, 0 unchanged, 0 bad lines" in closed.stdout
    with live.client(codes["CLM-970001"]) as claimant:
        refused = claimant.post("/claims/CLM-970001/messages", json={"text": "Is hail covered?"})
    assert refused.status_code == 409, refused.text  # a closed claim's chat takes no new questions
