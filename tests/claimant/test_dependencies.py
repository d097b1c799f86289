"""A fetched clause comes with its linked definitions and references, outside the three-clause
cap, within the turn's token budget; a link the claimant's plan leaves out is not fetched.
A synthetic wording is made here (no real wording text)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.claimant.agent import TOOL, ClaimFacts, TurnDeps, claimant_agent, fetched_in
from agent.claimant.dependencies import FETCH_TOKENS, cost, with_links
from agent.claimant.directory import for_claimant, token_count
from agent.policy.schedule import ScheduleView
from knowledge.clauses import ClauseLibrary
from knowledge.ingest import ingest
from knowledge.manifest import Registry
from knowledge.source import parse_wording

FACTS = ClaimFacts("CLM-TEST", "TEST-1", "test", "Gold", "2026-01-01", "2027-01-01")

MOORING = "A mooring is the fixed buoy or berth named on your schedule."
FILLER = "We pay for sudden damage to the hull and the engine while the boat is at its mooring. " * 14


def wording() -> str:
    head = ["---", "family: boat", "code: BOT", "version: 2026.1", "document_id: HM-BOAT"]
    head += ["insurer: Harbour Mutual", "title: Harbour Mutual Boat Insurance", "kinds: COV, DEF", "---", ""]
    clauses = [
        (
            "BOT-COV-01",
            "Storm damage to the hull at the mooring",
            "links=BOT-DEF-01,BOT-COV-09,BOT-COV-05",
            "x",
        ),
        ("BOT-COV-02", "Theft of the outboard engine from the mooring", "", "x"),
        ("BOT-COV-03", "Towing and salvage after an insured event", "links=BOT-DEF-01", "x"),
        ("BOT-COV-05", "Hull repairs at an approved boatyard", "", "long"),
        ("BOT-COV-09", "Racing cover for the Gold plan only", "plans=Gold", "x"),
        ("BOT-DEF-01", "Meaning of mooring in this policy", "", "def"),
    ]
    lines = list(head)
    for cid, title, applies, body in clauses:
        lines += [f"## {cid} - {title}"]
        lines += [f"<!-- applies: {applies} -->"] if applies else []
        text = {"def": MOORING, "long": FILLER, "x": f"We pay for {title.lower()} up to the limit."}[body]
        lines += ["", text, ""]
    return "\n".join(lines)


def boat_library(store, tmp_path: Path):  # type: ignore[no-untyped-def]
    ingest(store, parse_wording(tmp_path / "boat.md", wording()))
    library = ClauseLibrary(store)
    manifest, _ = Registry(store).read()
    return library, library.directory(manifest.families["boat"]["2026.1"])


def test_links_come_whole_within_the_budget_and_never_from_another_plan(store, tmp_path) -> None:
    library, directory = boat_library(store, tmp_path)
    silver = ScheduleView("Silver", [], {}, {}, {})
    shown = for_claimant(directory, silver).directory
    named = library.fetch(shown, ["BOT-COV-01"]).clauses
    linked = with_links(library, shown, named, silver)
    assert [c.clause_id for c in linked] == ["BOT-DEF-01", "BOT-COV-05"]  # COV-09 is Gold's only
    spent = cost(named[0], silver) + cost(linked[0], silver)
    # A budget with room for the definition but not the long clause brings the definition alone.
    tight = with_links(library, shown, named, silver, budget=spent + cost(linked[1], silver) - 1)
    assert [c.clause_id for c in tight] == ["BOT-DEF-01"]
    # The budget counts what the model is sent of each clause, not only its text.
    assert sum(cost(c, silver) for c in [*named, *linked]) <= FETCH_TOKENS
    assert all(cost(c, silver) > token_count(c.text) for c in [*named, *linked])


def test_a_linked_definition_is_fetched_beside_three_named_clauses_and_can_be_cited(store, tmp_path) -> None:
    library, directory = boat_library(store, tmp_path)
    returned: list[dict] = []

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = [
            p
            for m in messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart)
        ]
        if not done:
            return ModelResponse(
                parts=[ToolCallPart(TOOL, {"clause_ids": ["BOT-COV-01", "BOT-COV-02", "BOT-COV-03"]})]
            )
        returned.append(done[-1].content)
        answer = {
            "outcome": "answered",
            "points": [{"clause_id": "BOT-DEF-01", "span": "the fixed buoy or berth"}],
        }
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, answer)])

    schedule = ScheduleView("Gold", [], {}, {}, {})
    deps = TurnDeps(library, directory, schedule, FACTS, "What counts as my mooring?")
    result = asyncio.run(claimant_agent.run(deps.message, deps=deps, model=FunctionModel(play)))
    assert result.output.points[0].clause_id == "BOT-DEF-01"  # the answer boundary accepted it
    fetched = fetched_in(result.all_messages())
    assert fetched.requested == ("BOT-COV-01", "BOT-COV-02", "BOT-COV-03")
    assert {"BOT-DEF-01", "BOT-COV-09"} <= set(fetched.clauses)  # Gold: the racing link comes too
    [content] = returned
    assert [c["clause_id"] for c in content["clauses"]] == ["BOT-COV-01", "BOT-COV-02", "BOT-COV-03"]
    assert "BOT-DEF-01" in [c["clause_id"] for c in content["linked"]]
