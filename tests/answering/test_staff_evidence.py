"""Staff answers become evidence over HTTP: each handler verdict on a draft, read from what was
sent and cited; the claimant's words kept only when confirmed (edited as the handler likes);
declining records nothing; a handler flags a served answer wrong; a claimant's report that an
answer did not help counts only once a handler confirms it."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from agent.db.tables import Evidence, StaffUser
from agent.staff.waiting_list import create_item
from tests.answering.support import db, drafting, handler
from tests.conftest import STAFF_TOKENS, TOKENS, use_model
from tests.staff import test_send_as_drafted as sending
from tests.staff.test_send_as_drafted import ABROAD, CARE, CLAIM, RATE, THEFT, TOWING, evidence_of
from tests.support import answer, scripted


def drafted(live, question: str) -> str:
    """A question whose answer quoting MTR-BEN-03 is drafted for review: the item's reference."""
    return sending.drafted(live, question, ["MTR-BEN-03"], ("MTR-BEN-03", RATE))


def send(aroha, reference: str, text_of, citations: list[dict], evidence: dict | None = None) -> dict:
    """Take the item and send an answer written from its draft."""
    assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
    item = aroha.get(f"/staff/api/items/{reference}").json()
    draft = item["draft"]["text"] if item["draft"] else ""
    body = {"text": text_of(draft), "citations": citations, "basis": item["basis"]}
    if evidence is not None:
        body["evidence"] = evidence
    sent = aroha.post(f"/staff/api/items/{reference}/answer", json=body)
    assert sent.status_code == 200, sent.text
    return sent.json()


def rate() -> dict:
    return {"clause_id": "MTR-BEN-03", "quote": RATE}


def towing() -> dict:
    return {"clause_id": "MTR-BEN-01", "quote": TOWING}


def care() -> dict:
    return {"clause_id": "MTR-CON-01", "quote": CARE}


def overseas() -> dict:
    return {"clause_id": "MTR-EXC-04", "quote": ABROAD}


def test_each_handler_verdict_on_a_draft_is_recorded_as_evidence(live, database_url) -> None:
    drafting(database_url)
    with handler(live) as aroha:
        # Sent as drafted, in one action: the draft passes the pre-send check; words not kept.
        ref = drafted(live, "How long can I keep a hire car for?")
        draft = aroha.get(f"/staff/api/items/{ref}").json()["draft"]
        sent = aroha.post(f"/staff/api/items/{ref}/send-draft", json={"draft_id": draft["id"]})
        assert sent.status_code == 200, sent.text
        assert (sent.json()["status"], sent.json()["answered_by"]) == ("answered", "aroha.staff")
        row = evidence_of(database_url, ref)
        assert (row.verdict, row.outcome, row.question, row.source) == (
            "sent_as_drafted",
            "right",
            None,
            "staff",
        )
        assert (row.clauses, row.served_clauses, row.version) == (["MTR-BEN-03"], ["MTR-BEN-03"], "2026.2")
        assert row.deciding == [{"clause_id": "MTR-BEN-03", "sentence": RATE}]
        assert len(row.clause_hashes["MTR-BEN-03"]) == 64

        # Kept: the same clause, other words; the question kept as the handler edited it.
        ref = drafted(live, "My name is Aroha, how many days of rental car do I get?")
        sent = send(
            aroha,
            ref,
            lambda t: "Kia ora,\n\n" + t,
            [rate()],
            {"question": "How many days of rental car do I get?"},
        )
        row = evidence_of(database_url, ref)
        assert (row.verdict, row.outcome, row.question) == (
            "kept",
            "right",
            "How many days of rental car do I get?",
        )
        # The answer's response shows the verdict it inferred.
        assert (sent["verdict"]["verdict"], sent["verdict"]["outcome"]) == ("kept", "right")

        # Added: the draft's clause and another cover; what decides was in the draft: right.
        ref = drafted(live, "Do you pay for the hire car and for towing my car?")
        send(aroha, ref, lambda t: t, [rate(), towing()])
        row = evidence_of(database_url, ref)
        assert (row.verdict, row.outcome, row.clauses, row.served_clauses) == (
            "added",
            "right",
            ["MTR-BEN-03", "MTR-BEN-01"],
            ["MTR-BEN-03"],
        )

        # Added deciding: a condition the draft left out changes the outcome: wrong. (The rental
        # exclusion is no longer the handler's to add: the runtime serves it beside the cover.)
        ref = drafted(live, "Can I claim the rental car I hired in Auckland?")
        send(aroha, ref, lambda t: t, [rate(), care()])
        assert (evidence_of(database_url, ref).verdict, evidence_of(database_url, ref).outcome) == (
            "added_deciding",
            "wrong",
        )

        # Missed sentence: the draft's clause, but the sentence that decides is not in the draft.
        ref = drafted(live, "When does the hire car start after a theft?")
        send(aroha, ref, lambda t: t, [{"clause_id": "MTR-BEN-03", "quote": THEFT}])
        assert (evidence_of(database_url, ref).verdict, evidence_of(database_url, ref).outcome) == (
            "missed_sentence",
            "wrong",
        )

        # Dropped: none of the draft's clauses.
        ref = drafted(live, "Who pays to tow my car to the repairer?")
        send(aroha, ref, lambda t: "We pay for towing.", [towing()])
        assert (evidence_of(database_url, ref).verdict, evidence_of(database_url, ref).outcome) == (
            "dropped",
            "wrong",
        )

        # Draft wrong on the handler's word, whatever it cites.
        ref = drafted(live, "Can I get a rental while my car is fixed?")
        send(aroha, ref, lambda t: t, [rate()], {"draft_wrong": True})
        assert (evidence_of(database_url, ref).verdict, evidence_of(database_url, ref).outcome) == (
            "draft_wrong",
            "wrong",
        )

        # No clause answers it: the draft served would have been irrelevant.
        ref = drafted(live, "Can I get a hire car for my holiday?")
        send(aroha, ref, lambda t: "A claims handler will call you about this.", [])
        row = evidence_of(database_url, ref)
        assert (row.verdict, row.outcome, row.clauses, row.routed) == (
            "cited_nothing",
            "irrelevant",
            [],
            True,
        )

        # Declined: nothing is recorded.
        ref = drafted(live, "Is the hire car paid from day one?")
        send(aroha, ref, lambda t: t, [rate()], {"record": False})
        assert evidence_of(database_url, ref) is None


def test_a_stale_draft_is_not_sent_as_drafted(live, database_url) -> None:
    drafting(database_url)
    ref = drafted(live, "How long can I keep a hire car for?")
    with handler(live) as aroha:
        draft = aroha.get(f"/staff/api/items/{ref}").json()["draft"]
        with live.client(TOKENS[CLAIM]) as claimant:
            claimant.post(f"/claims/{CLAIM}/messages", json={"text": "Any news?"})
        refused = aroha.post(f"/staff/api/items/{ref}/send-draft", json={"draft_id": draft["id"]})
        assert refused.status_code == 409
        assert "the answer is stale: The claimant wrote again at" in refused.json()["detail"]
        item = aroha.get(f"/staff/api/items/{ref}").json()["item"]
    assert item["status"] == "open" and evidence_of(database_url, ref) is None


def served_turn(live) -> str:
    """A served answer quoting MTR-BEN-03 (the test seed has motor 2026.2 answering): its turn."""
    use_model(live, scripted(["MTR-BEN-03"], answer("", ("MTR-BEN-03", RATE))))
    with live.client(TOKENS[CLAIM]) as claimant:
        reply = claimant.post(
            f"/claims/{CLAIM}/messages", json={"text": "How long is the hire car for?"}
        ).json()
    assert reply["outcome"] == "answered", reply
    return reply["turn_id"]


def test_a_handler_flags_a_served_answer_wrong_against_every_clause_it_quoted(live, database_url) -> None:
    turn_id = served_turn(live)
    with handler(live) as aroha:
        flagged = aroha.post(f"/staff/api/turns/{turn_id}/flag", json={})
        assert flagged.status_code == 200, flagged.text
        row = flagged.json()
        assert (row["source"], row["outcome"], row["served_clauses"], row["question"]) == (
            "flag",
            "wrong",
            ["MTR-BEN-03"],
            None,
        )
        # The same answer flagged again is the same evidence.
        assert aroha.post(f"/staff/api/turns/{turn_id}/flag", json={}).json()["id"] == row["id"]
        assert aroha.post("/staff/api/turns/nosuchturn/flag", json={}).status_code == 404


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_claimants_unhelpful_report_counts_only_once_a_handler_confirms_it(live, database_url) -> None:
    turn_id = served_turn(live)
    with db(database_url) as session:
        reports = {
            reason: create_item(
                session,
                claim_id=CLAIM,
                turn_id=turn_id,
                family="motor",
                question="That did not answer my question",
                reason=reason,
            ).reference
            for reason in ("claimant_unhelpful", "needs_decision")
        }
    with db(database_url) as session:
        assert session.scalar(select(Evidence).where(Evidence.turn_id == turn_id)) is None
    unhelpful = reports["claimant_unhelpful"]
    with handler(live) as aroha, live.client(STAFF_TOKENS["tama.staff"]) as tama:
        # Item-bound evidence only from the handler holding the item (issue 40).
        untaken = aroha.post(f"/staff/api/items/{unhelpful}/confirm-unhelpful", json={})
        assert untaken.status_code == 409 and "held by nobody (take it first)" in untaken.json()["detail"]
        assert aroha.post(f"/staff/api/items/{unhelpful}/take").status_code == 200
        other_handler = tama.post(f"/staff/api/items/{unhelpful}/confirm-unhelpful", json={"override": True})
        assert other_handler.status_code == 409
        assert "only a supervisor may record evidence" in other_handler.json()["detail"]
        confirmed = aroha.post(f"/staff/api/items/{unhelpful}/confirm-unhelpful", json={})
        assert confirmed.status_code == 200, confirmed.text
        assert (confirmed.json()["source"], confirmed.json()["outcome"]) == ("claimant", "wrong")
        assert confirmed.json()["served_clauses"] == ["MTR-BEN-03"]
        # An item of another reason is no claimant's report; a supervisor may act in its holder's place.
        with db(database_url) as session:
            session.get(StaffUser, "tama.staff").roles = ["handler", "supervisor"]
        assert aroha.post(f"/staff/api/items/{reports['needs_decision']}/take").status_code == 200
        refused = tama.post(f"/staff/api/items/{reports['needs_decision']}/confirm-unhelpful", json={})
        assert refused.status_code == 409 and "held by aroha.staff" in refused.json()["detail"]
        other = tama.post(
            f"/staff/api/items/{reports['needs_decision']}/confirm-unhelpful", json={"override": True}
        )
        assert other.status_code == 409
        assert "is not a claimant's report that an answer did not help" in other.json()["detail"]
    with db(database_url) as session:
        row = session.scalar(select(Evidence).where(Evidence.key == f"claimant-{unhelpful}"))
        assert row.created_by == "aroha.staff"


def test_the_staff_list_filters_the_drafted_items(live, database_url) -> None:
    drafting(database_url)
    reference = drafted(live, "How long can I keep a hire car for?")
    with db(database_url) as session:
        other = create_item(
            session,
            claim_id=CLAIM,
            turn_id=None,
            family="motor",
            question="Call me",
            reason="request_for_staff",
        ).reference
    with handler(live) as aroha:
        page = aroha.get(
            "/staff/api/items", params={"status": "waiting", "reason": "drafted_for_review"}
        ).json()
    listed = {i["reference"]: i["reason"] for i in page["items"]}
    assert reference in listed and other not in listed
    assert set(listed.values()) == {"drafted_for_review"}
    assert page["counts_by_reason"]["drafted_for_review"] == page["total"] == len(listed)


def test_a_handler_corrects_the_inferred_verdict_in_one_call(live, database_url) -> None:
    drafting(database_url)
    with handler(live) as aroha:
        ref = drafted(live, "Do you pay for the hire car and for towing my car?")
        sent = send(aroha, ref, lambda t: t, [rate(), towing()])
        assert (sent["verdict"]["verdict"], sent["verdict"]["outcome"]) == ("added", "right")
        fixed = aroha.post(f"/staff/api/items/{ref}/verdict", json={"outcome": "wrong"})
        assert fixed.status_code == 200, fixed.text
        assert fixed.json()["verdict"] == {
            "evidence_id": sent["verdict"]["evidence_id"],
            "verdict": "said_wrong",
            "outcome": "wrong",
            "scored_by": "aroha.staff",
        }
        row = evidence_of(database_url, ref)
        assert (row.verdict, row.outcome, row.served_clauses) == ("said_wrong", "wrong", ["MTR-BEN-03"])
        assert aroha.get(f"/staff/api/items/{ref}").json()["item"]["verdict"]["verdict"] == "said_wrong"
        refused = aroha.post(f"/staff/api/items/{ref}/verdict", json={"outcome": "maybe"})
        assert refused.status_code == 422
        # Only the handler who answered it corrects it (issue 40).
        with live.client(STAFF_TOKENS["tama.staff"]) as tama:
            other = tama.post(f"/staff/api/items/{ref}/verdict", json={"outcome": "right"})
            assert other.status_code == 409 and "held by aroha.staff" in other.json()["detail"]

        # An answer that scored no draft has no verdict to correct.
        ref = answered_without_draft(live, aroha)
        none = aroha.post(f"/staff/api/items/{ref}/verdict", json={"outcome": "right"})
        assert none.status_code == 409 and "has no verdict on a draft to correct" in none.json()["detail"]


def answered_without_draft(live, aroha) -> str:
    """An item routed with no draft (no clause fetched), answered: its reference."""
    use_model(live, scripted([], {"outcome": "routed_to_staff", "route_reason": "request_for_staff"}))
    with live.client(TOKENS[CLAIM]) as claimant:
        reply = claimant.post(f"/claims/{CLAIM}/messages", json={"text": "Please call me back"}).json()
    ref = reply["waiting_list_reference"]
    assert ref, reply
    assert aroha.get(f"/staff/api/items/{ref}").json()["draft"] is None
    send(aroha, ref, lambda t: "We will call you today.", [])
    return ref
