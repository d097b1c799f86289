"""The directory the model sees: this claimant's clauses (another cover level's marked as not
theirs), in one level while it is small, in two (parts, then a part's clauses on asking) when it
is not; the clause-ID enum stays small.

A synthetic wording of 180 clauses is made here (no real wording text); Kowhai's stays as it was.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.boundary.selection import NOT_THEIRS
from agent.claimant.agent import (
    CHOSEN,
    PARTS_TOOL,
    TOOL,
    ClaimFacts,
    TurnDeps,
    claimant_agent,
    fetched_in,
    returned_tools,
)
from agent.claimant.directory import (
    DIRECTORY_TOKENS,
    ENUM_MOST,
    PART_TOKENS,
    clause_lines,
    for_claimant,
    token_count,
)
from agent.policy.schedule import ScheduleView
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.ingest import ingest
from knowledge.manifest import Registry
from knowledge.source import load_sources, parse_wording
from tests.conftest import POLICIES

FACTS = ClaimFacts("CLM-TEST", "TEST-1", "test", "Gold", "2026-01-01", "2027-01-01")

PLANS = ("Gold", "Silver")
SUBJECTS = ("storm damage to the hull", "theft of the outboard engine", "towing after a breakdown")


def big_wording() -> str:
    """Six parts of 30 clauses: part 1 for Gold only, an endorsement, a note that is not citable."""
    lines = [
        "---",
        "family: boat",
        "code: BOT",
        "version: 2026.1",
        "document_id: HM-BOAT",
        "insurer: Harbour Mutual",
        "title: Harbour Mutual Boat Insurance",
        "kinds: COV, END, GEN",
        "---",
        "",
    ]
    n = 0
    for part in range(1, 7):
        lines += [f"# Part {part} - Section {part} of the boat policy", ""]
        for k in range(30):
            n += 1
            subject = SUBJECTS[k % 3]
            lines.append(
                f"## BOT-COV-{n:03d} - Section {part}, clause {k}: {subject} while moored or sailing"
            )
            if part == 1:
                lines.append("<!-- applies: plans=Gold -->")
            lines += ["", f"We pay for {subject} under section {part}, item {k}, up to the limit.", ""]
    lines += ["## BOT-END-01 - Endorsement 7, racing excluded from every section", ""]
    lines += ["<!-- applies: added_by=endorsement_7 -->", "", "We do not pay for racing.", ""]
    lines += ["## BOT-GEN-01 - How to read this booklet, a note", "", "<!-- applies: citable=no -->"]
    lines += ["", "This note explains the layout.", ""]
    return "\n".join(lines)


def directory_of(text: str, tmp_path: Path) -> Directory:
    source = parse_wording(tmp_path / "boat.md", text)
    entries = []
    from knowledge.clauses import DirectoryEntry

    for c in source.clauses:
        entries.append(
            DirectoryEntry(
                c.clause_id,
                c.title,
                c.sha256,
                None,
                c.part,
                plans=c.plans,
                added_by=c.added_by,
                citable=c.citable,
            )
        )
    return Directory(
        source.family, source.version, source.header["document_id"], source.content_hash, tuple(entries)
    )


def schedule(plan: str, *sections: str) -> ScheduleView:
    return ScheduleView(plan, list(sections), {}, {}, {})


def test_kowhai_directory_stays_one_level_with_its_ids_as_the_enum() -> None:
    [source] = [s for s in load_sources(POLICIES) if s.family == "motor" and s.version == "2026.2"]
    from knowledge.clauses import DirectoryEntry

    entries = tuple(
        DirectoryEntry(c.clause_id, c.title, c.sha256, None, plans=c.plans, added_by=c.added_by)
        for c in source.clauses
    )
    directory = Directory("motor", "2026.2", source.header["document_id"], source.content_hash, entries)
    shown = for_claimant(directory, schedule("Comprehensive"))
    assert not shown.two_level
    assert shown.listing() == "\n".join(f"{c.clause_id} {c.title}" for c in source.clauses)
    assert shown.id_schema()["enum"] == [c.clause_id for c in source.clauses]


def test_clauses_of_another_plan_are_marked_and_unlisted_endorsements_and_notes_left_out(
    tmp_path: Path,
) -> None:
    directory = directory_of(big_wording(), tmp_path)
    gold, silver = (for_claimant(directory, schedule(p)) for p in PLANS)
    ids = {p: {e.clause_id for e in v.directory.entries} for p, v in zip(PLANS, (gold, silver), strict=True)}
    # A Silver claimant's model may name a Gold-only clause: the runtime then says their policy
    # does not include it. Its line says so; the claimant's own clauses carry no mark.
    assert "BOT-COV-001" in ids["Gold"] and "BOT-COV-001" in ids["Silver"]
    assert len(ids["Gold"]) == 180 and len(ids["Silver"]) == 180
    first = next(p for p in silver.parts if any(e.clause_id == "BOT-COV-001" for e in p.entries))
    silver_lines = silver.lines(first.entries).splitlines()
    assert all(line.endswith(NOT_THEIRS) for line in silver_lines if line.startswith("BOT-COV-0"))
    assert NOT_THEIRS not in gold.lines(first.entries)
    assert "BOT-GEN-01" not in ids["Gold"] | ids["Silver"]  # not citable
    assert "BOT-END-01" not in ids["Gold"]
    listed = for_claimant(directory, schedule("Gold", "endorsement_7"))
    assert "BOT-END-01" in {e.clause_id for e in listed.directory.entries}


def test_a_large_directory_is_shown_in_two_levels_that_fit(tmp_path: Path) -> None:
    directory = directory_of(big_wording(), tmp_path)
    shown = for_claimant(directory, schedule("Gold"))
    assert token_count(clause_lines(shown.directory.entries)) > DIRECTORY_TOKENS and shown.two_level
    assert token_count(shown.listing()) < min(
        DIRECTORY_TOKENS, token_count(clause_lines(shown.directory.entries)) / 5
    )
    assert sum(len(p.entries) for p in shown.parts) == len(shown.directory.entries)
    assert all(token_count(clause_lines(p.entries)) <= PART_TOKENS for p in shown.parts)
    assert len(shown.parts) > 6  # parts over the budget are cut, at a change of subject
    # The clause-ID enum lists only what the model was shown; before any part is opened, a pattern.
    assert "enum" not in shown.id_schema() and "pattern" in shown.id_schema()
    opened = [e.clause_id for e in shown.parts[0].entries]
    assert shown.id_schema(opened)["enum"] == opened and len(opened) <= ENUM_MOST


def test_the_model_opens_a_part_then_fetches_and_an_unlisted_endorsement_is_not_found(
    store, tmp_path
) -> None:
    ingest(store, parse_wording(tmp_path / "boat.md", big_wording()))
    library = ClauseLibrary(store)
    manifest, _ = Registry(store).read()
    directory = library.directory(manifest.families["boat"]["2026.1"])
    seen: list[AgentInfo] = []

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(info)
        returned = returned_tools(messages)
        if PARTS_TOOL not in returned:
            return ModelResponse(parts=[ToolCallPart(PARTS_TOOL, {"parts": [1]})])
        if TOOL not in returned:
            return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": ["BOT-COV-001", "BOT-END-01"]})])
        routed = {"outcome": "routed_to_staff", "route_reason": "no_clause_selected"}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, routed)])

    deps = TurnDeps(library, directory, schedule("Silver"), FACTS, "Is theft of the engine covered?")
    result = asyncio.run(claimant_agent.run(deps.message, deps=deps, model=FunctionModel(play)))
    first, after_opening = seen[0], seen[1]
    assert {t.name for t in first.function_tools} == {TOOL, PARTS_TOOL}
    first_ids = next(t for t in first.function_tools if t.name == TOOL).parameters_json_schema
    assert "pattern" in first_ids["properties"]["clause_ids"]["items"]
    enum = next(t for t in after_opening.function_tools if t.name == TOOL).parameters_json_schema
    enum = enum["properties"]["clause_ids"]["items"]["enum"]
    assert "BOT-COV-001" in enum and "BOT-END-01" not in enum  # Silver lists no endorsement 7
    fetched = fetched_in(result.all_messages())
    assert list(fetched.clauses) == ["BOT-COV-001"] and fetched.not_found == ("BOT-END-01",)


def test_the_answering_request_carries_no_directory_listing_or_choosing_tools(store, tmp_path) -> None:
    """Once clauses have come back the model answers from them: the directory, the part
    listings and open_parts are withdrawn, resolve_clauses is a stub without parameters
    (providers refuse tool calls in a request that defines no tool) and a second fetch is
    refused. A fetch that found nothing leaves everything, so the model may choose again;
    a later turn is sent no listing of an earlier one."""
    ingest(store, parse_wording(tmp_path / "boat.md", big_wording()))
    library = ClauseLibrary(store)
    manifest, _ = Registry(store).read()
    directory = library.directory(manifest.families["boat"]["2026.1"])
    seen: list[tuple[AgentInfo, list[ModelMessage]]] = []

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append((info, list(messages)))
        last = messages[-1].parts
        returned = [p.tool_name for p in last if isinstance(p, ToolReturnPart) and p.outcome == "success"]
        if any(isinstance(p, UserPromptPart) for p in last):
            return ModelResponse(parts=[ToolCallPart(PARTS_TOOL, {"parts": [1]})])
        if returned == [PARTS_TOOL]:  # first a fetch of an ID the claimant's model may not name
            return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": ["BOT-END-01"]})])
        if returned == [TOOL] and not fetched_in(messages).clauses:
            return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": ["BOT-COV-031"]})])
        if returned == [TOOL]:  # the clauses are back: try to fetch more
            return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": ["BOT-COV-032"]})])
        routed = {"outcome": "routed_to_staff", "route_reason": "no_clause_selected"}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, routed)])

    deps = TurnDeps(library, directory, schedule("Silver"), FACTS, "Is theft of the engine covered?")
    first = asyncio.run(claimant_agent.run(deps.message, deps=deps, model=FunctionModel(play)))
    choosing, after_nothing, answering = seen[1][0], seen[2][0], seen[3]
    for info in (choosing, after_nothing):
        assert {t.name for t in info.function_tools} == {TOOL, PARTS_TOOL}
        assert "Clause directory:" in (info.instructions or "")
    info, messages = answering
    [stub] = info.function_tools
    assert (stub.name, stub.parameters_json_schema, stub.description) == (TOOL, {"type": "object"}, CHOSEN)
    assert "Clause directory:" not in (info.instructions or "")
    assert info.instructions and "Claim CLM-TEST, policy TEST-1" in info.instructions  # the context stays
    listing = [
        p for m in messages for p in m.parts if isinstance(p, ToolReturnPart) and p.tool_name == PARTS_TOOL
    ]
    assert [p.content["opened"] for p in listing] == [[1]] and "clauses" not in listing[0].content
    retried = [p for p in seen[4][1][-1].parts if isinstance(p, ToolReturnPart) and p.outcome == "retried"]
    assert [r.content for r in retried] == [CHOSEN]  # the second fetch was refused
    assert list(fetched_in(first.all_messages()).clauses) == ["BOT-COV-031"]

    seen.clear()
    later = TurnDeps(library, directory, schedule("Silver"), FACTS, "And towing?")
    asyncio.run(
        claimant_agent.run(
            later.message, deps=later, model=FunctionModel(play), message_history=first.all_messages()
        )
    )
    earlier = [
        p for m in seen[0][1] for p in m.parts if isinstance(p, ToolReturnPart) and p.tool_name == PARTS_TOOL
    ]
    assert earlier and all("clauses" not in p.content for p in earlier)
    assert {t.name for t in seen[0][0].function_tools} == {TOOL, PARTS_TOOL}  # a new turn chooses again


def test_another_levels_copy_of_a_subject_the_claimant_holds_is_not_listed(tmp_path: Path) -> None:
    """A wording written level by level repeats a benefit under each level's name: a Silver
    claimant must never be offered Gold's copy of what Silver's own clause covers (they would be
    told their policy does not include it), while a benefit only Gold has is offered, marked."""
    head = ["---", "family: boat", "code: BOT", "version: 2026.1", "document_id: HM-BOAT"]
    head += ["insurer: Harbour Mutual", "title: Harbour Mutual Boat Insurance", "kinds: COV, EXC", "---", ""]
    body: list[str] = []
    clauses = (
        ("BOT-COV-01", "Gold: Emergency repairs: we pay for urgent repairs", "Gold"),
        ("BOT-COV-02", "Gold: Hire of a replacement boat: we pay for hire", "Gold"),
        ("BOT-EXC-01", "Gold: Racing: we do not pay for racing", "Gold"),
        ("BOT-COV-03", "Silver: Emergency repairs: we pay for urgent repairs", "Silver"),
    )
    for cid, title, plan in clauses:
        body += [
            f"## {cid} - {title}",
            f"<!-- applies: plans={plan} -->",
            "",
            f"{title.split(': ')[-1]}.",
            "",
        ]
    directory = directory_of("\n".join(head + body), tmp_path)
    silver = for_claimant(directory, schedule("Silver"))
    assert [e.clause_id for e in silver.directory.entries] == ["BOT-COV-02", "BOT-COV-03"]
    assert silver.listing().splitlines() == [
        f"BOT-COV-02 Gold: Hire of a replacement boat: we pay for hire{NOT_THEIRS}",
        "BOT-COV-03 Silver: Emergency repairs: we pay for urgent repairs",
    ]
