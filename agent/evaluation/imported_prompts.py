"""Prompt tokens on imported wordings, for the bench: the directory and the whole lookup
prompt (instructions, context, tool schemas, every message) for each plan of a wording.

The wordings are read at bench time from the folder CLAUSEDESK_WORDINGS names (by default
`../shared/wordings` beside the repository), imported, reviewed as accepted and ingested as
drafts into the bench's own store; nothing of their text is kept. For every plan, a
scripted model makes the costliest lookup each part allows: it opens the part (two-level
directories), fetches the part's three longest clauses and routes, so the largest request
of all is the worst a turn on that plan can send.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.claimant.agent import PARTS_TOOL, TOOL, ClaimFacts, TurnDeps, claimant_agent, returned_tools
from agent.claimant.directory import clause_lines, for_claimant
from agent.models.tokenizer import tokenizer
from agent.policy.schedule import ScheduleView
from knowledge.clauses import ClauseLibrary, Directory, DirectoryEntry
from knowledge.importing.pipeline import import_reviewed
from knowledge.ingest import ingest
from knowledge.manifest import Registry
from knowledge.store import ObjectStore

QUESTION = "What does my policy say about this?"


@dataclass(frozen=True)
class Wording:
    label: str
    file: str
    family: str
    version: str
    code: str
    supplement_pages: str | None = None  # a supplement bound in front, whose amendments apply


WORDINGS = (
    Wording("NRMA motor PDS 2022", "AU_NRMA_motor_PDS_2022.pdf", "nrma", "2022.1", "MTR", "3-6"),
    Wording(
        "AXA car booklet 2021", "UK_AXA_car_policy_booklet_2021-04.llamaparse.md", "axacar", "2021.1", "MTR"
    ),
)


def wordings_folder() -> Path:
    here = Path(__file__).resolve().parents[2]
    return Path(os.environ.get("CLAUSEDESK_WORDINGS", here.parent / "shared" / "wordings"))


def prompt_parts(info: AgentInfo, messages: list[ModelMessage]) -> dict[str, str]:
    """One request's text in three parts: instructions (with the context and the directory),
    tool schemas (the function tools and the output tool), messages."""
    parts: list[Any] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, ToolCallPart):
                parts.append(part.args_as_dict())
            elif hasattr(part, "content"):
                parts.append(part.content)
    return {
        "instructions": info.instructions or "",
        "tool schemas": tool_schemas(info),
        "messages": json.dumps(parts, default=str, ensure_ascii=False),
    }


def tool_schemas(info: AgentInfo) -> str:
    """The tool definitions a request carries (function tools and the output tool), as a
    provider is sent them: name, description, parameters."""
    tools = [
        {"name": t.name, "description": t.description, "parameters": t.parameters_json_schema}
        for t in [*info.function_tools, *info.output_tools]
    ]
    return json.dumps(tools, ensure_ascii=False)


def _facts(directory: Directory, schedule: ScheduleView) -> ClaimFacts:
    """A bench claim: what the context instructions are rendered from."""
    return ClaimFacts(
        "CLM-BENCH",
        "BENCH-1",
        directory.family,
        schedule.plan,
        "2021-05-01",
        "2022-05-01",
        "2021-09-18",
        "bench",
    )


def _longest(entries: tuple[DirectoryEntry, ...], library: ClauseLibrary, directory: Directory) -> list[str]:
    sizes = {e.clause_id: len(library.fetch(directory, [e.clause_id]).clauses[0].text) for e in entries}
    return sorted(sizes, key=lambda c: -sizes[c])[:3]


def _scripted(two_level: bool, part: int, picks: list[str], sizes: list[dict[str, int]]) -> FunctionModel:
    """Opens `part` (two levels), fetches `picks`, routes; counts every request it is sent, and
    whether it was a lookup (no clause returned yet)."""
    encoding = tokenizer()

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        counted = {k: len(encoding.encode(v)) for k, v in prompt_parts(info, messages).items()}
        returned = returned_tools(messages)
        # A request before any clause has come back is a lookup: the model chooses clauses from it.
        sizes.append({**counted, "whole": sum(counted.values()), "lookup": TOOL not in returned})
        if two_level and PARTS_TOOL not in returned:
            return ModelResponse(parts=[ToolCallPart(PARTS_TOOL, {"parts": [part]})])
        if TOOL not in returned:
            return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": picks})])
        routed = {"outcome": "routed_to_staff", "route_reason": "no_clause_selected"}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, routed)])

    return FunctionModel(play, model_name="worst-lookup")


def worst_lookup(library: ClauseLibrary, directory: Directory, schedule: ScheduleView) -> dict[str, int]:
    encoding = tokenizer()
    shown = for_claimant(directory, schedule)
    groups = [p.entries for p in shown.parts] if shown.two_level else [shown.directory.entries]
    largest: list[dict[str, int]] = []
    lookups: list[dict[str, int]] = []
    for n, entries in enumerate(groups, 1):
        picks = _longest(entries, library, shown.directory)
        sizes: list[dict[str, int]] = []

        model = _scripted(shown.two_level, n, picks, sizes)
        deps = TurnDeps(library, directory, schedule, _facts(directory, schedule), QUESTION)
        asyncio.run(claimant_agent.run(QUESTION, deps=deps, model=model))
        largest.append(max(sizes, key=lambda c: c["whole"]))
        lookups.append(max((c for c in sizes if c["lookup"]), key=lambda c: c["whole"]))
    return {
        "clauses_shown": len(shown.directory.entries),
        "levels": 2 if shown.two_level else 1,
        "directory_tokens": len(encoding.encode(shown.listing())),
        "part_listing_max_tokens": max(
            (len(encoding.encode(clause_lines(p.entries))) for p in shown.parts),
            default=0,
        ),
        "lookup_prompt_max_tokens": max(c["whole"] for c in lookups),
        "whole_prompt_max_tokens": max(c["whole"] for c in largest),
        "largest_request": {k: v for k, v in max(largest, key=lambda c: c["whole"]).items() if k != "lookup"},
    }


def measure_imported(store: ObjectStore) -> dict[str, Any]:
    """Per wording and plan, the directory and whole-prompt tokens; a wording that is not
    there is reported as missing, not measured."""
    folder = wordings_folder()
    library = ClauseLibrary(store)
    out: dict[str, Any] = {}
    for w in WORDINGS:
        path = folder / w.file
        if not path.exists():
            out[w.label] = {"missing": str(path)}
            continue
        _, source = import_reviewed(path, w.family, w.version, w.code, supplement_pages=w.supplement_pages)
        ingest(store, source)
        manifest, _ = Registry(store).read()
        directory = library.directory(manifest.families[w.family][w.version])
        plans = sorted({p for e in directory.entries for p in e.plans}) or ["(one plan)"]
        out[w.label] = {
            "units": len(directory.entries),
            "plans": {
                plan: worst_lookup(library, directory, ScheduleView(plan, [], {}, {}, {})) for plan in plans
            },
        }
    return out
