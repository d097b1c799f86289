"""Throttling (finding 4): staff logins per account and address, claimant access codes per
address and claim, claimant messages per claim; 429 with Retry-After; in memory by
default and in Redis when CLAUSEDESK_REDIS_URL is set, shared by several API processes."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import STAFF_PASSWORDS, TOKENS, make_live_app
from tests.staff.staff_web import csrf_of

REDIS_URL = "redis://127.0.0.1:6379/0"


@pytest.fixture(params=["memory", "redis"])
def throttle_store(request) -> dict:
    """Settings for each throttle store; Redis keys get a prefix of their own per test."""
    if request.param == "memory":
        return {}
    return {"redis_url": REDIS_URL, "redis_key_prefix": f"clausedesk-test-{uuid.uuid4().hex[:10]}"}


@pytest.fixture
def limited_live(database_url, corpus_store, throttle_store):

    server = make_live_app(database_url, corpus_store, **throttle_store)
    yield server
    server.stop()
    server.app.state.engine.dispose()


def test_twenty_wrong_passwords_are_throttled_and_then_the_right_one_is_refused(limited_live) -> None:
    with limited_live.client() as browser:
        csrf = csrf_of(browser.get("/staff/login"))
        statuses = [
            browser.post(
                "/staff/login", data={"username": "aroha.staff", "password": f"guess-{n}", "csrf": csrf}
            ).status_code
            for n in range(20)
        ]
        assert statuses[0] == 401 and statuses[-1] == 429
        assert set(statuses) == {401, 429}
        right = browser.post(
            "/staff/login",
            data={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"], "csrf": csrf},
        )
        assert right.status_code == 429
        assert int(right.headers["retry-after"]) >= 1
        assert "Too many login attempts" in right.text
        assert "clausedesk_staff" not in right.headers.get("set-cookie", "")

        # The API login counts against the same account.
        api = browser.post(
            "/staff/api/login", json={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"]}
        )
        assert api.status_code == 429 and int(api.headers["retry-after"]) >= 1
        assert api.json()["detail"].startswith("too many login attempts")


def test_access_code_guessing_is_throttled_per_address_and_claim(limited_live) -> None:
    live = limited_live
    statuses = []
    for n in range(40):
        with live.client(f"guess-{n}") as guesser:
            statuses.append(guesser.get("/claims/CLM-204518/messages").status_code)
    assert statuses[0] == 404 and statuses[-1] == 429
    assert set(statuses) == {404, 429}
    # While throttled, even the right code for that claim is refused.
    with live.client(TOKENS["CLM-204518"]) as claimant:
        refused = claimant.get("/claims/CLM-204518/messages")
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "wrong access codes" in refused.json()["detail"]


def test_guesses_spread_over_claims_are_throttled_per_address(limited_live) -> None:
    claims = list(TOKENS)
    statuses = []
    for n in range(60):
        with limited_live.client(f"guess-{n}") as guesser:
            statuses.append(guesser.get(f"/claims/{claims[n % len(claims)]}/messages").status_code)
    # 30 wrong codes from one address in a minute, whichever claims they were for.
    assert statuses[:30] == [404] * 30 and statuses[-1] == 429
    with limited_live.client(TOKENS["CLM-402118"]) as claimant:
        refused = claimant.get("/claims/CLM-402118/messages")
    assert refused.status_code == 429 and "wrong access codes from this address" in refused.json()["detail"]


def test_messages_on_one_claim_are_throttled(database_url, corpus_store, throttle_store) -> None:
    live = make_live_app(database_url, corpus_store, limit_messages_per_claim="3/minute", **throttle_store)
    try:
        with live.client(TOKENS["CLM-310442"]) as claimant:
            sent = [
                claimant.post("/claims/CLM-310442/messages", json={"text": f"What is my excess? ({n})"})
                for n in range(5)
            ]
            assert [r.status_code for r in sent] == [200, 200, 200, 429, 429]
            assert int(sent[3].headers["retry-after"]) >= 1
            assert sent[3].json()["detail"].startswith("too many messages on this claim")
            # Another claim is not affected.
        with live.client(TOKENS["CLM-402117"]) as other:
            assert (
                other.post("/claims/CLM-402117/messages", json={"text": "What is my excess?"}).status_code
                == 200
            )
    finally:
        live.stop()
        live.app.state.engine.dispose()


def test_a_retry_with_the_same_idempotency_key_is_not_another_message(
    database_url, corpus_store, throttle_store
) -> None:
    live = make_live_app(database_url, corpus_store, limit_messages_per_claim="2/minute", **throttle_store)
    try:
        with live.client(TOKENS["CLM-310442"]) as claimant:
            retried = [
                claimant.post(
                    "/claims/CLM-310442/messages",
                    json={"text": "What is my excess?"},
                    headers={"Idempotency-Key": "retry-1"},
                )
                for _ in range(4)
            ]
            assert [r.status_code for r in retried] == [200] * 4
            assert len({r.json()["turn_id"] for r in retried}) == 1
            # The four count as one message: one more goes through, the next is refused.
            fresh = [
                claimant.post("/claims/CLM-310442/messages", json={"text": f"And my sum insured? ({n})"})
                for n in range(2)
            ]
            assert [r.status_code for r in fresh] == [200, 429]
    finally:
        live.stop()
        live.app.state.engine.dispose()


def test_two_api_processes_share_limits_through_redis(database_url, corpus_store) -> None:
    shared = {"redis_url": REDIS_URL, "redis_key_prefix": f"clausedesk-test-{uuid.uuid4().hex[:10]}"}
    first = make_live_app(database_url, corpus_store, **shared)
    second = make_live_app(database_url, corpus_store, **shared)
    try:
        statuses = []
        for n in range(12):
            server = (first, second)[n % 2]
            with server.client(f"guess-{n}") as guesser:
                statuses.append(guesser.get("/claims/CLM-118230/messages").status_code)
        # 10 wrong codes per claim per minute in all, whichever process counted them.
        assert statuses == [404] * 10 + [429] * 2
    finally:
        for server in (first, second):
            server.stop()
            server.app.state.engine.dispose()
