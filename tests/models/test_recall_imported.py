"""The memory on a wording imported in parts (issue 38, finding 4), through HTTP: the AXA UK car
booklet (read from ../shared/wordings, never copied here) governs in `drafts`, the API serves
the offline model with its memory of the evidence store (as `CLAUSEDESK_OFFLINE_MEMORY=fused`
runs it). A handler answers a question citing a clause its titles never reach; the same
question asked again fetches that clause by ID and drafts it. The claimant's cover level
steers recall: the same words answered for a Comprehensive and a Third Party Only claimant
bring each claimant their own plan's clause."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from agent.db.tables import make_engine, make_sessionmaker
from agent.evaluation.harness import Exchange, Harness
from agent.wording.questions import load_imported
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.manifest import Registry
from knowledge.store import ObjectStore
from tests.answering.support import handler
from tests.conftest import make_live_app, stop_live
from tests.support import LiveServer, first_sentence
from tests.wording.imported import FAMILY, VERSION, approve_without_evidence, seed_claimants

pytestmark = pytest.mark.slow  # a real wording imported and its questions asked

COMPREHENSIVE, THIRD_PARTY = "CLM-AXA-COMP-01", "CLM-AXA-TPO-01"
COURTESY_CAR = "MTR-COV-10"  # Part A (Comprehensive, Third Party Fire and Theft): "Courtesy car"
NOT_COVERED = "MTR-COV-03"  # the Third Party Only level's unit saying which Parts it does not give


@dataclass
class Imported:
    live: LiveServer
    harness: Harness
    directory: Directory
    store: ObjectStore


@pytest.fixture
def imported(database_url: str, axa_store: ObjectStore) -> Iterator[Imported]:
    """The API on the imported wording, approved to govern in `drafts` with no evidence, its
    memory on (the suite turns it off elsewhere)."""
    _, claimants = load_imported(FAMILY)
    engine = make_engine(database_url)
    seed_claimants(make_sessionmaker(engine), claimants)
    engine.dispose()
    live = make_live_app(database_url, axa_store, offline_memory="fused")
    harness = Harness(live.url, database_url)
    try:
        approve_without_evidence(live)
        directory = ClauseLibrary(axa_store).directory(Registry(axa_store).read()[0].entry(FAMILY, VERSION))
        yield Imported(live, harness, directory, axa_store)
    finally:
        harness.close()  # the test's own database goes with it: its claims hold the evidence
        stop_live(live)


def ask(imported: Imported, claim: str, text: str) -> Exchange:
    sent = imported.harness.send(imported.harness.open_claim(claim), text)
    assert sent.status_code == 200 and sent.reply["outcome"] == "routed_to_staff", sent.reply
    return sent


def answer_citing(imported: Imported, sent: Exchange, clause_id: str, words: str) -> None:
    """A handler answers the item citing the clause (its first full line), keeping the question."""
    reference = sent.reply["waiting_list_reference"]
    quote = first_sentence(imported.store, imported.directory, clause_id)
    with handler(imported.live) as aroha:
        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
        item = aroha.get(f"/staff/api/items/{reference}").json()
        body = {
            "text": f"Your policy says: {quote}",
            "citations": [{"clause_id": clause_id, "quote": quote}],
            "basis": item["basis"],
            "evidence": {"question": words},
        }
        sent_answer = aroha.post(f"/staff/api/items/{reference}/answer", json=body)
        assert sent_answer.status_code == 200, sent_answer.text


def drafted_citations(imported: Imported, sent: Exchange) -> set[str]:
    """The clauses the item's draft quotes; a drafted reply only."""
    assert sent.reply["route_reason"] == "drafted_for_review", (sent.reply, sent.turn.get("requested"))
    with handler(imported.live) as aroha:
        item = aroha.get(f"/staff/api/items/{sent.reply['waiting_list_reference']}").json()
    return {c["clause_id"] for c in item["draft"]["citations"]}


def test_a_handlers_answer_is_fetched_by_id_and_drafted_when_the_question_comes_again(imported) -> None:
    question = "Do I get a courtesy car while the Golf is in for the bumper repair?"
    first = ask(imported, COMPREHENSIVE, question)
    # Its titles open no part that holds the courtesy car: nothing fetched, routed for want of a clause.
    assert COURTESY_CAR not in first.turn["requested"], first.turn["requested"]
    answer_citing(imported, first, COURTESY_CAR, question)

    again = ask(imported, COMPREHENSIVE, question)
    assert again.turn["requested"][0] == COURTESY_CAR, again.turn["requested"]
    assert COURTESY_CAR in drafted_citations(imported, again)
    # The draft stays a draft: the wording is in `drafts`, whatever the memory backs.
    assert again.reply["citations"] == [] and again.reply["answer"] is None


def test_the_claimants_cover_level_steers_what_the_memory_recalls(imported) -> None:
    question = "can I have a courtesy car while my bumper is sorted out?"
    # A Comprehensive claimant's question, answered from Part A.
    answer_citing(imported, ask(imported, COMPREHENSIVE, question), COURTESY_CAR, question)
    # The same words from a Third Party Only claimant: Part A is not in their plan, so the
    # Comprehensive answer is not recalled for them (nothing of Part A is asked for).
    third_party = ask(imported, THIRD_PARTY, question)
    assert COURTESY_CAR not in third_party.turn["requested"], third_party.turn["requested"]
    answer_citing(imported, third_party, NOT_COVERED, question)

    # Asked again, each claimant is steered to what was answered for their own plan.
    again = ask(imported, THIRD_PARTY, question)
    assert again.turn["requested"][0] == NOT_COVERED and COURTESY_CAR not in again.turn["requested"]
    assert NOT_COVERED in drafted_citations(imported, again)
    comprehensive = ask(imported, COMPREHENSIVE, question)
    assert comprehensive.turn["requested"][0] == COURTESY_CAR, comprehensive.turn["requested"]
    assert COURTESY_CAR in drafted_citations(imported, comprehensive)
