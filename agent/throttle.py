"""Throttling with the `limits` library: moving windows per key, kept in memory by
default or in Redis (CLAUSEDESK_REDIS_URL), so several API processes share the counts.

When Redis cannot be reached no limit fails open and none fails closed: every rule falls
back to this process's own in-memory counts until Redis answers again. Failing open would
hand a password or access-code guesser unlimited tries for the length of an outage; failing
closed would refuse every login and every claimant request (a Redis outage becoming an
outage of the service). Counting per process keeps each limit, only multiplied by the
number of API processes while Redis is away; /health says so (`throttling`)."""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

from limits import RateLimitItem, parse_many
from limits.errors import StorageError
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from agent import metrics
from agent.settings import Settings

log = logging.getLogger(__name__)

# A Redis that does not answer within this is treated as down (each request waits at most
# this long once per retry interval, never a request's whole timeout).
REDIS_TIMEOUT_S = 0.25
# After a failure, Redis is tried again this often; in between, the counts stay in memory.
REDIS_RETRY_S = 5.0


class Throttled(Exception):
    """Too many attempts; retry_after is whole seconds until the window lets one through.
    `scope` names the limit for the metrics (agent.metrics.throttled)."""

    def __init__(self, what: str, retry_after: int, scope: str = "") -> None:
        self.what = what
        self.scope = scope
        self.retry_after = max(retry_after, 1)
        super().__init__(f"too many {what}; try again in {self.retry_after} s")


@dataclass(frozen=True)
class Rule:
    name: str  # what is counted, as the 429 message says it
    items: tuple[RateLimitItem, ...]
    scope: str  # the limit's short name, a label of clausedesk_throttled_total


@dataclass(frozen=True)
class Guard:
    """Wrong secrets for a subject (a claim's access code, a staff user's password), counted
    per client address, per subject and address, and per subject (Throttle.admit, .wrong).

    Past either of the first two even the right secret is refused from that address until
    the window passes, so guessing from one place gets nowhere. The subject's own count
    (guesses spread over many addresses) must not let a stranger lock its owner out: past it,
    an address that sent a wrong secret for the subject in the window is refused, while an
    address that sent none still has its secret checked, so the owner on a new address gets
    in and each guessing address gets one try a window."""

    address: Rule
    subject_address: Rule
    subject: Rule


class Throttle:
    def __init__(self, settings: Settings) -> None:
        self.memory = MovingWindowRateLimiter(MemoryStorage())
        self.shared = (
            MovingWindowRateLimiter(
                storage_from_string(
                    settings.redis_url,
                    key_prefix=settings.redis_key_prefix,
                    wrap_exceptions=True,
                    socket_connect_timeout=REDIS_TIMEOUT_S,
                    socket_timeout=REDIS_TIMEOUT_S,
                )
            )
            if settings.redis_url
            else None
        )
        self._shared_down_until = 0.0
        # Staff passwords, by the lower-cased user name (agent.staff.sessions.authenticate).
        self.login = Guard(
            address=Rule(
                "login attempts from this address", _parse(settings.limit_login_per_address), "login_address"
            ),
            subject_address=Rule(
                "login attempts for this account from this address",
                _parse(settings.limit_login_per_account_address),
                "login_account_address",
            ),
            subject=Rule(
                "login attempts for this account", _parse(settings.limit_login_per_account), "login_account"
            ),
        )
        # Claimants' access codes, by claim (agent.api.deps.claimant_claim).
        self.code = Guard(
            address=Rule(
                "wrong access codes from this address",
                _parse(settings.limit_access_code_per_address),
                "access_code_address",
            ),
            subject_address=Rule(
                "wrong access codes for this claim from this address",
                _parse(settings.limit_access_code_per_claim_address),
                "access_code_claim_address",
            ),
            subject=Rule(
                "wrong access codes for this claim",
                _parse(settings.limit_access_code_per_claim),
                "access_code_claim",
            ),
        )
        self.messages_claim = Rule(
            "messages on this claim", _parse(settings.limit_messages_per_claim), "messages_claim"
        )

    # The three ways a request is refused (hit, admit, wrong) each count the refusal once.

    def hit(self, rule: Rule, key: str) -> None:
        """Count one attempt; raise Throttled when it goes over any of the rule's limits."""
        with _counted():
            self._hit(rule, key)

    def _hit(self, rule: Rule, key: str) -> None:
        for item in rule.items:
            if not self._call("hit", item, rule.name, key):
                raise Throttled(rule.name, self._retry_after(item, rule.name, key), rule.scope)

    def check(self, rule: Rule, key: str) -> None:
        """Raise Throttled if the next attempt would be refused, without counting one."""
        for item in rule.items:
            if not self._call("test", item, rule.name, key):
                raise Throttled(rule.name, self._retry_after(item, rule.name, key), rule.scope)

    def counted(self, rule: Rule, key: str) -> bool:
        """Whether any attempt is counted against the key in the rule's windows."""
        stats = (self._call("get_window_stats", item, rule.name, key) for item in rule.items)
        return any(s.remaining < item.amount for s, item in zip(stats, rule.items, strict=True))

    def admit(self, guard: Guard, subject: str, address: str) -> None:
        """Raise Throttled if a secret for the subject from this address is not to be checked
        now (see Guard); counts nothing."""
        pair = _pair(subject, address)
        with _counted():
            self.check(guard.address, address)
            self.check(guard.subject_address, pair)
            if self._over(guard.subject, subject) and self.counted(guard.subject_address, pair):
                expiry = min(item.get_expiry() for item in guard.subject.items)
                raise Throttled(guard.subject.name, expiry, guard.subject.scope)

    def wrong(self, guard: Guard, subject: str, address: str) -> None:
        """Count a wrong secret; Throttled when that puts this address over its limits. The
        subject's own count never refuses here: it only narrows `admit` to the addresses
        that guessed."""
        with contextlib.suppress(Throttled):
            self._hit(guard.subject, subject)
        with _counted():
            self._hit(guard.address, address)
            self._hit(guard.subject_address, _pair(subject, address))

    def _over(self, rule: Rule, key: str) -> bool:
        try:
            self.check(rule, key)
        except Throttled:
            return True
        return False

    def shared_status(self) -> str:
        """For /health: where the counts are kept now."""
        if self.shared is None:
            return "ok: in memory, per process (no CLAUSEDESK_REDIS_URL)"
        try:
            reachable = self.shared.storage.check()
        except StorageError:
            reachable = False
        if reachable:
            return "ok: redis"
        return "degraded: redis unreachable; every limit is counted per process until it answers"

    def _retry_after(self, item: RateLimitItem, *identifiers: str) -> int:
        reset = self._call("get_window_stats", item, *identifiers).reset_time
        return math.ceil(reset - time.time())

    def _call(self, method: str, *args):  # type: ignore[no-untyped-def]
        if self.shared is not None and time.monotonic() >= self._shared_down_until:
            try:
                return getattr(self.shared, method)(*args)
            except StorageError as exc:
                self._shared_down_until = time.monotonic() + REDIS_RETRY_S
                why = type(exc.storage_error).__name__
                log.warning("throttle: redis unreachable (%s); counting in this process", why)
        return getattr(self.memory, method)(*args)


@contextlib.contextmanager
def _counted() -> Iterator[None]:
    try:
        yield
    except Throttled as exc:
        metrics.throttled(exc.scope)
        raise


def _pair(subject: str, address: str) -> str:
    return f"{subject} {address}"  # an address has no space: the last one splits the pair


def _parse(text: str) -> tuple[RateLimitItem, ...]:
    return tuple(parse_many(text))
