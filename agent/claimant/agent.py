"""The claimant agent: instructions, one tool (resolve_clauses), a structured reply.

The rules that must hold are not here but in `boundary`, run as the output validator.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import Field
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.tools import ToolDefinition

from agent.boundary.checks import Check, check_reply
from agent.boundary.reply import ClaimantReply
from agent.policy.schedule import ScheduleView
from knowledge.clauses import MAX_CLAUSES_PER_FETCH, ClauseLibrary, Directory, FetchedClause

PROMPTS = Environment(
    loader=FileSystemLoader(Path(__file__).parent / "prompts"),
    undefined=StrictUndefined,
    keep_trailing_newline=False,
)


@cache
def static_instructions(insurer: str = "Kowhai Mutual") -> str:
    return PROMPTS.get_template("instructions.j2").render(insurer=insurer).strip()


@dataclass
class TurnDeps:
    library: ClauseLibrary
    directory: Directory
    schedule: ScheduleView
    context: str
    fetched: dict[str, FetchedClause] = field(default_factory=dict)
    requested: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    attempts: list[list[Check]] = field(default_factory=list)


claimant_agent = Agent(
    deps_type=TurnDeps,
    output_type=ClaimantReply,
    instructions=static_instructions(),
    retries={"tools": 1, "output": 1},
    name="claimant",
)


# The store is blocking I/O: the tool hands it to a worker thread so the event loop that
# serves every other turn never waits on it.


@claimant_agent.instructions
async def turn_context(ctx: RunContext[TurnDeps]) -> str:
    return ctx.deps.context


async def _only_directory_ids(ctx: RunContext[TurnDeps], tool: ToolDefinition) -> ToolDefinition:
    """Offer this turn's directory IDs as an enum (membership is still checked in the tool)."""
    schema = dict(tool.parameters_json_schema)
    props = dict(schema.get("properties", {}))
    ids = dict(props.get("clause_ids", {}))
    ids["items"] = {"type": "string", "enum": [e.clause_id for e in ctx.deps.directory.entries]}
    props["clause_ids"] = ids
    schema["properties"] = props
    return dataclasses.replace(tool, parameters_json_schema=schema)


@claimant_agent.tool(prepare=_only_directory_ids)
async def resolve_clauses(
    ctx: RunContext[TurnDeps],
    clause_ids: Annotated[list[str], Field(max_length=MAX_CLAUSES_PER_FETCH)],
) -> dict[str, Any]:
    """Fetch up to three whole clauses of the claimant's governing policy wording by ID,
    with their schedule. Pass an empty list when no directory title fits the question."""
    deps = ctx.deps
    new = [cid for cid in dict.fromkeys(clause_ids) if cid not in deps.fetched]
    if len(set(deps.requested) | set(new)) > MAX_CLAUSES_PER_FETCH:
        raise ModelRetry(
            f"At most {MAX_CLAUSES_PER_FETCH} clauses per turn; already fetched "
            f"{', '.join(deps.fetched) or 'none'}."
        )
    deps.requested.extend(cid for cid in new if cid not in deps.requested)
    result = await asyncio.to_thread(deps.library.fetch, deps.directory, new)
    deps.not_found.extend(cid for cid in result.not_found if cid not in deps.not_found)
    for clause in result.clauses:
        deps.fetched[clause.clause_id] = clause
    sections = set(deps.schedule.sections)
    data = {
        "family": deps.directory.family,
        "version": deps.directory.version,
        "guidance_status": "clauses_returned" if deps.fetched else "no_clause_selected",
        "clauses": [
            {
                "clause_id": c.clause_id,
                "title": c.title,
                "text": c.text,
                "optional_section": c.schedule_section,
                "schedule_includes": c.schedule_section is None or c.schedule_section in sections,
            }
            for c in deps.fetched.values()
        ],
        "not_found": list(deps.not_found),
        "schedule": deps.schedule.as_tool_data(),
    }
    return data


@claimant_agent.output_validator
async def answer_boundary(ctx: RunContext[TurnDeps], reply: ClaimantReply) -> ClaimantReply:
    checks = check_reply(reply, ctx.deps.fetched, ctx.deps.schedule)
    ctx.deps.attempts.append(checks)
    failed = [c for c in checks if not c.passed]
    if failed:
        raise ModelRetry(
            "The reply broke the answer rules; fix it and answer again:\n"
            + "\n".join(f"- {c.name}: {c.detail}" for c in failed)
        )
    return reply
