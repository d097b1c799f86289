"""Claimants signed in by the insurer: a short-lived JWT signed with the insurer's private key.

Checked here: an asymmetric signature (RS/ES/PS algorithms only, never `none` or HMAC) by
the configured public keys or the insurer's JWKS; issuer; audience; `exp` and `iat`
present, not expired, and a lifetime no longer than allowed; and the claim it grants, as a
`claim_id` claim or a `sub` matching the claim's claimant reference (set by the intake API).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from fastapi import HTTPException

from agent.db.tables import Claim
from agent.settings import Settings

log = logging.getLogger(__name__)
_PEM_END = "-----END PUBLIC KEY-----"


class TokenConfigError(ValueError):
    """The settings for insurer-signed tokens are incomplete; the message names the setting."""


class TokenRefused(Exception):
    """Why an insurer-signed token does not open this claim, in words safe to send back."""


def looks_like_jwt(token: str) -> bool:
    """Access codes have no dots; a JWT is three dot-separated parts."""
    return token.count(".") == 2


@dataclass(frozen=True)
class Grant:
    claim_id: str | None
    subject: str | None

    def opens(self, claim: Claim) -> bool:
        if self.claim_id is not None:
            return self.claim_id == claim.claim_id
        return self.subject is not None and self.subject == claim.claimant_ref


class InsurerKeys:
    """The insurer's JWKS, trusted for `cache_s` after each fetch and no longer: a key the
    insurer removed (revoked) is refused once that has passed, whatever a client still holds.
    A key ID the set does not hold (a rotation) fetches it again at once, though at most once
    every `refetch_s`, so made-up key IDs cannot turn each request into a fetch; after a
    failed fetch the next waits as long. One fetch at a time: concurrent requests wait for
    it rather than each making their own.

    PyJWKClient fetches and parses; it is not left to cache, since its per-key cache
    (`cache_keys`) never expires and its set cache's refresh pause is not a setting here."""

    def __init__(
        self,
        url: str,
        *,
        cache_s: float,
        refetch_s: float,
        timeout_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = jwt.PyJWKClient(url, cache_jwk_set=False, timeout=timeout_s)
        self.cache_s, self.refetch_s, self.clock = cache_s, refetch_s, clock
        self._keys: dict[str, Any] = {}
        self._expires_at = self._refetch_at = self._retry_at = float("-inf")
        self._lock = threading.Lock()

    def key(self, kid: object) -> Any:
        """The public key with this ID; jwt.PyJWKClientConnectionError when the set cannot be
        fetched and the cached one has expired, jwt.PyJWKClientError when no key has the ID."""
        kid = kid if isinstance(kid, str) else None  # a header's kid may be any JSON value
        with self._lock:
            now = self.clock()
            if now >= self._expires_at:
                self._keys = {}  # expired: trusted again only once fetched again
                self._fetch(now)
            elif kid not in self._keys and now >= self._refetch_at:
                self._fetch(now)
            found = self._keys.get(kid) if kid is not None else None
        if found is None:
            raise jwt.PyJWKClientError("no key of the insurer's JWKS has this key ID")
        return found

    def _fetch(self, now: float) -> None:
        if now < self._retry_at:
            raise jwt.PyJWKClientConnectionError("the insurer's JWKS failed a moment ago")
        try:
            fetched = self.client.get_signing_keys()
        except (jwt.PyJWKClientError, jwt.PyJWKSetError) as exc:
            self._retry_at = now + self.refetch_s
            if isinstance(exc, jwt.PyJWKClientConnectionError):
                raise
            raise jwt.PyJWKClientConnectionError(
                f"the insurer's JWKS is unusable: {type(exc).__name__}"
            ) from exc
        self._keys = {k.key_id: k.key for k in fetched}
        self._expires_at, self._refetch_at = now + self.cache_s, now + self.refetch_s
        log.info("insurer JWKS fetched: %d signing keys", len(self._keys))


class ClaimantTokens:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.keys: list[Any] = []
        self.jwks: InsurerKeys | None = None
        if settings.claimant_token_public_keys is not None:
            self.keys = load_keys(settings.claimant_token_public_keys)
        if settings.claimant_token_jwks_url:
            self.jwks = InsurerKeys(
                settings.claimant_token_jwks_url,
                cache_s=settings.claimant_token_jwks_cache_s,
                refetch_s=settings.claimant_token_jwks_refetch_s,
                timeout_s=settings.claimant_token_jwks_timeout_s,
            )
        if self.configured:
            missing = [
                name
                for name, value in (
                    ("CLAUSEDESK_CLAIMANT_TOKEN_ISSUER", settings.claimant_token_issuer),
                    ("CLAUSEDESK_CLAIMANT_TOKEN_AUDIENCE", settings.claimant_token_audience),
                )
                if not value
            ]
            if missing:
                raise TokenConfigError(
                    f"insurer-signed claimant tokens need {' and '.join(missing)}; set them with the keys"
                )

    @property
    def configured(self) -> bool:
        return bool(self.keys) or self.jwks is not None

    def grant(self, token: str) -> Grant:
        if not self.configured:
            raise TokenRefused("this service does not accept insurer-signed tokens")
        s = self.settings
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise TokenRefused("the token is not a readable JWT") from None
        if header.get("alg") not in s.claimant_token_algorithms:
            raise TokenRefused(
                f"token algorithm {str(header.get('alg'))[:20]!r} is not accepted; "
                f"sign with one of {', '.join(s.claimant_token_algorithms)}"
            )
        claims = self._decode(token)
        lifetime = claims["exp"] - claims["iat"]
        if lifetime > s.claimant_token_max_lifetime_s:
            raise TokenRefused(
                f"the token lives {int(lifetime)} s; at most {s.claimant_token_max_lifetime_s} s is accepted"
            )
        claim_id, subject = claims.get("claim_id"), claims.get("sub")
        if claim_id is None and subject is None:
            raise TokenRefused("the token grants no claim: it needs a claim_id or a sub claim")
        return Grant(str(claim_id) if claim_id is not None else None, str(subject) if subject else None)

    def _decode(self, token: str) -> dict[str, Any]:
        s = self.settings
        options = {"require": ["exp", "iat", "iss", "aud"]}
        kind = (
            ec.EllipticCurvePublicKey
            if str(jwt.get_unverified_header(token)["alg"]).startswith("ES")
            else (rsa.RSAPublicKey)
        )
        keys = [k for k in self.keys if isinstance(k, kind)]  # an RSA key cannot check ES256
        if self.jwks is not None:
            try:
                keys.append(self.jwks.key(jwt.get_unverified_header(token).get("kid")))
            except jwt.PyJWKClientConnectionError as exc:
                log.warning("insurer JWKS unreachable: %s", type(exc).__name__)
                if not keys:
                    raise TokenRefused("the insurer's signing keys cannot be fetched right now") from None
            except jwt.PyJWKClientError:
                if not keys:
                    raise TokenRefused("no signing key of the insurer matches this token") from None
        last: jwt.PyJWTError | None = None
        for key in keys:
            try:
                return jwt.decode(
                    token,
                    key,
                    algorithms=s.claimant_token_algorithms,
                    audience=s.claimant_token_audience,
                    issuer=s.claimant_token_issuer,
                    leeway=s.claimant_token_leeway_s,
                    options=options,  # type: ignore[arg-type]
                )
            except jwt.InvalidSignatureError as exc:
                last = exc  # another configured key may have signed it
            except jwt.ExpiredSignatureError:
                raise TokenRefused("the token has expired") from None
            except jwt.InvalidAudienceError:
                raise TokenRefused("the token is for another audience") from None
            except jwt.InvalidIssuerError:
                raise TokenRefused("the token is from another issuer") from None
            except jwt.MissingRequiredClaimError as exc:
                raise TokenRefused(f"the token lacks the {exc.claim} claim") from None
            except jwt.ImmatureSignatureError:
                raise TokenRefused("the token is not valid yet") from None
            except jwt.PyJWTError:
                raise TokenRefused("the token is not a valid JWT") from None
        log.info("insurer-signed token refused: %s", type(last).__name__ if last else "no key")
        raise TokenRefused("the token's signature does not match the insurer's keys")


def load_keys(path: Any) -> list[Any]:
    try:
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenConfigError(f"CLAUSEDESK_CLAIMANT_TOKEN_PUBLIC_KEYS: cannot read {path}: {exc}") from None
    blocks = [b.strip() + "\n" + _PEM_END for b in text.split(_PEM_END) if b.strip()]
    keys = []
    for n, block in enumerate(blocks, 1):
        try:
            keys.append(load_pem_public_key(block.encode()))
        except ValueError:
            raise TokenConfigError(
                f"CLAUSEDESK_CLAIMANT_TOKEN_PUBLIC_KEYS: key {n} in {path} is not a PEM public key"
            ) from None
    if not keys:
        raise TokenConfigError(f"CLAUSEDESK_CLAIMANT_TOKEN_PUBLIC_KEYS: {path} holds no public key")
    return keys


def insurer_signed_claim(tokens: ClaimantTokens, claim: Claim | None, claim_id: str, token: str) -> Claim:
    """The claim an insurer-signed token opens: 401 for a token that fails its checks, 404 for
    a good token that grants another claim (the same as an unknown claim)."""
    try:
        grant = tokens.grant(token)
    except TokenRefused as exc:
        raise HTTPException(
            401, f"insurer-signed token refused: {exc}", headers={"WWW-Authenticate": "Bearer"}
        ) from None
    if claim is None or not grant.opens(claim):
        raise HTTPException(404, f"no claim {claim_id} for this access token")
    return claim
