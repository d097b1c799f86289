"""The intake API under concurrency (SQLite and PostgreSQL): requests fired at once, each pair
released together by a barrier, over several trials.

- Two PUTs of one policy whose terms overlap each other's: one is stored, the other refused
  (422), as when they come one after the other; never both.
- Two PUTs creating one claim: one creates it (201), the other gets what a repeat gets (200,
  nothing changed); never a 500.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from agent.db.tables import Claim, PolicyTerm
from agent.policy.terms import overlapping
from tests.policy.intake_support import integration_token

TRIALS = 10
POLICYHOLDER = "Aroha Ngata"  # synthetic


@pytest.fixture
def intake_url(live) -> tuple[str, str]:
    return live.url, integration_token(live)


def at_once(base_url: str, token: str, requests: list[tuple[str, dict]]) -> list[httpx.Response]:
    """PUT each (path, body) from its own thread and connection, all released together."""
    barrier = threading.Barrier(len(requests))

    def put(path: str, body: dict) -> httpx.Response:
        with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=60) as c:
            c.get("/health")  # the connection is open before the barrier: only the PUTs race
            barrier.wait()
            return c.put(path, json=body)

    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(lambda r: put(*r), requests))


def term(start: str, end: str) -> dict:
    return {"term_start": start, "term_end": end, "plan": "Comprehensive", "schedule": None}


def policy(*terms: dict) -> dict:
    return {"family": "motor", "policyholder": POLICYHOLDER, "terms": list(terms)}


def stored_terms(database_url: str, number: str) -> list[tuple]:
    engine = create_engine(database_url)
    with Session(engine) as session:
        rows = session.execute(
            select(PolicyTerm.term_start, PolicyTerm.term_end).where(PolicyTerm.policy_number == number)
        ).all()
    engine.dispose()
    return [tuple(r) for r in rows]


def trials(run: Callable[[int], list[httpx.Response]]) -> list[list[int]]:
    return [sorted(r.status_code for r in run(n)) for n in range(TRIALS)]


@pytest.mark.databases
def test_two_overlapping_terms_sent_at_once_store_one(live, intake_url, database_url) -> None:
    """Even trials race to create the policy; odd ones race to add a term to a stored one
    (a term neither request touches, so both merge with it)."""
    base_url, token = intake_url

    def race(n: int) -> list[httpx.Response]:
        number = f"KM-MTR-95{n:04d}"
        if n % 2:
            with live.client(token) as client:
                kept = client.put(
                    f"/integration/api/policies/{number}", json=policy(term("2023-01-01", "2024-01-01"))
                )
                assert kept.status_code == 201, kept.text
        first = policy(term("2025-01-01", "2026-01-01"))
        second = policy(term("2025-06-01", "2026-06-01"))  # overlaps the first's second half
        path = f"/integration/api/policies/{number}"
        return at_once(base_url, token, [(path, first), (path, second)])

    outcomes = trials(race)
    overlapping_stored = [
        n for n in range(TRIALS) if overlapping(stored_terms(database_url, f"KM-MTR-95{n:04d}"))
    ]
    assert overlapping_stored == [], f"policies with overlapping terms stored: {overlapping_stored}"
    assert all(o in ([200, 422], [201, 422]) for o in outcomes), outcomes


@pytest.mark.databases
def test_two_creates_of_one_claim_at_once_answer_as_a_repeat_does(live, intake_url, database_url) -> None:
    base_url, token = intake_url
    with live.client(token) as client:
        created = client.put(
            "/integration/api/policies/KM-MTR-960001", json=policy(term("2025-01-01", "2026-01-01"))
        )
        assert created.status_code == 201, created.text
    body = {"policy_number": "KM-MTR-960001", "incident_date": "2025-03-02", "incident": "Hail."}

    def race(n: int) -> list[httpx.Response]:
        return at_once(base_url, token, [(f"/integration/api/claims/CLM-96{n:04d}", body)] * 2)

    answers = [race(n) for n in range(TRIALS)]
    statuses = [sorted(r.status_code for r in pair) for pair in answers]
    assert statuses == [[200, 201]] * TRIALS, statuses
    for pair in answers:
        first, repeat = sorted(pair, key=lambda r: r.status_code, reverse=True)
        assert first.json()["created"] and first.json()["access_code"]
        # Exactly what the same PUT sent again afterwards answers.
        assert repeat.json()["created"] is False and repeat.json()["changed"] is False
        assert repeat.json()["access_code"] is None
    engine = create_engine(database_url)
    with Session(engine) as session:
        stored = session.scalars(select(Claim.claim_id).where(Claim.claim_id.like("CLM-96%"))).all()
    engine.dispose()
    assert len(stored) == TRIALS
