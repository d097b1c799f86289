"""A Third Party Fire and Theft claimant and a Comprehensive claimant asking the same question
about the AXA car booklet (imported from ../shared/wordings; no wording text here), with a
model that names the same clause for both: the Comprehensive claimant is answered from it,
included for their cover level; the Third Party Fire and Theft claimant's directory never
holds it (Part E is Comprehensive's only), so it is not found and the question is routed."""

from __future__ import annotations

import asyncio
import tomllib
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.boundary.compose import compose
from agent.claimant.agent import TOOL, TurnDeps, claimant_agent, fetched_in
from agent.policy.schedule import ScheduleView
from knowledge.clauses import ClauseLibrary
from knowledge.importer import import_reviewed
from knowledge.ingest import ingest
from knowledge.manifest import Registry
from tests.knowledge.test_import import CAR_2021
from tests.support import wording

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "someone broke into the car at the gym and took my bag. how much can I claim for my stuff?"


def schedules() -> dict[str, ScheduleView]:
    data = tomllib.loads((ROOT / "corpus/questions/imported/axa_car_policies.toml").read_text())
    out = {}
    for p in data["policy"]:
        s = p["schedule"]
        sections = [*s["sections"], *s["endorsements"]]
        out[p["plan"]] = ScheduleView(p["plan"], sections, s["excess"], s["sums_insured"], {}, s["labels"])
    return out


def ask(library: ClauseLibrary, directory, schedule: ScheduleView, clause_id: str):  # type: ignore[no-untyped-def]
    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = [
            p
            for m in messages
            if isinstance(m, ModelRequest)
            for p in m.parts
            if isinstance(p, ToolReturnPart)
        ]
        if not done:
            return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": [clause_id]})])
        named = [c for c in done[-1].content["clauses"] if c["clause_id"] == clause_id]
        if not named:
            selection = {"outcome": "routed_to_staff", "route_reason": "clause_not_in_directory"}
        else:
            line = next(
                x for x in named[0]["text"].splitlines()[1:] if len(x.split()) > 4 and "<!--" not in x
            )
            span = " ".join(line.lstrip("-•* ").split()[:4])
            selection = {"outcome": "answered", "points": [{"clause_id": clause_id, "span": span}]}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, selection)])

    deps = TurnDeps(library, directory, schedule, "context", QUESTION)
    return asyncio.run(claimant_agent.run(QUESTION, deps=deps, model=FunctionModel(play)))


def booklet(store, tmp_path: Path):  # type: ignore[no-untyped-def]
    _, source = import_reviewed(wording(CAR_2021), "axacar", "2021.1", "MTR")
    ingest(store, source)
    library = ClauseLibrary(store)
    return library, library.directory(Registry(store).read()[0].families["axacar"]["2021.1"])


def test_the_same_clause_gets_each_cover_level_its_own_status(store, tmp_path) -> None:
    library, directory = booklet(store, tmp_path)
    belongings = next(e for e in directory.entries if (e.part or "").startswith("Part E") and e.citable)
    assert belongings.plans == ("Comprehensive",)
    views = schedules()
    comprehensive = ask(library, directory, views["Comprehensive"], belongings.clause_id)
    tpft = ask(library, directory, views["Third Party Fire and Theft"], belongings.clause_id)

    assert comprehensive.output.outcome == "answered"
    fetched = fetched_in(comprehensive.all_messages())
    composed = compose(comprehensive.output, fetched.clauses, views["Comprehensive"], "2021.1")
    [served] = composed.clauses
    assert served.clause_id == belongings.clause_id and served.applicability.status == "included"
    assert "Comprehensive plan" in (served.applicability.sentence or "")

    assert tpft.output.outcome == "routed_to_staff"
    missed = fetched_in(tpft.all_messages())
    assert not missed.clauses and missed.not_found == (belongings.clause_id,)


def test_an_endorsement_the_schedule_lists_by_number_excludes_the_part_it_removes(store, tmp_path) -> None:
    """The Comprehensive schedule lists Endorsement 11 (injury benefits excluded) as
    `endorsement_11`, the entry the imported Part D clause is removed by."""
    library, directory = booklet(store, tmp_path)
    injury = next(e for e in directory.entries if (e.part or "").startswith("Part D") and e.citable)
    listed = schedules()["Comprehensive"]
    assert "endorsement_11" in listed.sections
    without = ScheduleView("Comprehensive", [s for s in listed.sections if s != "endorsement_11"], {}, {}, {})
    statuses = {}
    for name, schedule in (("listed", listed), ("without", without)):
        run = ask(library, directory, schedule, injury.clause_id)
        fetched = fetched_in(run.all_messages())
        composed = compose(run.output, fetched.clauses, schedule, "2021.1")
        statuses[name] = composed.clauses[0].applicability
    assert statuses["listed"].status == "excluded" and "removes this" in (statuses["listed"].sentence or "")
    assert statuses["without"].status == "included"
