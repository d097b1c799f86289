"""The one table of refusals as HTTP answers, installed on the app: a route lets a domain
error rise and the client gets its status and a plain detail."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from agent.answering.approval import ApprovalError
from agent.staff.answer_evidence import NotEvidence
from agent.staff.waiting_list import CitationRefused, ItemConflict, ItemNotFound, Stale, Unsendable
from agent.turn.inbox import ClaimNotFound
from agent.wording.lifecycle import ApprovalRefused
from knowledge.errors import (
    IntegrityError,
    KnowledgeError,
    KnowledgeUnavailable,
    NoGoverningVersion,
    ObjectMissing,
    RegistryError,
    VersionNotIngested,
)


def _unavailable(exc: Exception) -> str:
    return f"policy wording unavailable, try again: {type(exc).__name__}: {exc}"


# Most specific first is not needed: the app finds the handler of the nearest class in each
# error's MRO. Status is a number or a function of the error.
REFUSALS: tuple[tuple[type[Exception], int | Callable[[Exception], int], Callable[[Exception], str]], ...] = (
    (ClaimNotFound, 404, lambda e: f"no claim {e}"),
    (ItemNotFound, 404, str),
    (Stale, 409, str),
    (ItemConflict, 409, str),
    (CitationRefused, 422, lambda e: f"citation refused: {e}"),
    # Words a model wrote in a draft, unconfirmed or failing their checks at send time.
    (Unsendable, 422, str),
    (ApprovalRefused, 409, str),
    # Below the bar without a written reason, or a clause the version does not hold.
    (ApprovalError, 422, str),
    (NotEvidence, 409, str),
    (VersionNotIngested, 404, str),
    (RegistryError, 409, str),
    # The store cannot be read, or holds no usable wording for the claim: try again later.
    (KnowledgeUnavailable, 503, _unavailable),
    (IntegrityError, 503, _unavailable),
    (ObjectMissing, 503, _unavailable),
    (NoGoverningVersion, 503, _unavailable),
    (KnowledgeError, 409, str),
)


def install_refusals(app: FastAPI) -> None:
    for error, status, detail in REFUSALS:

        async def handler(_: Request, exc: Exception, status=status, detail=detail) -> JSONResponse:
            code = status(exc) if callable(status) else status
            return JSONResponse(status_code=code, content={"detail": detail(exc)})

        app.add_exception_handler(error, handler)
