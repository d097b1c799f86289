"""The insurer rotates its signing keys: a key removed from its JWKS is refused once
`…_JWKS_CACHE_S` has passed, and a token signed with a key ID not seen yet fetches the JWKS
again at once, at most once every `…_JWKS_REFETCH_S` (a stranger sending made-up key IDs
cannot make the service hammer the insurer's endpoint)."""

from __future__ import annotations

import json
import time
import uuid

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from tests.conftest import make_live_app
from tests.support import JwksServer

ISSUER = "https://portal.kowhai.example"
AUDIENCE = "clausedesk"
CLAIM = "CLM-402118"
OLD, NEW = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())


def jwk(key, kid: str) -> dict:
    return {**json.loads(jwt.algorithms.ECAlgorithm.to_jwk(key.public_key())), "kid": kid, "use": "sig"}


def token(key, kid: str) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 300, "claim_id": CLAIM}
    return jwt.encode(body, key, algorithm="ES256", headers={"kid": kid})


@pytest.fixture
def jwks():
    served = JwksServer([jwk(OLD, "2026-old")])
    yield served
    served.stop()


def signed_in_app(sqlite_url, corpus_store, jwks, **settings):
    return make_live_app(
        sqlite_url,
        corpus_store,
        claimant_token_jwks_url=jwks.url,
        claimant_token_issuer=ISSUER,
        claimant_token_audience=AUDIENCE,
        **settings,
    )


def opens(server, bearer: str) -> int:
    with server.client(bearer) as client:
        return client.get(f"/claims/{CLAIM}/messages").status_code


def test_a_key_removed_from_the_jwks_is_refused_once_the_cache_time_has_passed(
    sqlite_url, corpus_store, jwks
) -> None:
    server = signed_in_app(sqlite_url, corpus_store, jwks, claimant_token_jwks_cache_s=1.0)
    try:
        assert opens(server, token(OLD, "2026-old")) == 200
        jwks.keys = [jwk(NEW, "2026-new")]  # the insurer revokes the old key
        time.sleep(1.2)  # past the cache time (the setting under test, not a race)
        refused = opens(server, token(OLD, "2026-old"))
        assert opens(server, token(NEW, "2026-new")) == 200
    finally:
        server.stop()
        server.app.state.engine.dispose()
    assert refused == 401


def test_a_new_key_id_fetches_the_jwks_again_at_most_once_per_interval(
    sqlite_url, corpus_store, jwks
) -> None:
    interval = 1.0
    server = signed_in_app(
        sqlite_url,
        corpus_store,
        jwks,
        claimant_token_jwks_cache_s=300.0,
        claimant_token_jwks_refetch_s=interval,
    )
    try:
        assert opens(server, token(OLD, "2026-old")) == 200 and jwks.hits == 1
        jwks.keys = [jwk(NEW, "2026-new")]  # rotated: the new key signs from now on
        time.sleep(interval + 0.1)  # past the refetch interval since the first fetch
        since = time.monotonic()
        assert opens(server, token(NEW, "2026-new")) == 200  # not waiting 300 s for it
        assert jwks.hits == 2
        # The fresh set no longer holds the old key: refused at once, cache time or not.
        assert opens(server, token(OLD, "2026-old")) == 401
        made_up = [opens(server, token(OLD, uuid.uuid4().hex)) for _ in range(20)]
        elapsed = time.monotonic() - since
    finally:
        server.stop()
        server.app.state.engine.dispose()
    assert set(made_up) == {401}
    # Twenty made-up key IDs fetch at most once per interval, however long they took.
    assert jwks.hits - 2 <= int(elapsed / interval), (jwks.hits, elapsed)
