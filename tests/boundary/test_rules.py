"""Each rule of the answer boundary on its own, on real clauses of the policy corpus."""

from __future__ import annotations

import pytest

from agent.boundary.checks import (
    FreeText,
    check_selection,
    figures_sourced,
    ids_in_text_cited,
    no_claim_decision,
    no_contact_details,
    schedule_respected,
    spans_verbatim,
    text_quotes_verbatim,
)
from agent.boundary.plaintext import fold
from agent.boundary.selection import Point, Selection
from agent.boundary.statements import clause_applicability, kind_of, statement
from agent.policy.schedule import ScheduleView
from knowledge.clauses import FetchedClause
from knowledge.source import load_sources
from tests.boundary.test_compose import motor_schedule
from tests.conftest import POLICIES

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
FUEL = "We do not pay for fuel, tolls, parking or fines."
SANCTIONED = "Your policy includes this benefit, subject to the claim being accepted."


@pytest.fixture(scope="module")
def motor() -> dict[str, FetchedClause]:
    [source] = [s for s in load_sources(POLICIES) if s.family == "motor" and s.version == "2026.2"]
    return {
        c.clause_id: FetchedClause(c.clause_id, c.title, c.text, "motor", "2026.2", added_by=c.added_by)
        for c in source.clauses
    }


LISTED, UNLISTED = motor_schedule("alternative_transport"), motor_schedule()


def reply(text: str, *citations: tuple[str, str], outcome: str = "answered") -> FreeText:
    """Words a model wrote (explained mode's lead) with the points they rest on."""
    return FreeText(text, tuple(Point(clause_id=c, span=q) for c, q in citations), outcome)


def check_reply(said: FreeText, fetched: dict[str, FetchedClause], schedule: ScheduleView) -> list:
    """The explained style's rules: the selection's, then the lead's."""
    selection = Selection(outcome=said.outcome, points=list(said.points), lead=said.text)
    return check_selection(selection, fetched, schedule, "rental?", "explained")


def failed(checks) -> dict[str, str]:
    return {c.name: c.detail for c in checks if not c.passed}


# Folding ---------------------------------------------------------------------------------------


def test_folding_reads_look_alikes_and_invisible_characters_as_plain_words() -> None:
    assert fold("Claim \u0430ppr\u043eved") == "claim approved"
    assert fold("app\u200broved \u2060") == "approved"
    assert fold("We\u2019ll pay \u201cin full\u201d") == 'we\'ll pay "in full"'
    assert fold("\uff43\uff4c\uff41\uff49\uff4d") == "claim"
    assert fold("MTR\u2011BEN\u201303") == "mtr-ben-03"
    assert fold("Ōtara") == "otara"


# Decisions --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Claim approved.",
        "Good news, we\u2019ll pay for the hire car.",
        "it\u2019s covered",
        "Kowhai Mutual has agreed to settle your claim in full.",
        "We accept your claim.",
        "Payment of NZD 60 a day is authorised.",
        "Decision: APPROVED",
        "You will receive the full payout.",
        "Your claim is \u0430pproved.",
        "Your claim is appr\u200boved.",
        "The hire car is not covered.",
        "We won't pay for the hire car.",
    ],
)
def test_the_issue_decision_phrasings_fail(motor, text: str) -> None:
    check = no_claim_decision(reply(f"{text} MTR-BEN-03 says: “{RATE}”", ("MTR-BEN-03", RATE)), motor)
    assert not check.passed and "decides the claim" in check.detail


def test_a_verbatim_quotation_of_a_cited_clause_is_wording_but_copied_words_are_not(motor) -> None:
    quote = "This benefit applies only when your schedule lists alternative transport."
    quoted = reply(f"MTR-BEN-03 says: “{RATE}” {SANCTIONED}", ("MTR-BEN-03", quote))
    assert no_claim_decision(quoted, motor).passed
    # Words of an uncited clause, or the quote's words outside quotation marks, are not exempt.
    cov = "We cover sudden and accidental loss of or damage to your car"
    assert not no_claim_decision(reply(f"“{cov}” so it is covered.", ("MTR-BEN-03", quote)), motor).passed
    copied = reply("Under MTR-BEN-03 we pay for a hire car, so we will pay for yours.", ("MTR-BEN-03", quote))
    assert not no_claim_decision(copied, motor).passed


def test_a_cited_clause_title_after_its_id_is_a_reference_not_a_decision() -> None:
    [source] = [s for s in load_sources(POLICIES) if s.family == "contents" and s.version == "2026.2"]
    clause = next(c for c in source.clauses if c.clause_id == "CNT-GEN-01")
    fetched = {"CNT-GEN-01": FetchedClause(clause.clause_id, clause.title, clause.text, "contents", "2026.2")}
    title = clause.title  # "What contents are covered, plans and your schedule"
    quote = "This policy insures your contents at the home address shown in your schedule."
    ref = reply(f"CNT-GEN-01 ({title}) describes your contents cover.", ("CNT-GEN-01", quote))
    assert no_claim_decision(ref, fetched).passed
    # The title's words anywhere else are the reply's own words.
    assert not no_claim_decision(reply(f"Here: {title}.", ("CNT-GEN-01", quote)), fetched).passed


# Clause IDs, quotations, figures, contacts ----------------------------------------------------------


def test_every_clause_id_in_the_text_must_be_cited(motor) -> None:
    text = f"Under MTR-XXX-99 and mtr\u2013ben\u201301 the rate is as quoted. {SANCTIONED}"
    invented = reply(text, ("MTR-BEN-03", RATE))
    check = ids_in_text_cited(invented, motor)
    assert not check.passed and "MTR-XXX-99" in check.detail and "MTR-BEN-01" in check.detail
    assert ids_in_text_cited(reply("MTR-BEN-03 sets the rate.", ("MTR-BEN-03", RATE)), motor).passed


def test_quotations_in_the_text_must_be_verbatim_in_fetched_wording_or_the_schedule(motor) -> None:
    fake = reply("MTR-BEN-03 says: “We pay up to NZD 6,000 a day.”", ("MTR-BEN-03", RATE))
    check = text_quotes_verbatim(fake, motor, LISTED)
    assert not check.passed and "6,000" in check.detail
    single = reply("The wording says 'we pay for everything you ask'.", ("MTR-BEN-03", RATE))
    assert not text_quotes_verbatim(single, motor, LISTED).passed
    ellipsis = reply("It says “We pay up to NZD 60 a day … for each event.”", ("MTR-BEN-03", RATE))
    assert text_quotes_verbatim(ellipsis, motor, LISTED).passed
    text = "The drivers' licences and the car's value aren't in MTR-BEN-03."
    apostrophes = reply(text, ("MTR-BEN-03", RATE))
    assert text_quotes_verbatim(apostrophes, motor, LISTED).passed


def test_figures_must_come_from_a_cited_quote_or_the_schedule(motor) -> None:
    good = reply("It pays up to NZD 60 a day for up to 21 days; your excess is $750.", ("MTR-BEN-03", RATE))
    assert figures_sourced(good, motor, LISTED).passed
    for text, shown in [
        ("It pays up to NZD 100,000.", "100,000"),
        ("It pays up to 90 dollars a day.", "90 dollars"),
        ("It lasts 30 days.", "30 days"),
        ("You get 50% back.", "50%"),
        ("The limit is 6,000 in total.", "6,000"),
    ]:
        check = figures_sourced(reply(text, ("MTR-BEN-03", RATE)), motor, LISTED)
        assert not check.passed and shown in check.detail, text
    # A figure elsewhere in the cited clause, not in any cited quote, is not enough.
    unquoted = reply("It pays up to NZD 60 a day.", ("MTR-BEN-03", FUEL))
    assert not figures_sourced(unquoted, motor, LISTED).passed


def test_links_and_contact_details_are_refused(motor) -> None:
    for text in [
        "See https://kowhai.example/claims for more.",
        "Book at www.cheap-rentals.co.nz today.",
        "Email claims@kowhai.co.nz with the receipts.",
        "Call 0800 569 424 or +64 9 555 0199.",
    ]:
        check = no_contact_details(reply(text, ("MTR-BEN-03", RATE)), motor)
        assert not check.passed, text
    plain = reply("Policy KM-MTR-204519, incident 2026-10-20, NZD 14,800.", ("MTR-BEN-03", RATE))
    assert no_contact_details(plain, motor).passed


# The schedule ----------------------------------------------------------------------------------------


def test_an_unlisted_benefit_is_never_described_as_included(motor) -> None:
    for text in [
        f"MTR-BEN-03 says: “{RATE}” {SANCTIONED}",
        "You have alternative transport cover under MTR-BEN-03.",
        "A hire car is included in your policy, as MTR-BEN-03 shows.",
        "Your schedule lists alternative transport.",
    ]:
        check = schedule_respected(reply(text, ("MTR-BEN-03", RATE)), motor, UNLISTED)
        assert not check.passed and "alternative transport" in check.detail, text
        assert schedule_respected(reply(text, ("MTR-BEN-03", RATE)), motor, LISTED).passed, text
    honest = (
        "Your schedule does not list alternative transport, so your policy does not include this benefit."
    )
    assert schedule_respected(reply(honest, ("MTR-BEN-03", RATE)), motor, UNLISTED).passed
    for text in [
        "A hire car is available only when your schedule lists alternative transport; yours does not.",
        "Your schedule lists no optional sections. MTR-BEN-03 is about hire cars.",
        "MTR-BEN-03 is about hire cars. Your schedule shows a standard excess of NZD 750.",
    ]:
        assert schedule_respected(reply(text, ("MTR-BEN-03", RATE)), motor, UNLISTED).passed, text


def test_inclusion_belongs_to_the_clause_named_before_it(motor) -> None:
    tow = "We pay the reasonable cost of towing your car"
    text = f"MTR-BEN-03 does not apply: your schedule does not list it. MTR-BEN-01 says: “{tow}” {SANCTIONED}"
    both = reply(text, ("MTR-BEN-03", RATE), ("MTR-BEN-01", tow))
    assert schedule_respected(both, motor, UNLISTED).passed


def test_the_runtime_writes_the_schedule_sentence(motor) -> None:
    hire = motor["MTR-BEN-03"]

    def said(clause, schedule) -> str:
        return statement(kind_of(clause.clause_id), clause.title, clause_applicability(clause, schedule))

    assert said(hire, LISTED) == (
        f"Your policy includes “{hire.title}”: your schedule lists alternative transport (hire car), "
        "subject to the claim being accepted."
    )
    assert said(hire, UNLISTED) == (
        f"Your policy does not include “{hire.title}”: your schedule does not list alternative transport "
        "(hire car)."
    )
    assert clause_applicability(motor["MTR-BEN-01"], LISTED).reason is None


# Everything held before still holds -------------------------------------------------------------------


def test_what_held_before_still_holds(motor) -> None:
    misquote = reply("x", ("MTR-BEN-03", "We pay NZD 90 a day"))
    assert "spans_verbatim" in failed(check_reply(misquote, motor, LISTED))
    assert "spans_verbatim" in failed(check_reply(reply("x", ("MTR-BEN-03", "We pay")), motor, LISTED))
    assert "cited_were_fetched" in failed(check_reply(reply("x", ("MTR-BEN-09", RATE)), {}, LISTED))
    assert "answer_is_sourced" in failed(check_reply(reply("It pays for a hire car."), motor, LISTED))
    escalated = reply("I've passed this to our claims team.", ("MTR-BEN-03", RATE))
    assert "no_false_escalation" in failed(check_reply(escalated, motor, LISTED))
    # The runtime serves the clause's own sentence, so a span must be the clause's own
    # characters: a look-alike letter is no longer forgiven (verbatim forgives only whitespace).
    quote_with_look_alikes = "We pay up to NZD 60 a d\u0430y"
    assert not spans_verbatim(reply("x", ("MTR-BEN-03", quote_with_look_alikes)).points, motor).passed
    assert spans_verbatim(reply("x", ("MTR-BEN-03", "We pay up to\n NZD 60 a day")).points, motor).passed


def test_an_honest_extractive_answer_passes_every_rule(motor) -> None:
    title = motor["MTR-BEN-03"].title
    text = f"MTR-BEN-03 ({title}) says: “{FUEL}” Its limit: “{RATE}” {SANCTIONED}"
    assert failed(check_reply(reply(text, ("MTR-BEN-03", FUEL), ("MTR-BEN-03", RATE)), motor, LISTED)) == {}


def test_a_routed_reply_is_held_to_nothing_it_wrote(motor) -> None:
    """The runtime writes every routed reply itself, so nothing of a routed selection is served."""
    routed = reply("Claim approved, NZD 9,000 at https://x.example", outcome="routed_to_staff")
    assert failed(check_reply(routed, motor, LISTED)) == {}
    bad_citation = reply("x", ("MTR-BEN-03", "We pay NZD 90 a day"), outcome="routed_to_staff")
    assert failed(check_reply(bad_citation, motor, LISTED)) == {}


def test_the_backstop_catches_an_outcome_said_of_this_claim_in_unknown_words() -> None:
    from agent.boundary.decisions import find_decision

    found = find_decision("You've got cover for the tow, no problem.")
    assert found is not None and found.rule == "outcome said of this claim"
    # Not when the wording is named as saying it, nor as a condition or a question.
    assert find_decision("The wording says there's cover for towing after an accident.") is None
    assert find_decision("If you've got cover for the tow, the wording explains the limit.") is None
    assert find_decision("Have you got the receipt for the tow?") is None


def test_an_unsourced_amount_in_any_wording_currency_is_refused(motor) -> None:
    # (none of these numbers is in the claimant's schedule, which would source it)
    for text, shown in [
        ("The limit is £420.", "£420"),
        ("The limit is 420 pounds.", "420 pounds"),
        ("The limit is €400.", "€400"),
        ("The limit is A$300.", "a$300"),
        ("The limit is AUD 300.", "aud 300"),
        ("The limit is NZD 420.", "nzd 420"),
        ("The limit is $420.", "$420"),
    ]:
        check = figures_sourced(reply(text, ("MTR-BEN-03", RATE)), motor, LISTED)
        assert not check.passed and shown in check.detail.lower(), text
    sterling = FetchedClause(
        "MTR-BEN-90", "Courtesy car", "We pay up to £60 a day for 21 days.", "motor", "1"
    )
    fetched = {**motor, "MTR-BEN-90": sterling}
    quoted = reply("It pays up to £60 a day.", ("MTR-BEN-90", "We pay up to £60 a day"))
    assert figures_sourced(quoted, fetched, LISTED).passed
    # A sterling figure is not sourced by the same number in dollars.
    dollars = reply("It pays up to £60 a day.", ("MTR-BEN-03", RATE))
    assert not figures_sourced(dollars, motor, LISTED).passed
