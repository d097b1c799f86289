"""Throttling with the `limits` library: moving windows per key, kept in memory by
default or in Redis (CLAUSEDESK_REDIS_URL), so several API processes share the counts."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from agent.settings import Settings


class Throttled(Exception):
    """Too many attempts; retry_after is whole seconds until the window lets one through."""

    def __init__(self, what: str, retry_after: int) -> None:
        self.what = what
        self.retry_after = max(retry_after, 1)
        super().__init__(f"too many {what}; try again in {self.retry_after} s")


@dataclass(frozen=True)
class Rule:
    name: str  # what is counted, as the 429 message says it
    items: tuple[RateLimitItem, ...]


class Throttle:
    def __init__(self, settings: Settings) -> None:
        self.storage: Storage = (
            storage_from_string(settings.redis_url, key_prefix=settings.redis_key_prefix)
            if settings.redis_url
            else MemoryStorage()
        )
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.login_account = Rule("login attempts for this account", _parse(settings.limit_login_per_account))
        self.login_address = Rule(
            "login attempts from this address", _parse(settings.limit_login_per_address)
        )
        self.code_address = Rule(
            "wrong access codes from this address", _parse(settings.limit_access_code_per_address)
        )
        self.code_claim = Rule(
            "wrong access codes for this claim", _parse(settings.limit_access_code_per_claim)
        )
        self.messages_claim = Rule("messages on this claim", _parse(settings.limit_messages_per_claim))

    def hit(self, rule: Rule, key: str) -> None:
        """Count one attempt; raise Throttled when it goes over any of the rule's limits."""
        for item in rule.items:
            if not self.limiter.hit(item, rule.name, key):
                raise Throttled(rule.name, self._retry_after(item, rule.name, key))

    def check(self, rule: Rule, key: str) -> None:
        """Raise Throttled if the next attempt would be refused, without counting one."""
        for item in rule.items:
            if not self.limiter.test(item, rule.name, key):
                raise Throttled(rule.name, self._retry_after(item, rule.name, key))

    def _retry_after(self, item: RateLimitItem, *identifiers: str) -> int:
        reset = self.limiter.get_window_stats(item, *identifiers).reset_time
        return math.ceil(reset - time.time())


def _parse(text: str) -> tuple[RateLimitItem, ...]:
    return tuple(parse_many(text))
