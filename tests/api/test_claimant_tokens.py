"""Claimants signed in by the insurer's portal with a short-lived JWT it signed: accepted on
the API as Bearer when every check passes, refused with the reason otherwise."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from agent.api.claimant_tokens import TokenConfigError
from agent.production import ProductionRefused, check_production
from agent.settings import Settings
from tests.conftest import TOKENS, make_live_app
from tests.policy.intake_support import integration_token
from tests.support import JwksServer, LiveServer

ISSUER = "https://portal.kowhai.example"
AUDIENCE = "clausedesk"
RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC_KEY = ec.generate_private_key(ec.SECP256R1())
STRANGER = rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(key) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def signed(key=RSA_KEY, alg: str = "RS256", *, lifetime: int = 300, age: int = 0, **claims) -> str:
    now = int(time.time()) - age
    body = {"iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + lifetime, **claims}
    return jwt.encode(body, key, algorithm=alg, headers={"kid": "k1"} if alg == "ES256" else None)


def unsigned(**claims) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 300, **claims}
    part = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()  # noqa: E731
    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(body)}."


def insurer_keys(folder: Path) -> Path:
    """The insurer's public keys (RSA and EC) in one PEM file in this folder."""
    path = folder / "insurer-keys.pem"
    path.write_bytes(public_pem(RSA_KEY) + public_pem(EC_KEY))
    return path


def portal_app(database_url: str, store, keys: Path, **settings: object) -> LiveServer:
    """The app accepting tokens the insurer's portal signed with the keys in this file (and any
    other settings given)."""
    return make_live_app(
        database_url,
        store,
        claimant_token_public_keys=keys,
        claimant_token_issuer=ISSUER,
        claimant_token_audience=AUDIENCE,
        **settings,
    )


@pytest.fixture
def keys_file(tmp_path):
    return insurer_keys(tmp_path)


@pytest.fixture
def signed_in(database_url, corpus_store, keys_file):
    server = portal_app(database_url, corpus_store, keys_file)
    yield server
    server.stop()
    server.app.state.engine.dispose()


def test_a_claimant_signed_in_by_the_insurer_asks_and_reads(signed_in) -> None:
    for token in (signed(claim_id="CLM-402118"), signed(EC_KEY, "ES256", claim_id="CLM-402118")):
        with signed_in.client(token) as client:
            reply = client.post(
                "/claims/CLM-402118/messages", json={"text": "What's the limit for jewellery?"}
            )
            conversation = client.get("/claims/CLM-402118/messages")
        assert reply.status_code == 200 and reply.json()["outcome"] == "answered", reply.text
        assert conversation.status_code == 200 and conversation.json()["messages"]
    with signed_in.client(TOKENS["CLM-402118"]) as client:  # access codes still work beside them
        assert client.get("/claims/CLM-402118/messages").status_code == 200


def test_sub_opens_the_claims_of_that_claimant_reference(signed_in) -> None:
    with signed_in.client(integration_token(signed_in)) as intake:
        response = intake.put(
            "/integration/api/claims/CLM-402117",
            json={
                "policy_number": "KM-CNT-402117",
                "incident_date": "2026-11-10",
                "incident": "Burglary; jewellery taken.",
                "claimant_ref": "portal-user-8841",
            },
        )
    assert response.status_code == 200 and response.json()["changes"]["claimant_ref"] == [
        None,
        "portal-user-8841",
    ]
    with signed_in.client(signed(sub="portal-user-8841")) as client:
        assert client.get("/claims/CLM-402117/messages").status_code == 200
        assert client.get("/claims/CLM-402118/messages").status_code == 404  # not this claimant's
    with signed_in.client(signed(sub="portal-user-0000")) as client:
        assert client.get("/claims/CLM-402117/messages").status_code == 404


@pytest.mark.parametrize(
    ("token", "status", "reason"),
    [
        (lambda: signed(claim_id="CLM-402118", age=400), 401, "the token has expired"),
        (lambda: signed(claim_id="CLM-402118", aud="another-service"), 401, "another audience"),
        (lambda: signed(claim_id="CLM-402118", iss="https://evil.example"), 401, "another issuer"),
        (lambda: unsigned(claim_id="CLM-402118"), 401, "algorithm 'none' is not accepted"),
        (lambda: signed(STRANGER, claim_id="CLM-402118"), 401, "signature does not match"),
        (lambda: signed(claim_id="CLM-402118", lifetime=86400), 401, "at most 3600 s"),
        (lambda: signed(claim_id="CLM-204518"), 404, "no claim CLM-402118 for this access token"),
        (lambda: signed(), 401, "grants no claim"),
        (
            lambda: jwt.encode(
                {"iss": ISSUER, "aud": AUDIENCE, "claim_id": "CLM-402118", "iat": 1, "exp": 2**31},
                "a-shared-secret-of-at-least-32-bytes!",
                algorithm="HS256",
            ),
            401,
            "algorithm 'HS256' is not accepted",
        ),
    ],
    ids=[
        "expired",
        "wrong-audience",
        "wrong-issuer",
        "unsigned",
        "other-key",
        "long-lived",
        "wrong-claim",
        "no-claim",
        "hmac",
    ],
)
def test_bad_tokens_are_refused_with_the_reason(signed_in, database_url, token, status, reason) -> None:
    with signed_in.client(token()) as client:
        response = client.post("/claims/CLM-402118/messages", json={"text": "Am I covered?"})
    assert response.status_code == status and reason in response.json()["detail"], response.text


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_keys_from_the_insurers_jwks_are_fetched_once_and_cached(database_url, corpus_store) -> None:
    public = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(EC_KEY.public_key()))
    jwks = JwksServer([{**public, "kid": "k1", "alg": "ES256", "use": "sig"}])
    server = make_live_app(
        database_url,
        corpus_store,
        claimant_token_jwks_url=jwks.url,
        claimant_token_issuer=ISSUER,
        claimant_token_audience=AUDIENCE,
    )
    try:
        for _ in range(3):
            with server.client(signed(EC_KEY, "ES256", claim_id="CLM-402118")) as client:
                assert client.get("/claims/CLM-402118/messages").status_code == 200
        assert jwks.hits == 1
        with server.client(signed(STRANGER, claim_id="CLM-402118")) as client:
            refused = client.get("/claims/CLM-402118/messages")
        assert refused.status_code == 401
    finally:
        jwks.stop()
        server.stop()
        server.app.state.engine.dispose()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_unreachable_jwks_is_refused_within_its_timeout(database_url, corpus_store) -> None:
    from agent.evaluation.localstore import free_port

    server = make_live_app(
        database_url,
        corpus_store,
        claimant_token_jwks_url=f"http://127.0.0.1:{free_port()}/jwks.json",
        claimant_token_jwks_timeout_s=1.0,
        claimant_token_issuer=ISSUER,
        claimant_token_audience=AUDIENCE,
    )
    try:
        started = time.monotonic()
        with server.client(signed(EC_KEY, "ES256", claim_id="CLM-402118")) as client:
            response = client.get("/claims/CLM-402118/messages")
        assert response.status_code == 401 and "cannot be fetched" in response.json()["detail"]
        assert time.monotonic() - started < 5
    finally:
        server.stop()
        server.app.state.engine.dispose()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_access_codes_can_be_turned_off(database_url, corpus_store, keys_file) -> None:
    server = portal_app(database_url, corpus_store, keys_file, claimant_access_codes=False)
    try:
        with server.client(TOKENS["CLM-402118"]) as client:
            refused = client.get("/claims/CLM-402118/messages")
        with server.client(signed(claim_id="CLM-402118")) as client:
            accepted = client.get("/claims/CLM-402118/messages")
        assert refused.status_code == 401 and "sign in through your insurer" in refused.json()["detail"]
        assert accepted.status_code == 200
    finally:
        server.stop()
        server.app.state.engine.dispose()


def test_incomplete_or_missing_sign_in_settings_are_refused(keys_file) -> None:
    from agent.api.claimant_tokens import ClaimantTokens

    with pytest.raises(TokenConfigError, match="CLAUSEDESK_CLAIMANT_TOKEN_AUDIENCE"):
        ClaimantTokens(Settings(claimant_token_public_keys=keys_file, claimant_token_issuer=ISSUER))
    not_a_key = keys_file.with_name("not-a-key.pem")
    not_a_key.write_text("-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----\n")
    with pytest.raises(TokenConfigError, match=r"key 1 in .* is not a PEM public key"):
        ClaimantTokens(Settings(claimant_token_public_keys=not_a_key))
    production = {"env": "production", "secret_key": "x" * 40}
    with pytest.raises(ProductionRefused, match="claimants have no way to sign in"):
        check_production(Settings(**production, claimant_access_codes=False))
    try:
        check_production(
            Settings(**production, claimant_access_codes=False, claimant_token_public_keys=keys_file)
        )
    except ProductionRefused as exc:
        assert "claimants have no way to sign in" not in str(exc)
