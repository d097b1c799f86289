"""The runtime composes the claimant's reply from a checked selection, on real clauses."""

from __future__ import annotations

from agent.boundary.checks import check_selection
from agent.boundary.citation import Citation
from agent.boundary.compose import compose
from agent.boundary.replies import NOTHING_DECIDED
from agent.boundary.selection import Point, Selection
from agent.boundary.statements import applicability
from agent.boundary.units import served_units, units
from agent.policy.schedule import ScheduleView
from knowledge.clauses import FetchedClause, verbatim

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
LEAD = "Honestly, you are fully covered and will be paid tomorrow."


def motor_schedule(*sections: str) -> ScheduleView:
    return ScheduleView(
        "Comprehensive",
        list(sections),
        {"standard": 750, "under_25_driver": 500},
        {"agreed_value": 14800},
        {"registration": "NBX907"},
        {"alternative_transport": "Alternative transport (hire car)", "standard": "Standard excess"},
    )


def contents_schedule(plan: str, *sections: str) -> ScheduleView:
    return ScheduleView(
        plan,
        list(sections),
        {"standard": 400},
        {"contents": 60000},
        {},
        {"portable_valuables": "Portable valuables away from home", "standard": "Standard excess"},
    )


def answer(*points: tuple[str, str], facts: tuple[str, ...] = (), lead: str | None = LEAD) -> Selection:
    return Selection(
        outcome="answered",
        points=[Point(clause_id=c, span=s) for c, s in points],
        schedule_facts=list(facts),
        lead=lead,
    )


def lines(composed) -> list[str]:
    return [line.quote for b in composed.blocks for line in b.lines]


def test_a_fragment_is_served_as_its_whole_sentence(motor) -> None:
    composed = compose(answer(("MTR-BEN-03", "NZD 60 a day")), motor, motor_schedule(), "2026.2")
    [served] = composed.blocks
    assert RATE in [line.text for line in served.lines] and f"“{RATE}”" in composed.text
    # The claimant reads the clause's title, never its ID.
    assert served.label.startswith("“Hire car, rental car") and "(your policy wording 2026.2)" in served.label
    assert "MTR-BEN-03" not in composed.text


def test_a_span_across_two_sentences_serves_both(motor) -> None:
    span = "or after it is stolen. We pay up to NZD 60 a day"
    [served] = compose(answer(("MTR-BEN-03", span)), motor, motor_schedule(), "2026.2").blocks
    texts = [line.text for line in served.lines]
    assert RATE in texts and any(
        t.startswith("We pay for a hire car") and t.endswith("stolen.") for t in texts
    )


def test_a_list_item_keeps_its_lead_in(motor) -> None:
    text = motor["MTR-COV-01"].text
    [item] = served_units(text, "loss of use, depreciation")
    assert item.text == "We do not cover: loss of use, depreciation, or loss of value after a repair"
    # The lead-in alone serves the items that complete it, never a bare "We do not cover:".
    whole = served_units(text, "We do not cover:")
    assert len(whole) == 4 and all(u.text.startswith("We do not cover: ") for u in whole)
    assert all(not u.text.startswith("#") for u in units(text))


def test_a_span_in_the_heading_only_is_not_servable(motor) -> None:
    title = motor["MTR-BEN-03"].title
    assert verbatim(title, motor["MTR-BEN-03"].text)
    assert served_units(motor["MTR-BEN-03"].text, title) == ()
    checks = check_selection(answer(("MTR-BEN-03", title)), motor, motor_schedule(), "rental?")
    assert {c.name for c in checks if not c.passed} == {"spans_verbatim"}


def test_a_standard_plan_claimant_never_reads_the_premier_figure_as_theirs(contents) -> None:
    premier_span = "Premier plan NZD 15,000 in total"
    composed = compose(
        answer(("CNT-LIM-01", premier_span)), contents, contents_schedule("Standard"), "2026.2"
    )
    [served] = composed.blocks
    # The whole row, never cut at the ";": both plans' figures, then the claimant's plan.
    assert lines(composed) == [
        "Jewellery and watches: Standard plan NZD 3,000 in total; Premier plan NZD 15,000 in total."
    ]
    assert served.notes == ("Your schedule shows the Standard plan.",)
    row = composed.text.index("Premier plan NZD 15,000")
    assert composed.text.index("Your schedule shows the Standard plan.") > row
    assert "NZD 15,000 in total." + "”" in composed.text  # never presented outside the row


def test_the_reply_opens_with_the_runtime_s_statement_for_each_clause(motor) -> None:
    selection = answer(("MTR-BEN-03", RATE))
    unlisted = compose(selection, motor, motor_schedule(), "2026.2")
    listed = compose(selection, motor, motor_schedule("alternative_transport"), "2026.2")
    title = motor["MTR-BEN-03"].title
    assert unlisted.blocks[0].applies.status == "not_included"
    assert unlisted.text.startswith(
        f"Your policy does not include “{title}”: "
        "your schedule does not list alternative transport (hire car)."
    )
    assert listed.blocks[0].applies.status == "included"
    assert listed.text.startswith(
        f"Your policy includes “{title}”: your schedule lists alternative transport (hire car), subject to "
        "the claim being accepted."
    )
    plain = compose(answer(("MTR-COV-01", "loss of use, depreciation")), motor, motor_schedule(), "2026.2")
    assert plain.blocks[0].applies.reason is None
    assert plain.statements == ("Your policy includes “Accident damage, theft and vandalism to your car”.",)
    exclusion = compose(answer(("MTR-EXC-02", "wear and tear")), motor, motor_schedule(), "2026.2")
    assert exclusion.text.startswith("This exclusion is part of your policy: “")


def test_applicability_reads_plans_and_endorsements_as_data() -> None:
    standard = contents_schedule("Standard", "sports_endorsement")
    assert applicability(("Premier",), (), (), (), standard).status == "not_included"
    assert applicability(("Standard",), (), (), (), standard).status == "included"
    assert applicability((), (), ("sports_endorsement",), (), standard).status == "excluded"
    assert applicability((), (), (), ("sports_endorsement",), standard).status == "changed"
    assert applicability((), ("portable_valuables",), (), (), standard).status == "not_included"
    nothing = applicability((), (), (), (), standard)
    assert (nothing.status, nothing.reason) == ("included", None)


def test_schedule_facts_are_served_with_their_labels(motor) -> None:
    composed = compose(answer(facts=("standard", "plan")), motor, motor_schedule(), "2026.2")
    assert [(f.label, f.value) for f in composed.facts] == [
        ("Standard excess", "NZD 750"),
        ("Plan", "Comprehensive"),
    ]
    assert "- Standard excess: NZD 750" in composed.text and composed.blocks == ()


def test_no_word_the_model_wrote_is_in_a_quoted_reply_and_the_lead_leads_an_explained_one(motor) -> None:
    selection = answer(("MTR-BEN-03", "NZD 60 a day"), facts=("standard",))
    quoted = compose(selection, motor, motor_schedule(), "2026.2")
    assert LEAD not in quoted.text and quoted.lead is None
    assert quoted.text.endswith(NOTHING_DECIDED)
    explained = compose(selection, motor, motor_schedule(), "2026.2", style="explained")
    assert explained.text.startswith(LEAD + "\n\n") and explained.lead == LEAD
    assert explained.text.endswith(NOTHING_DECIDED)


def test_composed_parts_are_data(motor) -> None:
    composed = compose(answer(("MTR-BEN-03", RATE), facts=("standard",)), motor, motor_schedule(), "2026.2")
    data = composed.as_dict()
    assert data["text"] == composed.text
    assert RATE in [line["text"] for line in data["blocks"][0]["lines"]]
    assert data["blocks"][0]["full_text"].startswith("This benefit applies only when your schedule lists")
    assert (
        Citation(clause_id="MTR-BEN-03", quote=RATE, title=motor["MTR-BEN-03"].title, version="2026.2")
        in composed.citations()
    )


# The selection's checks ---------------------------------------------------------------------------------


def failed(checks) -> set[str]:
    return {c.name for c in checks if not c.passed}


def test_each_rule_of_a_selection(motor) -> None:
    schedule = motor_schedule()
    question = "Can I get a rental car, and who pays the tow?"
    assert failed(check_selection(answer(("MTR-BEN-03", RATE)), motor, schedule, question)) == set()
    assert failed(check_selection(answer(("MTR-BEN-09", RATE)), motor, schedule, question)) == {
        "cited_were_fetched"
    }
    for span in ("We pay up to NZD 90 a day", "We pay", "We pay up to NZD 60 a d\u0430y"):
        assert failed(check_selection(answer(("MTR-BEN-03", span)), motor, schedule, question)) == {
            "spans_verbatim"
        }, span
    # Whitespace is all that verbatim forgives.
    spaced = "We pay up to\n  NZD 60 a day"
    assert failed(check_selection(answer(("MTR-BEN-03", spaced)), motor, schedule, question)) == set()
    too_many = answer(*[("MTR-BEN-03", RATE)] * 7)
    assert failed(check_selection(too_many, motor, schedule, question)) == {"points_within_limit"}
    borrowed = answer(("MTR-BEN-03", RATE), facts=("registration",))
    assert failed(check_selection(borrowed, motor, schedule, question)) == {"schedule_keys_exist"}
    empty = answer()
    assert failed(check_selection(empty, motor, schedule, question)) == {"answer_is_sourced"}
    part = answer(("MTR-BEN-03", RATE)).model_copy(update={"unanswered_part": "who pays the tow"})
    assert failed(check_selection(part, motor, schedule, question)) == set()
    invented = part.model_copy(update={"unanswered_part": "your claim is approved"})
    assert failed(check_selection(invented, motor, schedule, question)) == {
        "unanswered_part_is_the_claimants"
    }


def test_the_lead_is_checked_only_in_the_explained_style(motor) -> None:
    schedule = motor_schedule()
    selection = answer(("MTR-BEN-03", RATE), lead="Good news: your claim is approved.")
    assert failed(check_selection(selection, motor, schedule, "rental?")) == set()
    assert "no_claim_decision" in failed(check_selection(selection, motor, schedule, "rental?", "explained"))
    long = selection.model_copy(update={"lead": "It pays. " * 40})
    assert "lead_is_short" in failed(check_selection(long, motor, schedule, "rental?", "explained"))


def test_a_route_or_nothing_asked_has_nothing_to_check(motor) -> None:
    for outcome in ("routed_to_staff", "nothing_asked"):
        selection = Selection(outcome=outcome, points=[Point(clause_id="MTR-XXX-99", span="made up")])
        assert check_selection(selection, motor, motor_schedule(), "thanks") == []


LEVELS = ("Basic", "Essentials", "Comprehensive")


def leveled(clause_id: str, **applies) -> FetchedClause:
    text = f"## {clause_id} - Lost luggage\n\nWe pay for your luggage lost by an airline, up to NZD 3,000."
    return FetchedClause(clause_id, "Lost luggage", text, "travel", "2026.1", **applies)


def test_a_cover_level_nobody_recorded_is_said_as_unknown_never_as_included() -> None:
    """Issue 39 Build 5: with no applicability data for the clause, "Your policy includes" (or
    "does not include") says what the runtime does not know."""
    schedule = ScheduleView("Basic", [], {"standard": 100}, {}, {})
    selection = answer(("TRV-BEN-01", "We pay for your luggage lost by an airline"), lead=None)
    unknown = compose(selection, {"TRV-BEN-01": leveled("TRV-BEN-01")}, schedule, "2026.1", levels=LEVELS)
    [block] = unknown.blocks
    assert block.applies.status == "unknown"
    assert unknown.text.startswith("I can't tell from your policy records whether “Lost luggage”")
    assert "your Basic cover" in unknown.text and "includes" not in unknown.statements[0]
    # Recorded levels are stated as before; so is a wording that offers no levels.
    recorded = {"TRV-BEN-01": leveled("TRV-BEN-01", plans=("Essentials", "Comprehensive"))}
    assert compose(selection, recorded, schedule, "2026.1", levels=LEVELS).text.startswith(
        "Your policy does not include “Lost luggage”: it is only in the Essentials or Comprehensive plan"
    )
    plain = compose(selection, {"TRV-BEN-01": leveled("TRV-BEN-01")}, schedule, "2026.1")
    assert plain.text.startswith("Your policy includes “Lost luggage”.")
    # A definition or a general condition applies to every level as written.
    general = {"TRV-GEN-01": leveled("TRV-GEN-01")}
    selection = answer(("TRV-GEN-01", "We pay for your luggage lost by an airline"), lead=None)
    [block] = compose(selection, general, schedule, "2026.1", levels=LEVELS).blocks
    assert block.applies.status == "included"
