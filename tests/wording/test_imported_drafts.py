"""A wording imported with no evidence serves no claimant an answer (issue 33, must show).

The AXA UK car booklet (read from ../shared/wordings, never copied here) is imported and
ingested as a draft; a policy owner runs its release check through the API (no inventory
question asked: it fails for want of evidence) and approves it to govern citing that check.
No clause of it has earned `answers`, so every policy question its claimants ask through the
claim message API is drafted for staff: routed_to_staff with reason drafted_for_review, the
claimant told a claims handler will check the answer, and the item carrying the composed
answer as its draft. Nothing is served."""

from __future__ import annotations

from collections import Counter

import pytest

from agent.evaluation.harness import Harness
from agent.wording.questions import clauses_for
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry
from tests.conftest import STAFF_TOKENS, use_model
from tests.support import answer, first_sentence, scripted
from tests.wording.imported import FAMILY, VERSION, approve_without_evidence
from tests.wording.imported_app import imported_app

pytestmark = pytest.mark.slow  # a real wording imported and its questions asked

HANDLER = STAFF_TOKENS["aroha.staff"]
ANSWERING = 24  # answerable questions the answering model is asked (the offline model asks all)
DRAFTED = "A claims handler will check the answer to your question against your policy wording"


@pytest.fixture
def imported_live(database_url, axa_store):
    """The app on the imported wording's store, its synthetic claimants seeded; no answering
    mode is recorded for it (the test database's rows are Kowhai's)."""
    with imported_app(database_url, axa_store) as imported:
        yield imported.server, imported.questions, imported.seeded


def test_a_wording_imported_with_no_evidence_drafts_every_policy_question(
    imported_live, axa_store, database_url
) -> None:
    live, questions, seeded = imported_live
    # The owner may still let it govern: what it cannot do without evidence is answer.
    check = approve_without_evidence(live)
    assert check["passed"] is False and check["reasons"][0].startswith("no evidence")

    # The offline model over the whole inventory, then a model that answers every answerable
    # question from the clause its right answer cites (one sentence of it): neither serves.
    directory = ClauseLibrary(axa_store).directory(Registry(axa_store).read()[0].entry(FAMILY, VERSION))
    harness = Harness(live.url, database_url)
    try:
        exchanges = [(q, harness.send(harness.open_claim(seeded[q.policy]), q.text)) for q in questions]
        answering = []
        for q in [q for q in questions if clauses_for(q, directory)][:ANSWERING]:
            cid = clauses_for(q, directory)[0]
            use_model(live, scripted([cid], answer("", (cid, first_sentence(axa_store, directory, cid)))))
            answering.append((q, harness.send(harness.open_claim(seeded[q.policy]), q.text)))
    finally:
        harness.close()
    everything = [*exchanges, *answering]
    assert all(e.status_code == 200 for _, e in everything)
    assert [e.reply["outcome"] for _, e in everything].count("answered") == 0  # 0 answers served
    assert all(e.reply["citations"] == [] and e.reply["answer"] is None for _, e in everything)
    offline = Counter(e.reply["route_reason"] for _, e in exchanges)
    assert offline["drafted_for_review"] > 0, offline
    # Every answer a model composed from the wording is drafted for a claims handler instead:
    # each one the runtime fetched the clause for (a clause of another cover level is fetched
    # too, and stated as not included).
    fetched = [(q, e) for q, e in answering if e.turn["requested"][0] in e.turn["returned"]]
    assert len(fetched) >= len(answering) // 2, Counter(e.reply["route_reason"] for _, e in answering)
    drafted = [(q, e) for q, e in everything if e.reply["route_reason"] == "drafted_for_review"]
    assert {id(e) for _, e in fetched} <= {id(e) for _, e in drafted}
    for q, e in drafted:
        assert e.reply["outcome"] == "routed_to_staff"
        assert e.reply["release"] == {"family": FAMILY, "version": VERSION}, q.id
        assert DRAFTED in e.reply["reply"] and e.reply["waiting_list_reference"] in e.reply["reply"]
    with live.client(HANDLER) as handler:
        listed = handler.get("/staff/api/items", params={"reason": "drafted_for_review", "limit": 200}).json()
        assert listed["total"] == len(drafted)
        for q, e in fetched[:5]:  # the item carries the composed answer as its draft
            item = handler.get(f"/staff/api/items/{e.reply['waiting_list_reference']}").json()
            draft = item["draft"]
            assert draft["origin"] == "turn" and draft["text"], q.id
            assert {c["clause_id"] for c in draft["citations"]} == {e.turn["requested"][0]}
            assert all(c["version"] == VERSION for c in draft["citations"])
            # The schedule beside it is in the booklet's currency, as the runtime reads it.
            summary = item["claim"]["schedule_summary"]
            assert "GBP " in summary and "NZD" not in summary, summary
