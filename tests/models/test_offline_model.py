"""The built-in offline model end to end: the real app over HTTP, real store, no scripting."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.models.offline.answerability import unanswerable
from agent.models.offline.choosing import select_clauses, selection_for
from agent.models.offline.quotes import best_quotes, plan_names
from agent.models.vocabulary import CONCEPTS, CUE_PHRASES, terms, tokens
from agent.wording.questions import load_questions
from tests.support import post_message


def cited(reply: dict) -> list[str]:
    """The clauses the model chose (the runtime's added exclusions aside)."""
    return sorted(
        {b["clause_id"] for b in (reply.get("answer") or {}).get("blocks", []) if not b.get("added")}
    )


def test_rental_car_where_the_schedule_includes_it_and_a_follow_up(live) -> None:
    first = post_message(live, "CLM-204518", "Can I get a rental car while mine is being repaired?")
    assert first["outcome"] == "answered" and first["model"] == "function:clausedesk-offline"
    assert "NZD 60 a day" in first["reply"] and "21 days" in first["reply"]
    assert "subject to the claim being accepted" in first["reply"]
    assert cited(first) == ["MTR-BEN-03"] and first["citations_verified"]
    # The follow-up names no subject; the model reuses the clauses of the turn before.
    fuel = post_message(live, "CLM-204518", "Does that include fuel?")
    assert fuel["outcome"] == "answered" and cited(fuel) == ["MTR-BEN-03"]
    assert "do not pay for fuel" in fuel["reply"]


def test_rental_car_where_the_schedule_does_not_list_it(live) -> None:
    reply = post_message(live, "CLM-204519", "Can I get a rental car while mine is being repaired?")
    assert reply["outcome"] == "answered" and cited(reply) == ["MTR-BEN-03"]
    assert "does not list" in reply["reply"]
    assert "subject to the claim being accepted" not in reply["reply"]


def test_jewellery_limit_follows_the_plan(live) -> None:
    standard = post_message(live, "CLM-402117", "What's the most you'll pay for my jewellery?")
    premier = post_message(live, "CLM-402118", "What's the most you'll pay for my jewellery?")
    assert cited(standard) == cited(premier) == ["CNT-LIM-01"]
    # The runtime serves the whole row (never cut at the ";"), then whose plan it is: another
    # plan's figure is shown only inside the row that names it as that plan's.
    row = "Jewellery and watches: Standard plan NZD 3,000 in total; Premier plan NZD 15,000 in total."
    assert f"“{row}”\nYour schedule shows the Standard plan." in standard["reply"]
    assert f"“{row}”\nYour schedule shows the Premier plan." in premier["reply"]
    for reply in (standard, premier):
        assert reply["reply"].count("NZD 15,000") == reply["reply"].count("NZD 3,000") == 1


def test_version_boundary_question_is_routed_without_a_citation(live) -> None:
    reply = post_message(live, "CLM-118230", "Can I get a rental car while mine is being repaired?")
    assert reply["outcome"] == "routed_to_staff"
    assert reply["citations"] == [] and reply["release"] == {"family": "motor", "version": "2025.1"}
    assert reply["waiting_list_reference"] and "NZD" not in reply["reply"]


def test_customer_words_meet_title_words() -> None:
    assert "#hire" in terms("a loan car while it's at the panel beaters") & terms("Hire car, rental car")
    assert "#theft" in terms("my bike got nicked") & terms("Theft, burglary and accidental damage at home")
    assert "#child_seat" in terms("the baby seat") & terms(
        "Personal belongings and child car seats in the car"
    )


def test_a_subject_no_title_has_selects_nothing() -> None:
    directory = [("MTR-COV-03", "Windscreen and window glass repair or replacement")]
    assert select_clauses("Can I get a rental car while mine is being repaired?", directory) == []


@pytest.mark.parametrize(
    "question",
    [
        "Any news on where my claim is up to?",
        "When will the settlement money land in my account?",
        "Would my premium be cheaper with an alarm?",
        "My sister is with another insurer, would her policy pay for this?",
        "Can you recommend a good builder?",
    ],
)
def test_service_questions_select_no_clause_even_when_a_title_shares_words(question) -> None:
    directory = [
        ("HOM-CLM-01", "How to claim and what to send us"),
        ("HOM-CLM-02", "How claims are settled: repair, rebuild or cash"),
        ("HOM-GEN-02", "Cancelling, selling your home, premium refunds"),
        ("HOM-EXC-03", "Faulty workmanship or materials, unconsented work"),
    ]
    assert select_clauses(question, directory) == []


# The vocabulary comes from the wordings and general usage, never from the question corpus.

ROOT = Path(__file__).resolve().parents[2]


def _stemmed(text: str) -> str:
    return " " + " ".join(tokens(text)) + " "


def _wording_text() -> str:
    return " | ".join(_stemmed(p.read_text(encoding="utf-8")) for p in ROOT.glob("policies/*/*.md"))


def _question_texts(part: str) -> list[str]:
    return [_stemmed(q.text) for q in load_questions(ROOT / "corpus" / "questions", parts=(part,))]


def _vocabulary_phrases() -> set[str]:
    return {" ".join(tokens(p)) for phrases in CONCEPTS.values() for p in phrases}


def test_no_vocabulary_phrase_occurs_only_in_questions() -> None:
    wording = _wording_text()
    questions = _question_texts("dev") + _question_texts("test") + _question_texts("test2")
    only_in_questions = sorted(
        phrase
        for phrase in _vocabulary_phrases()
        if len(phrase.split()) > 1
        and f" {phrase} " not in wording
        and any(f" {phrase} " in q for q in questions)
    )
    assert only_in_questions == []


# General words already in the vocabulary when the test2 part was written (commit ec2f4f7)
# that its questions happen to use: not taken from it.
IN_VOCABULARY_BEFORE_TEST2 = {"max", "sue"}


def test_no_vocabulary_entry_was_taken_from_the_test_part() -> None:
    """A vocabulary entry found in a test question (either test part) must be in a wording
    or a dev question: otherwise only a test part could have suggested it."""
    wording = _wording_text()
    dev = " | ".join(_question_texts("dev"))
    for part, known in (("test", set()), ("test2", IN_VOCABULARY_BEFORE_TEST2)):
        test = _question_texts(part)
        from_test = sorted(
            phrase
            for phrase in _vocabulary_phrases() - known
            if any(f" {phrase} " in q for q in test)
            and f" {phrase} " not in wording
            and f" {phrase} " not in dev
        )
        assert from_test == [], (part, from_test)


def test_no_cue_phrase_was_taken_from_the_test_part() -> None:
    """A set phrase that routes a test question must route a dev question too: the phrases
    are everyday usage, and only the dev part may have suggested one."""
    questions = {
        part: [q.text for q in load_questions(ROOT / "corpus" / "questions", parts=(part,))]
        for part in ("dev", "test", "test2")
    }
    for kind, phrases in CUE_PHRASES.items():
        for phrase in phrases:
            in_test = any(phrase.search(q) for part in ("test", "test2") for q in questions[part])
            assert not in_test or any(phrase.search(q) for q in questions["dev"]), (kind, phrase.pattern)


def test_the_check_catches_a_phrase_copied_from_a_question() -> None:
    copied = " ".join(tokens("petrol in my diesel"))
    wording = _wording_text()
    assert f" {copied} " not in wording
    assert any(f" {copied} " in q for q in _question_texts("dev"))


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Do you sell boat insurance?", "other_product"),
        ("Could you send someone to pick me up from work?", "service_request"),
        ("Any update on my claim?", "claim_progress"),
        ("What do you recommend I do about the other driver?", "advice"),
        ("I want to make a complaint about how I was treated", "complaint"),
        ("Can I lay charges against the driver who hit me?", "legal_action"),
        ("Should we switch to a higher plan?", "advice"),
        ("Could you go over the limit this once?", "decision"),
        ("Can I get a copy of the assessor's report?", "service_request"),
        ("Can I update my email address?", "service_request"),
    ],
)
def test_questions_no_wording_answers_are_recognised(question: str, kind: str) -> None:
    assert unanswerable(question, "motor") == kind


def test_asking_how_to_complain_is_left_to_the_wording() -> None:
    """A wording's complaints section answers it; complaining is still for a person."""
    assert unanswerable("How do I make a complaint?", "motor") is None
    assert unanswerable("What is your complaints process?", "motor") is None
    assert unanswerable("I'm unhappy with how I was treated, how do I complain?", "motor") == "complaint"


def test_a_set_phrase_routes_only_in_its_own_sense() -> None:
    """A card that was stolen and used is a contents question, not a request about paying;
    claiming by phone is in the wording, paying by phone is a request."""
    assert unanswerable("Someone stole my wallet and has been spending on my credit card", "contents") is None
    assert unanswerable("Can I pay the excess with my credit card?", "contents") == "service_request"
    assert unanswerable("Can I pay my excess over the phone?", "contents") == "service_request"
    # How to claim is in the wording, whatever the words around it.
    assert unanswerable("Can I make a claim over the phone?", "contents") is None
    assert unanswerable("What's the best way to make a claim?", "contents") is None
    assert unanswerable("What's the best way to stop mould coming back?", "home") == "advice"
    assert unanswerable("Can I insure my ring for more than the limit?", "contents") is None
    assert unanswerable("Do I need to tell you if I change my address?", "contents") is None


def test_own_product_is_not_another_product() -> None:
    assert unanswerable("Does my car insurance pay for a new windscreen?", "motor") is None
    assert unanswerable("Does my car insurance pay for a new windscreen?", "contents") == "other_product"


def test_plan_names_come_from_the_clause_text() -> None:
    text = "Jewellery: Basic plan NZD 1,000; Gold plan NZD 9,000."
    assert plan_names(text) == {"Basic", "Gold"}
    clause = {
        "clause_id": "CNT-LIM-01",
        "title": "Item limits",
        "text": f"## CNT-LIM-01 - Item limits\n{text}",
    }
    quotes = best_quotes("What's the most for my jewellery?", clause, "Gold")
    assert "Gold plan NZD 9,000" in quotes[0][1]


def test_a_clause_that_only_shares_a_word_is_not_quoted() -> None:
    clause = {
        "clause_id": "CNT-COV-02",
        "title": "Portable valuables away from home",
        "text": "## CNT-COV-02 - Portable valuables\nThey are also covered overseas on trips.",
        "optional_section": "portable_valuables",
        "applies_to_claimant": "included",
    }
    reply = selection_for(
        "Is my garden shed covered for storm damage?", {"clauses": [clause], "schedule": {}}
    )
    assert reply == {"outcome": "routed_to_staff", "route_reason": "no_clause_selected"}
    # A boat is another product: no wording of this policy answers it, whatever was fetched.
    reply = selection_for(
        "Is my boat covered for storm damage at the marina?", {"clauses": [clause], "schedule": {}}
    )
    assert reply == {"outcome": "routed_to_staff", "route_reason": "outside_the_wording"}


def test_the_offline_model_selects_spans_and_writes_nothing() -> None:
    from tests.conftest import POLICIES

    text = (POLICIES / "motor" / "2026.2.md").read_text()
    body = text[text.index("## MTR-BEN-03") :].split("\n## ")[0]
    clause = {
        "clause_id": "MTR-BEN-03",
        "title": "Hire car, rental car and alternative transport while your car is repaired or stolen",
        "text": body,
        "optional_section": "alternative_transport",
        "applies_to_claimant": "included",
    }
    selection = selection_for("Can I get a rental car while mine is repaired?", {"clauses": [clause]})
    assert set(selection) == {"outcome", "points"} and selection["outcome"] == "answered"
    assert selection["points"] and all(p["clause_id"] == "MTR-BEN-03" for p in selection["points"])
    assert all(" ".join(p["span"].split()) in " ".join(body.split()) for p in selection["points"])


def test_thanks_is_answered_by_the_runtime_with_no_waiting_item(live) -> None:
    from agent.boundary.replies import NOTHING_ASKED

    reply = post_message(live, "CLM-204518", "Thanks, cheers!")
    assert reply["outcome"] == "nothing_asked" and reply["reply"] == NOTHING_ASKED
    assert reply["waiting_list_reference"] is None and reply["citations"] == []


def test_stemming_from_many_threads_gives_one_thread_s_stems() -> None:
    """snowballstemmer's stemmers are not thread-safe; the runtime and the offline model stem per
    thread (agent.words)."""
    from concurrent.futures import ThreadPoolExecutor

    from agent import words as vocabulary

    every = sorted(
        {w for p in ROOT.glob("policies/*/*.md") for w in p.read_text(encoding="utf-8").lower().split()}
    )
    vocabulary.stem.cache_clear()  # every thread stems for real, not from the cache
    expected = [vocabulary._stemmer().stemWord(w) for w in every]

    def stem_all(offset: int) -> list[str]:
        order = every[offset:] + every[:offset]
        got = {w: vocabulary._stemmer().stemWord(w) for w in order}
        return [got[w] for w in every]

    with ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(stem_all, range(0, 16 * 97, 97)))
    assert all(r == expected for r in results)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_sixteen_concurrent_turns_of_the_offline_model_have_no_errors(live) -> None:
    """16 claimants at once, each on its own claim, through HTTP: every turn is answered or
    routed for a reason of its own, none fails in the model."""
    from concurrent.futures import ThreadPoolExecutor

    from agent.evaluation.harness import Harness
    from agent.models import vocabulary
    from agent.wording.questions import seeded_claims

    vocabulary.stem.cache_clear()  # the turns stem words no earlier test has
    questions = [q for q in load_questions(ROOT / "corpus" / "questions", parts=("test2",))][:32]
    harness = Harness(live.url, live.app.state.services.settings.database_url)
    claims = seeded_claims()
    try:
        opened = [harness.open_claim(claims[q.policy]) for q in questions]
        with ThreadPoolExecutor(max_workers=16) as pool:
            exchanges = list(
                pool.map(
                    lambda pair: harness.send(*pair), zip(opened, [q.text for q in questions], strict=True)
                )
            )
    finally:
        harness.forget()
        harness.close()
    assert [e.status_code for e in exchanges] == [200] * len(questions)
    reasons = [e.turn.get("route_reason") for e in exchanges]
    assert not [r for r in reasons if r and r.startswith("model")], reasons
    assert not [e.turn.get("error") for e in exchanges if e.turn.get("error")]


def test_a_refused_second_fetch_leaves_the_clauses_the_first_returned() -> None:
    """A call the tool refused comes back as a retry; the offline model answers from the
    fetch that ran rather than fetching again."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

    from agent.models.offline.prompt import tool_result_this_run

    fetched = {"clauses": [{"clause_id": "MTR-BEN-03", "text": "## MTR-BEN-03 - Hire car\nWe pay."}]}
    messages = [
        ModelRequest(parts=[UserPromptPart("Can I get a rental car?")]),
        ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": ["MTR-BEN-03"]}, "a")]),
        ModelRequest(parts=[ToolReturnPart("resolve_clauses", fetched, "a")]),
        ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": ["MTR-BEN-01"]}, "b")]),
        ModelRequest(parts=[ToolReturnPart("resolve_clauses", "Already called", "b", outcome="retried")]),
    ]
    assert tool_result_this_run(messages) == fetched
