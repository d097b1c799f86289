"""Moving clauses to `answers` over HTTP, citing a release check: at the bar it moves; below the
bar it is refused, naming each clause and by what, unless a written reason is given (kept on
the mode change and shown); a clause goes back to drafts by hand; only a policy owner moves."""

from __future__ import annotations

from tests.answering.support import drafting, handler, load_inventory, owner, stored_check
from tests.conftest import TOKENS

BASE = "/staff/api/wording/motor/2026.2/answering"
CLAIM = "CLM-204518"


def modes(client) -> dict[str, str]:
    return {c["clause_id"]: c["mode"] for c in client.get(BASE).json()["clauses"]}


def test_clauses_move_to_answers_only_at_the_bar_or_on_a_written_reason(
    live, database_url, corpus_store
) -> None:
    drafting(database_url)
    rows = load_inventory(database_url, corpus_store)
    # One question on MTR-COV-01 (not on MTR-BEN-03) the check answered wrongly.
    wrong = next(r.key for r in rows if "MTR-COV-01" in r.clauses and "MTR-BEN-03" not in r.clauses)
    check = stored_check(database_url, corpus_store, wrong={wrong})

    with owner(live) as mere, handler(live) as aroha:
        shown = mere.get(BASE).json()
        assert shown["evidence_questions"] == 72 and "at least 5 evidence questions" in shown["bar"]
        [ben03] = [c for c in shown["clauses"] if c["clause_id"] == "MTR-BEN-03"]
        assert (ben03["mode"], ben03["evidence_questions"]) == ("drafts", 7)

        refused = mere.post(
            f"{BASE}/answers",
            json={"clause_ids": ["MTR-BEN-03", "MTR-COV-01", "MTR-CLM-01"], "check_id": check},
        )
        assert refused.status_code == 422, refused.text
        detail = refused.json()["detail"]
        assert "MTR-BEN-03" not in detail
        assert "MTR-COV-01: 1 of 9 served answers wrong or irrelevant (11.1%), at most 5% allowed" in detail
        assert "MTR-CLM-01: 4 evidence questions on the clause, 5 needed" in detail
        assert set(modes(mere).values()) == {"drafts"}  # nothing moved

        assert (
            aroha.post(f"{BASE}/answers", json={"clause_ids": ["MTR-BEN-03"], "check_id": check}).status_code
            == 403
        )

        moved = mere.post(f"{BASE}/answers", json={"clause_ids": ["MTR-BEN-03"], "check_id": check})
        assert moved.status_code == 200, moved.text
        [change] = moved.json()["changes"]
        assert (change["mode"], change["release_check_id"], change["below_bar"], change["reason"]) == (
            "answers",
            check,
            False,
            None,
        )
        reason = "Owner reviewed the nine answers; the wrong one asked about a different car."
        override = mere.post(
            f"{BASE}/answers", json={"clause_ids": ["MTR-COV-01"], "check_id": check, "reason": reason}
        )
        assert override.status_code == 200, override.text
        [change] = override.json()["changes"]
        assert change["below_bar"] is True
        assert change["reason"].startswith("Below the bar (1 of 9 served answers wrong or irrelevant")
        assert change["reason"].endswith(reason)

        now = mere.get(BASE).json()
        assert modes(mere)["MTR-BEN-03"] == modes(mere)["MTR-COV-01"] == "answers"
        assert modes(mere)["MTR-CLM-01"] == "drafts"
        audit = [(h["clause_id"], h["mode"], h["below_bar"]) for h in now["history"]]
        assert audit[-2:] == [("MTR-BEN-03", "answers", False), ("MTR-COV-01", "answers", True)]
        [ben03] = [c for c in now["clauses"] if c["clause_id"] == "MTR-BEN-03"]
        assert (ben03["served"], ben03["right"], ben03["precision"]) == (7, 7, 1.0)

        back = mere.post(
            f"{BASE}/drafts", json={"clause_ids": ["MTR-COV-01"], "reason": "Wait for staff answers"}
        )
        assert back.status_code == 200, back.text
        assert modes(mere)["MTR-COV-01"] == "drafts"
        assert mere.get(BASE).json()["history"][-1]["reason"] == "Wait for staff answers"

    # MTR-BEN-03 answers the claimant now; a question quoting it is served.
    with live.client(TOKENS[CLAIM]) as claimant:
        reply = claimant.post(
            f"/claims/{CLAIM}/messages", json={"text": "How many days can I keep a hire car?"}
        ).json()
    assert reply["outcome"] == "answered", reply


def test_approval_refuses_a_check_of_other_content_and_a_clause_the_version_lacks(
    live, database_url, corpus_store
) -> None:
    load_inventory(database_url, corpus_store)
    other = stored_check(database_url, corpus_store, version="2025.1")
    check = stored_check(database_url, corpus_store)
    with owner(live) as mere:
        mismatch = mere.post(f"{BASE}/answers", json={"clause_ids": ["MTR-BEN-03"], "check_id": other})
        assert mismatch.status_code == 409
        assert f"release check {other} is of motor 2025.1" in mismatch.json()["detail"]
        unknown = mere.post(f"{BASE}/answers", json={"clause_ids": ["MTR-BEN-99"], "check_id": check})
        assert unknown.status_code == 422
        assert unknown.json()["detail"] == "MTR-BEN-99 is not a clause of motor wording 2026.2"
        none = mere.post(f"{BASE}/answers", json={"clause_ids": [], "check_id": check})
        assert none.status_code == 422
        every = mere.post(f"{BASE}/answers", json={"all": True, "check_id": check})
        assert (
            every.status_code == 422
            and "MTR-GEN-03: 1 evidence questions on the clause" in every.json()["detail"]
        )
        every = mere.post(f"{BASE}/answers", json={"all": True, "check_id": check, "reason": "Pilot"})
        assert every.status_code == 200, every.text
        assert len(every.json()["changes"]) == 20
        assert {c["mode"] for c in mere.get(BASE).json()["clauses"]} == {"answers"}
