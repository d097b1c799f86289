"""Asking the claimant agent (steps 4–6 of a turn): its context rendered, the run bounded by
the turn's deadline and usage limits, and what happened read back from the run's messages,
failed runs included."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from pydantic_ai import UsageLimits, capture_run_messages
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.usage import RunUsage

from agent import metrics
from agent.boundary.selection import AnswerStyle, Selection
from agent.claimant.agent import (
    Attempt,
    ClaimFacts,
    Fetched,
    TurnDeps,
    attempts_in,
    claimant_agent,
    fetched_in,
    opened_in,
)
from agent.claimant.directory import ModelDirectory
from agent.claimant.history import replayable
from agent.db.tables import Claim, Policy
from agent.models.errors import route_reason_for
from agent.policy.schedule import ScheduleView
from agent.policy.terms import TermInForce
from knowledge.clauses import ClauseLibrary, Directory

LIMITS = UsageLimits(request_limit=6, tool_calls_limit=4)


class CountedModel(WrapperModel):
    """Counts the requests a turn sends, failed ones included (pydantic-ai's usage counts
    only the requests that came back), and each failed one by kind for the metrics."""

    def __init__(self, wrapped: Model):
        super().__init__(wrapped)
        self.sent = 0

    async def request(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.sent += 1
        try:
            return await super().request(*args, **kwargs)
        except Exception as exc:
            metrics.model_error(route_reason_for(exc))
            raise


@dataclass(frozen=True)
class ModelRun:
    selection: Selection | None
    fetched: Fetched
    attempts: tuple[Attempt, ...]
    usage: RunUsage
    requests_sent: int
    messages: list[Any]
    # What this claimant's model was shown of the directory: the clauses it could name (one
    # level), or the parts and the clauses of the parts it opened (two levels).
    shown: list[dict[str, Any]]
    failure: BaseException | None = None


async def ask(
    model: Model,
    library: ClauseLibrary,
    directory: Directory,
    facts: tuple[Claim, Policy, TermInForce, ScheduleView],
    text: str,
    history: list[ModelMessage],
    *,
    style: AnswerStyle,
    deadline_s: float,
) -> ModelRun:
    """One run of the claimant agent on a claim's facts (claim, policy, term, schedule), which
    the agent's instructions render; every failure is kept in the run, never raised."""
    claim, policy, term, schedule = facts
    told = ClaimFacts(
        claim.claim_id,
        policy.policy_number,
        policy.family,
        term.plan,
        term.term_start,
        term.term_end,
        claim.incident_date,
        claim.incident,
    )
    deps = TurnDeps(library, directory, schedule, told, text, style)
    usage = RunUsage()  # filled in place, so failed runs still show what they used
    counted = CountedModel(model)  # and how many requests were really sent
    selection: Selection | None = None
    stored: list[Any] = []
    failure: BaseException | None = None
    with capture_run_messages() as messages:  # a failed run's messages too
        try:
            # The deadline bounds every request, tool call and retry of the run. asyncio's own
            # timeout: pydantic-ai's `timeout=` does the same at about 4 ms more per turn.
            async with asyncio.timeout(deadline_s) as deadline:
                result = await claimant_agent.run(
                    text, deps=deps, model=counted, usage_limits=LIMITS, usage=usage, message_history=history
                )
            selection, stored = result.output, replayable(result.new_messages())
        except Exception as exc:  # every failure is routed with a reason; never the claimant's
            failure = exc
            if deadline.expired():  # a request cut off by the deadline raised nothing of its own
                metrics.model_error("deadline")
    attempts = attempts_in(messages, deps)
    shown = shown_to_model(deps.shown, messages)
    return ModelRun(selection, fetched_in(messages), attempts, usage, counted.sent, stored, shown, failure)


def shown_to_model(shown: ModelDirectory, messages: list[ModelMessage]) -> list[dict[str, Any]]:
    """Exactly what the model was shown of the directory this turn (the turn record keeps it)."""
    if not shown.two_level:
        return shown.directory.listing()
    opened = set(opened_in(messages))
    parts = [{"part": p.number, "name": p.name} for p in shown.parts]
    return parts + [e for e in shown.directory.listing() if e["clause_id"] in opened]
