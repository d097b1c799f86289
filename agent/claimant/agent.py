"""The claimant agent: instructions, one tool (resolve_clauses), a selection as its output.

The rules that must hold are not here but in `boundary`, run as the output validator. The
dependencies carry the turn's inputs only: what was fetched travels in the tool's return
(`ToolReturn.metadata`, never sent to the model) and is read back from the run's messages.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Annotated, Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import Field, ValidationError
from pydantic_ai import Agent, ModelRetry, RunContext, ToolReturn
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.tools import ToolDefinition

from agent.boundary.checks import Check, check_selection
from agent.boundary.selection import PARTS_TOOL, TOOL, AnswerStyle, Selection
from agent.claimant.dependencies import clause_data, with_links
from agent.claimant.directory import MOST_PARTS, ModelDirectory, for_claimant
from agent.policy.schedule import ScheduleView
from knowledge.clauses import MAX_CLAUSES_PER_FETCH, ClauseLibrary, Directory, FetchedClause

PROMPTS = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "prompts"),
    undefined=StrictUndefined,
    keep_trailing_newline=False,
)
EARLIER_TEXTS_NOTE = "Clause texts of earlier turns are not evidence now; fetch again to cite."
LISTING_SENT_NOTE = "Listing sent once; not repeated."


# Where an insurer of a wording's currency is, for the instructions; another currency names none.
COUNTRY = {"NZD": "a New Zealand", "AUD": "an Australian", "GBP": "a United Kingdom", "EUR": "a European"}


@cache
def static_instructions(insurer: str = "Kowhai Mutual", currency: str = "NZD") -> str:
    """The instructions for a wording of this insurer and currency (its header's); the
    corpus's own wordings predate the currency header and are NZD."""
    return (
        PROMPTS.get_template("instructions.j2").render(insurer=insurer, country=COUNTRY.get(currency)).strip()
    )


@dataclass(frozen=True)
class ClaimFacts:
    """The claim as the model is told it (the context instructions render it)."""

    claim_id: str
    policy_number: str
    family: str
    plan: str
    term_start: object  # a date, or text where the caller has no term (the bench's)
    term_end: object
    incident_date: object | None = None
    incident: str = ""


@dataclass(frozen=True)
class TurnDeps:
    """The turn's inputs; nothing is written here during the run."""

    library: ClauseLibrary
    directory: Directory
    schedule: ScheduleView
    facts: ClaimFacts
    message: str  # the claimant's message this turn answers
    style: AnswerStyle = "quoted"

    @cached_property
    def shown(self) -> ModelDirectory:
        """The directory as this claimant's model sees it (other plans' clauses marked), worked
        out once a turn: every tool preparation and call reads it."""
        return for_claimant(self.directory, self.schedule)


@dataclass(frozen=True)
class Fetched:
    """What resolve_clauses fetched in one run: every call's metadata, folded together."""

    clauses: dict[str, FetchedClause]
    requested: tuple[str, ...]
    not_found: tuple[str, ...]


@dataclass(frozen=True)
class Attempt:
    """One selection the model returned in this run, and what the boundary found of it."""

    selection: Selection
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)


def this_run(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """The messages since the claimant's latest message (earlier turns are history)."""
    for n in range(len(messages) - 1, -1, -1):
        message = messages[n]
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            return list(messages[n:])
    return list(messages)


def fetched_in(messages: Sequence[ModelMessage]) -> Fetched:
    """Every clause resolve_clauses returned in this run, from its returns' metadata."""
    clauses: dict[str, FetchedClause] = {}
    requested: list[str] = []
    not_found: list[str] = []
    for message in this_run(messages):
        for part in getattr(message, "parts", []):
            if (
                isinstance(part, ToolReturnPart)
                and part.tool_name == TOOL
                and isinstance(part.metadata, Fetched)
            ):
                clauses.update(part.metadata.clauses)
                requested += [c for c in part.metadata.requested if c not in requested]
                not_found += [c for c in part.metadata.not_found if c not in not_found]
    return Fetched(clauses, tuple(requested), tuple(not_found))


def returned_tools(messages: Sequence[ModelMessage]) -> set[str]:
    """The names of the tools with a return among these messages, whatever its outcome: how far
    a scripted model has got."""
    return {
        p.tool_name
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    }


def attempts_in(messages: Sequence[ModelMessage], deps: TurnDeps) -> tuple[Attempt, ...]:
    """Each selection of this run with its checks, derived again from the messages (the
    checks are pure, so they find what the output validator found)."""
    found: list[Attempt] = []
    seen: list[ModelMessage] = []
    for message in this_run(messages):
        seen.append(message)
        if not isinstance(message, ModelResponse):
            continue
        selection = _selection_of(message)
        if selection is not None:
            fetched = fetched_in(seen).clauses
            checks = check_selection(selection, fetched, deps.schedule, deps.message, deps.style)
            found.append(Attempt(selection, tuple(checks)))
    return tuple(found)


def _selection_of(response: ModelResponse) -> Selection | None:
    """The structured output in a response: an output tool call, or JSON text (native and
    prompted output modes). None when it is neither, or does not fit the schema."""
    calls = [p for p in response.parts if isinstance(p, ToolCallPart) and p.tool_name != TOOL]
    try:
        if calls:
            return Selection.model_validate(calls[0].args_as_dict())
        if not any(isinstance(p, ToolCallPart) for p in response.parts):
            text = "".join(p.content for p in response.parts if isinstance(p, TextPart)).strip()
            return Selection.model_validate_json(text) if text.startswith("{") else None
    except (ValidationError, ValueError):
        return None
    return None


def chosen(messages: Sequence[ModelMessage]) -> bool:
    """Whether this run's fetch has returned clauses: the choice is made, and from here the
    model answers from them (the instructions ask for one fetch a turn)."""
    return bool(fetched_in(messages).clauses)


def only_what_answering_needs(messages: list[ModelMessage]) -> list[ModelMessage]:
    """History processor: what was sent for choosing is not sent again once chosen. Clause
    texts and part listings of earlier turns go (a later turn must fetch to cite); so do this
    run's part listings once its clauses have come back. This run's clauses stay whole."""
    current = len(messages) - len(this_run(messages))
    done = chosen(messages)
    out: list[ModelMessage] = []
    for n, message in enumerate(messages):
        if isinstance(message, ModelRequest) and n < current:
            parts = [_without_listing(_without_texts(p)) for p in message.parts]
            message = dataclasses.replace(message, parts=parts)
        elif isinstance(message, ModelRequest) and done:
            message = dataclasses.replace(message, parts=[_without_listing(p) for p in message.parts])
        out.append(message)
    return out


def _without_listing(part: Any) -> Any:
    if isinstance(part, ToolReturnPart) and part.tool_name == PARTS_TOOL and isinstance(part.content, dict):
        opened = [p["part"] for p in part.content.get("parts", []) if isinstance(p, dict) and "part" in p]
        return dataclasses.replace(part, content={"opened": opened, "note": LISTING_SENT_NOTE}, metadata=None)
    return part


def _without_texts(part: Any) -> Any:
    if isinstance(part, ToolReturnPart) and isinstance(part.content, dict) and "clauses" in part.content:
        bare = {
            key: [{k: v for k, v in c.items() if k != "text"} for c in part.content[key]]
            for key in ("clauses", "linked")
            if key in part.content
        }
        content = {**part.content, **bare, "note": EARLIER_TEXTS_NOTE}
        return dataclasses.replace(part, content=content, metadata=None)
    return part


async def _process_history(messages: list[ModelMessage]) -> list[ModelMessage]:
    # A coroutine, so pydantic-ai runs it on the event loop: a plain function it would send to
    # a worker thread and back on every model request, for work of microseconds.
    return only_what_answering_needs(messages)


claimant_agent = Agent(
    deps_type=TurnDeps,
    output_type=Selection,
    retries={"tools": 1, "output": 1},
    capabilities=[ProcessHistory(_process_history)],
    name="claimant",
)


@claimant_agent.instructions
async def wording_instructions(ctx: RunContext[TurnDeps]) -> str:
    """Named for the wording's own insurer, never Kowhai's when the header names another."""
    directory = ctx.deps.directory
    return static_instructions(directory.insurer or "Kowhai Mutual", directory.currency or "NZD")


@claimant_agent.instructions
async def turn_context(ctx: RunContext[TurnDeps]) -> str:
    """The claim facts and schedule summary, rendered from the turn's dependencies."""
    return render_context(ctx.deps.facts, ctx.deps.schedule, explained=ctx.deps.style == "explained")


def render_context(facts: ClaimFacts, schedule: ScheduleView, *, explained: bool = False) -> str:
    return (
        PROMPTS.get_template("context.j2")
        .render(
            facts=facts,
            schedule_summary=schedule.summary(),
            schedule_keys=schedule.keys(),
            explained=explained,
        )
        .strip()
    )


# Once clauses have come back, the directory, the part listings and the tools that choose
# are withdrawn: the answering request carries the question, the clauses and the output
# schema, not the material of a choice already made. It gives up the prompt-cache prefix
# of the first request and is about half its size; the instructions' one fetch a turn
# becomes the rule. resolve_clauses stays as a stub without parameters: Anthropic and
# Bedrock refuse a request whose messages hold tool calls but which defines no tool (the
# prompted and native output modes have no output tool).
CHOSEN = "Already called this turn: answer from the clauses it returned, or route."


@claimant_agent.instructions
async def directory_while_choosing(ctx: RunContext[TurnDeps]) -> str:
    if chosen(ctx.messages):
        return ""
    directory = ctx.deps.directory
    return f"Wording {directory.family} {directory.version}. Clause directory:\n{ctx.deps.shown.listing()}"


async def _only_directory_ids(ctx: RunContext[TurnDeps], tool: ToolDefinition) -> ToolDefinition:
    """Offer the IDs the model has been shown as an enum while they are few (membership is
    still checked in the tool); a stub once clauses have come back."""
    if chosen(ctx.messages):
        return dataclasses.replace(tool, description=CHOSEN, parameters_json_schema={"type": "object"})
    schema = dict(tool.parameters_json_schema)
    props = dict(schema.get("properties", {}))
    ids = dict(props.get("clause_ids", {}))
    ids["items"] = ctx.deps.shown.id_schema(opened_in(ctx.messages))
    props["clause_ids"] = ids
    schema["properties"] = props
    return dataclasses.replace(tool, parameters_json_schema=schema)


async def _two_levels_only(ctx: RunContext[TurnDeps], tool: ToolDefinition) -> ToolDefinition | None:
    return tool if ctx.deps.shown.two_level and not chosen(ctx.messages) else None


def opened_in(messages: Sequence[ModelMessage]) -> tuple[str, ...]:
    """The clause IDs that open_parts listed in this run."""
    ids: list[str] = []
    for message in this_run(messages):
        for part in getattr(message, "parts", []):
            if isinstance(part, ToolReturnPart) and part.tool_name == PARTS_TOOL and part.metadata:
                ids += [c for c in part.metadata if c not in ids]
    return tuple(ids)


@claimant_agent.tool(prepare=_two_levels_only)
async def open_parts(
    ctx: RunContext[TurnDeps], parts: Annotated[list[int], Field(max_length=MOST_PARTS)]
) -> ToolReturn:
    """List the clause IDs and titles of up to two parts of the wording, by part number."""
    found, unknown = ctx.deps.shown.open(parts)
    listed = tuple(e.clause_id for p in found for e in p.entries)
    data = {
        "parts": [
            {"part": p.number, "name": p.name, "clauses": ctx.deps.shown.lines(p.entries)} for p in found
        ],
        "not_found": unknown,
    }
    return ToolReturn(return_value=data, metadata=listed)


# The store is blocking I/O: the tool hands it to a worker thread so the event loop that
# serves every other turn never waits on it.


@claimant_agent.tool(prepare=_only_directory_ids)
async def resolve_clauses(
    ctx: RunContext[TurnDeps],
    clause_ids: Annotated[list[str], Field(max_length=MAX_CLAUSES_PER_FETCH)],
) -> ToolReturn:
    """Fetch up to three whole clauses of the claimant's governing policy wording by ID,
    with the definitions and clauses they link to (marked linked). Pass an empty list when
    no directory title fits the question."""
    # One fetch returns clauses a turn; a fetch that found nothing may be followed by another
    # within the cap (IDs asked for count, found or not).
    deps, before = ctx.deps, fetched_in(ctx.messages)
    if before.clauses:
        raise ModelRetry(CHOSEN)
    new = list(dict.fromkeys(clause_ids))
    if len(set(before.requested) | set(new)) > MAX_CLAUSES_PER_FETCH:
        raise ModelRetry(
            f"At most {MAX_CLAUSES_PER_FETCH} clauses per turn; already asked for "
            f"{', '.join(before.requested)}."
        )
    result = await asyncio.to_thread(deps.library.fetch, deps.shown.directory, new)
    linked = await asyncio.to_thread(
        with_links, deps.library, deps.shown.directory, result.clauses, deps.schedule
    )
    now = Fetched(
        {c.clause_id: c for c in [*result.clauses, *linked]},
        tuple(c for c in new if c not in before.requested),
        tuple(c for c in result.not_found if c not in before.not_found),
    )
    data = {
        "family": deps.directory.family,
        "version": deps.directory.version,
        "guidance_status": "clauses_returned" if result.clauses else "no_clause_selected",
        "clauses": [clause_data(c, deps.schedule, deps.directory.plans_named) for c in result.clauses],
        # What the named clauses link to (definitions, references), within the fetch budget.
        "linked": [clause_data(c, deps.schedule, deps.directory.plans_named) for c in linked],
        "not_found": [*before.not_found, *now.not_found],
    }
    return ToolReturn(return_value=data, metadata=now)


@claimant_agent.output_validator
async def answer_boundary(ctx: RunContext[TurnDeps], selection: Selection) -> Selection:
    deps = ctx.deps
    fetched = fetched_in(ctx.messages).clauses
    failed = [
        c
        for c in check_selection(selection, fetched, deps.schedule, deps.message, deps.style)
        if not c.passed
    ]
    if failed:
        raise ModelRetry(
            "The selection broke the answer rules; fix it and answer again:\n"
            + "\n".join(f"- {c.name}: {c.detail}" for c in failed)
        )
    return selection
