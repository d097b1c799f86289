"""Say nothing you do not know (issue 39, Build 5): on an imported wording that offers cover
levels, a clause of cover whose level nobody recorded is never stated as included or not
included: the runtime says it does not know, and the turn drafts for a claims handler even
where every clause answers. A clause whose levels are recorded is stated and served as before.

The AXA UK car booklet (read from ../shared/wordings, never copied here) is imported, approved
to govern, and every clause set answering (as a release check measures it), through HTTP."""

from __future__ import annotations

import pytest

from agent.boundary.statements import kind_of
from agent.evaluation.harness import Harness
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry
from tests.conftest import STAFF_TOKENS, use_model
from tests.support import answer, first_sentence, scripted
from tests.wording.imported import FAMILY, VERSION, approve_without_evidence
from tests.wording.imported_app import imported_app

pytestmark = pytest.mark.slow  # a real wording imported, approved and asked

UNKNOWN = "I can't tell from your policy records whether"


@pytest.fixture
def every_clause_answering(database_url, axa_store):
    with imported_app(database_url, axa_store) as imported:
        approve_without_evidence(imported.server)
        imported.server.app.state.services.runner.answer_all = True
        yield imported.server, imported.claimants, imported.seeded


def test_a_clause_whose_cover_level_is_unknown_is_said_as_unknown_and_drafted(
    every_clause_answering, axa_store, database_url
) -> None:
    live, claimants, seeded = every_clause_answering
    directory = ClauseLibrary(axa_store).directory(Registry(axa_store).read()[0].entry(FAMILY, VERSION))
    assert len(directory.plans_named) > 1  # the wording offers cover levels
    cover = [e for e in directory.entries if kind_of(e.clause_id) == "cover" and e.citable]
    unknown = next(e for e in cover if not (e.plans or e.added_by or e.removed_by or e.changed_by))
    claimant = next(c for c in claimants if c.get("plan") in directory.plans_named)
    known = next(e for e in cover if claimant["plan"] in e.plans and not e.added_by)
    harness = Harness(live.url, database_url)
    try:
        replies = {}
        for entry in (unknown, known):
            cid = entry.clause_id
            use_model(live, scripted([cid], answer("", (cid, first_sentence(axa_store, directory, cid)))))
            claim = harness.open_claim(seeded[claimant["policy_number"]])
            replies[cid] = harness.send(claim, "Am I covered for this?").reply
    finally:
        harness.close()

    said = replies[unknown.clause_id]
    assert said["outcome"] == "routed_to_staff" and said["route_reason"] == "drafted_for_review", said
    with live.client(STAFF_TOKENS["aroha.staff"]) as handler:
        draft = handler.get(f"/staff/api/items/{said['waiting_list_reference']}").json()["draft"]["text"]
    assert draft.startswith(UNKNOWN) and f"your {claimant['plan']} cover" in draft
    assert "Your policy includes" not in draft and "Your policy does not include" not in draft

    served = replies[known.clause_id]  # recorded levels: stated, and served as every clause answers
    assert served["outcome"] == "answered", served
    assert served["reply"].startswith(
        f"Your policy includes “{known.title}”: it is in the {claimant['plan']} plan"
    )
