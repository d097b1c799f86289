"""No choice of sentences can bend the answer: whatever span a model selects, the runtime serves
it with what qualifies it in its clause, decided from the clause's text and structure. One
test per way a badly chosen sentence misleads, on Kowhai's own clauses."""

from __future__ import annotations

from agent.boundary.compose import Composed, compose
from agent.boundary.qualifiers import DEFINITION_NOTE
from agent.boundary.selection import Point, Selection
from agent.policy.schedule import ScheduleView
from knowledge.clauses import DirectoryEntry, FetchedClause
from tests.boundary.test_compose import contents_schedule, motor_schedule


def served(fetched: dict[str, FetchedClause], schedule: ScheduleView, clause_id: str, span: str) -> Composed:
    def lookup(cid: str) -> DirectoryEntry | None:
        c = fetched.get(cid)
        return DirectoryEntry(cid, c.title, "", None, plans=c.plans, added_by=c.added_by) if c else None

    selection = Selection(outcome="answered", points=[Point(clause_id=clause_id, span=span)])
    return compose(selection, fetched, schedule, "2026.2", lookup=lookup)


def texts(composed: Composed) -> list[str]:
    return [line.text for b in composed.blocks for line in b.lines]


def test_cover_for_other_parts_comes_with_the_part_that_broke_down(motor) -> None:
    reply = served(motor, motor_schedule(), "MTR-EXC-02", "we cover the accident damage to other parts")
    assert "We do not cover the part that broke down." in texts(reply)


def test_a_list_item_of_an_exception_list_brings_the_whole_list(motor) -> None:
    reply = served(motor, motor_schedule(), "MTR-EXC-02", "damage from putting the wrong fuel in the car")
    assert len([t for t in texts(reply) if t]) >= 6  # every item of "We do not cover:"
    assert "mechanical, electrical, electronic or computer breakdown or failure" in texts(reply)


def test_theft_of_the_car_comes_with_the_keys_exclusion(motor) -> None:
    reply = served(motor, motor_schedule(), "MTR-COV-01", "theft of the car")
    assert "theft when the keys were left in or on the car while no one was with it" in texts(reply)
    # Each lead-in once, above its items.
    assert reply.text.count("“We do not cover:”") == 1 and reply.text.count("“This includes:”") == 1


def test_these_causes_come_with_the_causes_they_mean(contents) -> None:
    reply = served(
        contents, contents_schedule("Standard"), "CNT-EXC-01", "we cover the damage the fire causes"
    )
    said = " ".join(texts(reply))
    assert "wear and tear" in said and "vermin" in said and "pets or animals" in said


def test_a_limit_comes_with_what_it_limits(contents) -> None:
    reply = served(
        contents, contents_schedule("Standard"), "CNT-COV-03", "The most we pay for one event is NZD"
    )
    assert any(t.startswith("We cover your legal liability") for t in texts(reply))


def test_a_limit_inside_a_paragraph_comes_with_the_sentence_it_opens_with(contents) -> None:
    reply = served(
        contents, contents_schedule("Standard"), "CNT-BEN-05", "The most we pay in one event is NZD 2,000"
    )
    topic = texts(reply)[0]
    assert topic.startswith("If your credit, debit or bank cards are lost or stolen")


def test_a_settlement_sentence_comes_with_its_condition(motor) -> None:
    reply = served(motor, motor_schedule(), "MTR-CLM-02", "The damaged car then belongs to us")
    assert any(t.startswith("For a total loss, we pay the market value") for t in texts(reply))


def test_a_definition_is_served_as_a_definition_never_as_cover(home) -> None:
    schedule = ScheduleView("Home Replacement", [], {"standard": 500}, {}, {})
    reply = served(home, schedule, "HOM-GEN-01", "appliances such as ovens")
    assert DEFINITION_NOTE in reply.blocks[0].notes


def test_a_reference_to_a_clause_the_claimant_lacks_says_so(motor) -> None:
    span = "except as MTR-BEN-03 provides while your car is being repaired"
    without = served(motor, motor_schedule(), "MTR-EXC-04", span)
    note = next(n for n in without.blocks[0].notes if "MTR-BEN-03" in n)
    assert "does not include" in note and "alternative transport" in note
    # The claimant reads the clause's title; its ID only ties it to the quoted words.
    assert note.startswith("Your policy does not include “Hire car")
    assert "(which the words above call MTR-BEN-03)" in note
    with_it = served(motor, motor_schedule("alternative_transport"), "MTR-EXC-04", span)
    assert next(n for n in with_it.blocks[0].notes if "MTR-BEN-03" in n).startswith("Your policy includes")


def test_the_statement_is_within_the_first_two_hundred_characters(motor, contents) -> None:
    for reply in (
        served(motor, motor_schedule(), "MTR-BEN-03", "NZD 60 a day"),
        served(contents, contents_schedule("Standard"), "CNT-LIM-01", "Premier plan NZD 15,000"),
    ):
        assert reply.text.index(reply.statements[0]) == 0 and len(reply.statements[0]) <= 200


def test_a_limit_with_nothing_before_it_is_named_by_the_runtime_from_the_title() -> None:
    text = "## LIA-LIM-01 - Liability to other people\n\nThe most we pay for one event is NZD 1,000,000."
    clause = FetchedClause("LIA-LIM-01", "Liability to other people", text, "liability", "2026.1")
    reply = served({"LIA-LIM-01": clause}, motor_schedule(), "LIA-LIM-01", "The most we pay")
    assert reply.blocks[0].notes == ("This limit is the one in “Liability to other people”.",)
