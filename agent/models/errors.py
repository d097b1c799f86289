"""Why a model call failed, in words the waiting list and the turn record keep.

`route_reason_for(exc)` names the reason a failed turn is routed with; `error_chain(exc)`
is what the turn record keeps of the failure: each wrapped cause's type and message,
truncated and scrubbed of secrets. Neither imports litellm, openai or httpx: exceptions
are recognised by pydantic-ai's types, Python's own, or the names of their classes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Literal

from pydantic import ValidationError
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelHTTPError,
    ModelRateLimitError,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
)

ModelReason = Literal[
    "model_timeout",
    "model_rate_limited",
    "model_server_error",
    "model_unreachable",
    "model_bad_output",
    "model_auth_error",
    "model_error",
]
MESSAGE_CHARS = 500
MAX_CHAIN = 12

# Class names (anywhere in an exception's MRO) from litellm, openai, httpx and aiohttp.
_TIMEOUT_NAMES = frozenset(
    {"APITimeoutError", "Timeout", "TimeoutException", "ModelRequestTimeout", "ServerTimeoutError"}
)
_UNREACHABLE_NAMES = frozenset(
    {"ConnectError", "ClientConnectorError", "ClientConnectionError", "APIConnectionError", "ConnectTimeout"}
)
_AUTH_NAMES = frozenset({"AuthenticationError", "PermissionDeniedError"})
_MISSING_CREDENTIALS = re.compile(r"missing credentials|api_key client option must be set|no api key", re.I)

_SECRETS = [
    (
        re.compile(r"(authorization|proxy-authorization)(['\"]?\s*[:=]\s*['\"]?)[^'\",}\n]+", re.I),
        r"\1\2[redacted]",
    ),
    (re.compile(r"\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}", re.I), r"\1 [redacted]"),
    (
        re.compile(
            r"(api[_-]?key|x-api-key|access[_-]?key|secret[_-]?key|token|password)(['\"]?\s*[:=]\s*['\"]?)[^'\",}&\s]+",
            re.I,
        ),
        r"\1\2[redacted]",
    ),
    (re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}"), "[redacted]"),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{8,}"), "[redacted]"),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), "[redacted]"),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{20,}"), "[redacted]"),
    (re.compile(r"(https?://)[^/\s:@]+:[^/\s@]+@"), r"\1[redacted]@"),
]


def causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception, then what it wraps (`__cause__`, else `__context__`), without loops."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < MAX_CHAIN:
        seen.add(id(current))
        yield current
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)


def _named(exc: BaseException, names: frozenset[str]) -> bool:
    return any(cls.__name__ in names for cls in type(exc).__mro__)


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def route_reason_for(exc: BaseException) -> ModelReason:
    """The waiting-list reason for a turn whose model call raised `exc`."""
    chain = list(causes(exc))
    if any(isinstance(e, TimeoutError) or _named(e, _TIMEOUT_NAMES) for e in chain):
        return "model_timeout"
    if any(_status(e) == 408 or _status(e) == 504 for e in chain):
        return "model_timeout"
    if any(isinstance(e, ConnectionRefusedError) or _named(e, _UNREACHABLE_NAMES) for e in chain):
        return "model_unreachable"
    if any(isinstance(e, ModelAuthenticationError) or _named(e, _AUTH_NAMES) for e in chain):
        return "model_auth_error"
    if any(_MISSING_CREDENTIALS.search(str(e)) for e in chain):
        return "model_auth_error"
    if any(isinstance(e, (UnexpectedModelBehavior, UsageLimitExceeded, ValidationError)) for e in chain):
        return "model_bad_output"  # empty reply, text for a tool call, bad arguments, endless tool calls
    if any(isinstance(e, json.JSONDecodeError) for e in chain):
        return "model_bad_output"  # a response body that is not JSON
    for e in chain:
        status = _status(e)
        if isinstance(e, ModelRateLimitError) or status == 429:
            return "model_rate_limited"
        if status in (401, 403):
            return "model_auth_error"
        if status is not None and status >= 500:
            return "model_server_error"
    return "model_error"


def error_chain(exc: BaseException) -> list[dict[str, object]]:
    """Each wrapped cause as {type, message} (plus status and retry_after where known),
    messages truncated to 500 characters and scrubbed of keys and credentials."""
    out: list[dict[str, object]] = []
    for e in causes(exc):
        entry: dict[str, object] = {
            "type": type(e).__name__,
            "message": scrub(_message(e))[:MESSAGE_CHARS],
        }
        if (status := _status(e)) is not None:
            entry["status"] = status
        retry_after = getattr(e, "retry_after", None)
        if retry_after is None and isinstance(e, ModelHTTPError):
            retry_after = (e.headers or {}).get("retry-after") if hasattr(e, "headers") else None
        if retry_after is not None:
            entry["retry_after"] = retry_after
        out.append(entry)
    return out


def _message(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, ModelAPIError) and getattr(exc, "body", None):
        text = f"{text} {exc.body}"
    return " ".join(text.split())


def scrub(text: str) -> str:
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


__all__ = ["ModelReason", "error_chain", "route_reason_for", "scrub"]
