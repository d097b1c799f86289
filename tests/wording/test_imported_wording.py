"""A wording brought in by `knowledge import` (the AXA UK car booklet, read from
../shared/wordings and never copied here) answers through the unchanged turn code: its
cover levels and endorsements decide what a claimant is told, and its release check asks the
owner's own inventory (corpus/questions/imported) on its own synthetic claimants."""

from __future__ import annotations

import asyncio
import copy
import uuid
from pathlib import Path
from typing import NamedTuple

import pytest
from sqlalchemy import select

from agent.answering.modes import set_mode
from agent.db.tables import Message, Turn, make_engine, make_sessionmaker, upgrade
from agent.models.offline import offline_model
from agent.security import new_token
from agent.seed import CLONE_PREFIX, clone_claim
from agent.turn.runner import TurnRunner
from agent.wording.questions import load_imported
from agent.wording.release_check import PinnedLibrary, render_text, run_release_check
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.manifest import Registry
from knowledge.store import ObjectStore
from tests.support import answer, first_sentence, route, scripted
from tests.wording.imported import FAMILY, VERSION, seed_claimants

pytestmark = pytest.mark.slow  # a real wording imported and its questions asked

COMP, TPFT, TPO = "AXA-TEST-COMP-01", "AXA-TEST-TPFT-01", "AXA-TEST-TPO-01"
WITHOUT_11 = "AXA-TEST-COMP-02"  # COMP's schedule without Endorsement 11, made in the test


@pytest.fixture(scope="module")
def directory(axa_store) -> Directory:
    manifest, _ = Registry(axa_store).read()
    return ClauseLibrary(axa_store).directory(manifest.entry(FAMILY, VERSION))


def first_of_part(directory: Directory, part: str) -> str:
    return next(e.clause_id for e in directory.entries if (e.part or "").startswith(part) and e.citable)


class Reply(NamedTuple):
    """What a claimant was told, and what the turn record says the runtime did."""

    outcome: str
    route_reason: str | None
    body: str
    returned: list[str]
    not_found: list[str]
    statuses: dict[str, str]  # each served clause's applicability status


def ask_each(
    store: ObjectStore,
    tmp_path: Path,
    picks: dict[str, tuple[str, str | None]],
    question: str = "Are my things stolen from the car covered?",
    *,
    also: tuple[dict, ...] = (),
    **fields: list[str],
) -> dict[str, Reply]:
    """The same question from each policy's claimant, with a model asking for the given clause
    and selecting the given span of it (or routing, when the span is None, as a model does when
    the clause is not returned): what differs is the runtime's reading of their schedules.
    `also`: claimants seeded beside the inventory's own."""
    engine = make_engine(f"sqlite:///{tmp_path / f'axa-{uuid.uuid4().hex[:6]}.db'}")
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    _, claimants = load_imported(FAMILY)
    claimants += also
    seeded = seed_claimants(sessions, claimants)
    with sessions.begin() as session:  # these tests read what is served; earning it is tested apart
        set_mode(session, FAMILY, VERSION, None, "answers", by="tests", reason="test fixture")
    manifest, _ = Registry(store).read()
    replies = {}
    for policy, (clause_id, span) in picks.items():
        claim_id = f"{CLONE_PREFIX}{uuid.uuid4().hex[:8]}-{seeded[policy]}"[:40]
        with sessions.begin() as session:
            clone_claim(session, seeded[policy], claim_id, new_token())
        model = scripted([clause_id], answer("", (clause_id, span), **fields) if span else route("", ""))
        runner = TurnRunner(sessions, PinnedLibrary(store, manifest.entry(FAMILY, VERSION)), model)
        result = asyncio.run(runner.run(claim_id, question))
        with sessions() as session:
            body = session.scalar(
                select(Message.body).where(Message.turn_id == result.turn_id, Message.role == "agent")
            )
            turn = session.get(Turn, result.turn_id)
            served = (turn.composed or {}).get("blocks", [])
            # the runtime's added exclusions aside: what the model chose
            statuses = {c["clause_id"]: c["applies"]["status"] for c in served if not c.get("added")}
            replies[policy] = Reply(
                result.outcome, turn.route_reason, body or "", turn.returned, turn.not_found, statuses
            )
    engine.dispose()
    return replies


def test_a_cover_level_without_the_part_is_told_so_and_one_with_it_is_not(
    axa_store, directory, tmp_path
) -> None:
    """Personal belongings (Part E) are Comprehensive only. The Comprehensive claimant is told
    the part applies; the Third Party Fire and Theft claimant's model sees it marked as another
    level's, and a claimant who asks is told their policy does not include it, and why; their
    own cover level's clause says what their policy leaves out."""
    belongings = first_of_part(directory, "Part E")
    entry = next(e for e in directory.entries if e.clause_id == belongings)
    assert entry.plans == ("Comprehensive",)
    own_level = next(e.clause_id for e in directory.entries if e.plans == ("Third Party Fire and Theft",))
    span = first_sentence(axa_store, directory, belongings)
    left_out = first_sentence(axa_store, directory, own_level, having="Part")
    replies = ask_each(
        axa_store, tmp_path, {COMP: (belongings, span), TPFT: (belongings, span), TPO: (own_level, left_out)}
    )
    comp = replies[COMP]
    assert comp.outcome == "answered" and span in comp.body
    assert comp.statuses == {belongings: "included"}
    assert "it is in the Comprehensive plan, which your schedule shows." in comp.body
    assert "does not include" not in comp.body
    tpft = replies[TPFT]
    assert tpft.outcome == "answered" and tpft.statuses == {belongings: "not_included"}
    assert tpft.body.startswith(
        f"Your policy does not include “{entry.title}”: it is only in the Comprehensive plan"
    )
    assert "your schedule shows the Third Party Fire and Theft plan" in tpft.body
    assert tpft.returned[0] == belongings and tpft.not_found == []  # its links follow it
    # The Third Party Fire and Theft level's own clause, chosen for a claimant on another level
    # (Third Party Only), is not theirs either: they are told so.
    assert replies[TPO].statuses == {own_level: "not_included"}
    assert "it is only in the Third Party Fire and Theft plan" in replies[TPO].body
    tpft = ask_each(axa_store, tmp_path, {TPFT: (own_level, left_out)})[TPFT]
    assert tpft.outcome == "answered" and left_out in tpft.body and "does not include" not in tpft.body
    # It is their level's clause; the fire and theft excess endorsement on their schedule changes it.
    assert "lists endorsement 16 (fire and theft excess), which sets out the change" in tpft.body


def test_an_exclusion_endorsement_on_the_schedule_removes_the_part_it_names(
    axa_store, directory, tmp_path
) -> None:
    """The Comprehensive schedule lists Endorsement 11 (injury benefits excluded) as
    `endorsement_11`, the entry the imported Part D clause is removed by; the same schedule
    without it leaves the part in."""
    injury = first_of_part(directory, "Part D")
    entry = next(e for e in directory.entries if e.clause_id == injury)
    assert "endorsement_11" in entry.removed_by
    _, claimants = load_imported(FAMILY)
    listed = next(c for c in claimants if c["policy_number"] == COMP)
    assert "endorsement_11" in listed["schedule"]["endorsements"]
    without = copy.deepcopy(listed)
    without["policy_number"] = WITHOUT_11
    without["claim"] |= {"claim_id": "CLM-AXA-COMP-02", "claimant_token": "test-claimant-axa-comp-02"}
    without["schedule"]["endorsements"].remove("endorsement_11")
    span = first_sentence(axa_store, directory, injury)
    replies = ask_each(
        axa_store, tmp_path, {COMP: (injury, span), WITHOUT_11: (injury, span)}, also=(without,)
    )
    comp = replies[COMP]
    assert comp.outcome == "answered" and comp.statuses == {injury: "excluded"}
    assert (
        "is removed from your policy: your schedule lists endorsement 11 (exclusion of injury benefits), "
        "which removes it." in comp.body
    )
    assert "Your policy includes" not in comp.body
    kept = replies[WITHOUT_11]
    assert kept.outcome == "answered" and kept.statuses == {injury: "included"}
    assert "removes this" not in kept.body


def test_the_release_check_of_an_imported_wording_asks_its_own_inventory(axa_store) -> None:
    questions, claimants = load_imported(FAMILY)
    assert len(questions) >= 30 and {c["policy_number"] for c in claimants} == {COMP, TPFT, TPO}
    report = run_release_check(axa_store, FAMILY, VERSION, model=offline_model(), created_by="test")
    rows = report.questions
    assert [r.id for r in rows] == [q.id for q in questions]
    assert {r.policy for r in rows} == {COMP, TPFT, TPO}  # each on a clone of its own claimant
    answerable = [r for r in rows if r.answerable]
    # The headings a question names map onto the imported units (the fetched/cited diagnostics).
    unmapped = [r.id for r in answerable if not r.expected]
    assert len(unmapped) <= len(answerable) // 10, unmapped
    right = report.summary.right.candidate
    served = [a for r in rows if (a := r.candidate) is not None and a.served]
    assert right is not None and right.served == len(served) > 0
    assert right.served_right == sum(bool(a.right) for a in served)
    assert right.answered_right_share == round(right.served_right / len(answerable), 4)
    text = render_text(report)
    assert "served answers right" in text and f"{len(rows)} inventory questions" in text


def test_a_cover_level_named_in_another_case_by_the_insurer_is_still_the_claimant_s(
    axa_store, directory, tmp_path
) -> None:
    """The booklet prints "Third Party only"; the insurer's system sends "Third Party Only"."""
    plans = {e.clause_id: [p.casefold() for p in e.plans] for e in directory.entries}
    third_party = next(e for e in directory.entries if plans[e.clause_id] == ["third party only"])
    span = first_sentence(axa_store, directory, third_party.clause_id)
    reply = ask_each(axa_store, tmp_path, {TPO: (third_party.clause_id, span)})[TPO]
    assert reply.outcome == "answered"
    assert "it is in the Third Party Only plan, which your schedule shows." in reply.body
    assert "does not include" not in reply.body


def test_schedule_amounts_are_in_the_governing_wording_s_currency(axa_store, directory, tmp_path) -> None:
    damage = first_of_part(directory, "Part A")
    span = first_sentence(axa_store, directory, damage)
    question = "What is my excess for damage to my car?"
    reply = ask_each(
        axa_store, tmp_path, {COMP: (damage, span)}, question, schedule_facts=["accidental_damage"]
    )[COMP]
    assert reply.outcome == "answered"
    # The schedule's own figure (Endorsement 13), in the booklet's currency, never as NZD.
    assert "GBP 350" in reply.body and "NZD" not in reply.body
