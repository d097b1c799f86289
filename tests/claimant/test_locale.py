"""The instructions name the wording's own insurer and country, from its header through the
directory; Kowhai's wording keeps its instructions word for word."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.claimant.agent import ClaimFacts, TurnDeps, claimant_agent, static_instructions
from agent.policy.schedule import ScheduleView
from knowledge.clauses import ClauseLibrary
from knowledge.ingest import ingest
from knowledge.manifest import Registry
from knowledge.source import parse_wording
from tests.claimant.test_dependencies import wording

FACTS = ClaimFacts("CLM-TEST", "TEST-1", "test", "Gold", "2026-01-01", "2027-01-01")


def instructions_for(store, text: str, tmp_path: Path) -> str:  # type: ignore[no-untyped-def]
    ingest(store, parse_wording(tmp_path / "boat.md", text))
    library = ClauseLibrary(store)
    manifest, _ = Registry(store).read()
    directory = library.directory(manifest.families["boat"]["2026.1"])
    seen: list[str] = []

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info.instructions or "")
        routed = {"outcome": "routed_to_staff", "route_reason": "no_clause_selected"}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, routed)])

    deps = TurnDeps(library, directory, ScheduleView("Gold", [], {}, {}, {}), FACTS, "Hello?")
    asyncio.run(claimant_agent.run(deps.message, deps=deps, model=FunctionModel(play)))
    return seen[0]


def test_instructions_name_the_wording_s_insurer_never_kowhai(store, tmp_path) -> None:
    sterling = wording().replace("insurer: Harbour Mutual", "insurer: Harbour Mutual\ncurrency: GBP")
    said = instructions_for(store, sterling, tmp_path)
    assert "a claimant of Harbour Mutual, a United Kingdom insurer," in said
    assert "Kowhai" not in said and "New Zealand" not in said


def test_kowhai_instructions_are_unchanged() -> None:
    assert static_instructions().startswith(
        "You answer a claimant of Kowhai Mutual, a New Zealand insurer, about"
    )
    assert static_instructions("Harbour Mutual", "CHF").startswith(
        "You answer a claimant of Harbour Mutual, about"
    )
