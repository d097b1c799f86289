"""The turn record: built from what a turn's steps returned (step 9), read back as what the
claimant is sent, and queried as the turn log (`python -m agent turns`)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic_ai.models import Model
from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from agent.boundary.citation import Citation
from agent.claimant.run import ModelRun
from agent.db.tables import Message, Turn, new_id, utcnow
from agent.models.errors import error_chain
from agent.models.selection import model_info, model_label
from agent.turn.inbox import StoredMessage
from agent.turn.steps import (
    NO_FETCH,
    ClaimFacts,
    Decision,
    TurnResult,
    Wording,
    WordingUnavailable,
)

# Kept out of a printed record: the model's own messages (replayed as history) are the bulk of
# every row and are read by the runner, not by people.
NOT_PRINTED = frozenset({"model_messages"})


def latest_turns(
    session: Session, *, claim_id: str | None = None, outcome: str | None = None, last: int = 20
) -> list[Turn]:
    """The latest `last` turns, oldest first, optionally of one claim or with one outcome."""
    query = select(Turn)
    if claim_id is not None:
        query = query.where(Turn.claim_id == claim_id)
    if outcome is not None:
        query = query.where(Turn.outcome == outcome)
    rows = session.scalars(query.order_by(Turn.started_at.desc(), Turn.id.desc()).limit(last)).all()
    return list(reversed(rows))


def as_record(turn: Turn) -> dict[str, Any]:
    """Every column of the record (but the model's messages), JSON-ready."""
    return {
        column.key: _plain(getattr(turn, column.key))
        for column in inspect(Turn).column_attrs
        if column.key not in NOT_PRINTED
    }


def as_line(turn: Turn) -> str:
    """One line a person scans: when, which claim, what came of it, from which wording."""
    release = f"{turn.family} {turn.version}" if turn.version else turn.family or "-"
    reason = f" ({turn.route_reason})" if turn.route_reason else ""
    cited = ",".join(turn.cited or []) or "-"
    latency = f"{turn.latency_ms:.0f} ms" if turn.latency_ms is not None else "-"
    return (
        f"{turn.started_at:%Y-%m-%d %H:%M:%S}  {turn.id}  {turn.claim_id:<14} "
        f"{(turn.outcome or '-') + reason:<40} {release:<16} cited {cited:<24} "
        f"{turn.model_name or '-'}  {latency}"
    )


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


# Writing (step 9) and reading back for the claimant ----------------------------------------------


def build_record(
    model: Model,
    message: StoredMessage,
    facts: ClaimFacts,
    wording: Wording | WordingUnavailable | None,
    run: ModelRun | None,
    decision: Decision,
    latency_ms: float,
) -> Turn:
    """The one turn record: what was seen, asked for, returned, selected, composed, checked
    and decided."""
    seen = wording if isinstance(wording, Wording) else None
    fetched = run.fetched if run else NO_FETCH
    attempts = [
        dict(c.as_dict(), attempt=n)
        for n, attempt in enumerate(run.attempts if run else (), 1)
        for c in attempt.checks
    ]
    final = [dict(c.as_dict(), attempt="release") for c in decision.checks]
    failure = decision.error or (run.failure if run else None)
    if isinstance(wording, WordingUnavailable):
        failure = wording.error
    citations = decision.citations()
    added = {b.clause_id for b in decision.composed.blocks if b.added} if decision.composed else set()
    return Turn(
        id=new_id(),
        claim_id=message.claim_id,
        message_id=message.id,
        started_at=message.received_at,  # the claimant's moment, not the runner's
        finished_at=utcnow(),
        family=facts.policy.family,
        version=seen.entry.version if seen else None,
        directory_hash=seen.entry.content_hash if seen else None,
        directory_seen=run.shown if run else [],
        requested=list(fetched.requested),
        returned=list(fetched.clauses),
        not_found=list(fetched.not_found),
        # The clauses the answer rests on: an exclusion the runtime added after the cover it
        # limits is served (in `citations`) but is no clause the model cited, so no verdict or
        # evidence counts it (issue 41).
        cited=list(dict.fromkeys(c.clause_id for c in citations if c.clause_id not in added)),
        citations=[c.as_dict() for c in citations],
        selection=_selection_of(run),
        composed=decision.composed.as_dict() if decision.composed else None,
        gate=decision.gate.as_dict() if decision.gate else None,
        checks=attempts + final,
        citations_verified=decision.citations_verified,
        guidance_status=guidance_status(decision, run),
        outcome=decision.outcome,
        route_reason=decision.route_reason,
        model_route_reason=decision.model_route_reason,
        model_name=model_label(model) if run else None,
        model_base_url=model_info(model).base_url if run else None,
        input_tokens=run.usage.input_tokens if run else 0,
        output_tokens=run.usage.output_tokens if run else 0,
        model_requests=run.requests_sent if run else 0,
        latency_ms=latency_ms,
        error=error_summary(failure) if failure else None,
        error_chain=error_chain(failure) if failure else [],
        model_messages=run.messages if run else [],
    )


def result_from(turn: Turn, reply: Message | None) -> TurnResult:
    """What the claimant is sent, from the saved record and reply (never from the model)."""
    return TurnResult(
        turn_id=turn.id,
        claim_id=turn.claim_id,
        reply=reply.body if reply else "",
        outcome=turn.outcome or "",
        citations=Citation.all_of(turn.citations),
        citations_verified=turn.citations_verified,
        release={"family": turn.family, "version": turn.version} if turn.version else None,
        waiting_list_reference=reply.waiting_list_reference if reply else None,
        model=turn.model_name,
        guidance_status=turn.guidance_status,
        route_reason=turn.route_reason,
        answered_in_part=turn.outcome == "answered" and bool(reply and reply.waiting_list_reference),
        answer=turn.composed if turn.outcome == "answered" else None,
    )


def guidance_status(decision: Decision, run: ModelRun | None) -> str:
    if decision.outcome in ("unavailable", "no_schedule"):
        return decision.outcome
    return "clauses_returned" if run and run.fetched.clauses else "no_clause_selected"


def _selection_of(run: ModelRun | None) -> dict[str, Any] | None:
    """What the model selected: its accepted selection, else its last attempt (a failed check)."""
    selection = run.selection or (run.attempts[-1].selection if run.attempts else None) if run else None
    return selection.model_dump(mode="json") if selection else None


def error_summary(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc)[:150]}"
