"""The staff waiting list over HTTP: list, take, answer with checked citations, close, access."""

from __future__ import annotations

import hashlib
import re
from datetime import timedelta

import pytest
from sqlalchemy import create_engine, inspect, select, text
from sqlalchemy.orm import Session

from agent.db.tables import StaffUser, utcnow
from agent.staff.waiting_list import create_item
from tests.conftest import STAFF_PASSWORDS, STAFF_TOKENS, TOKENS, use_model
from tests.support import route, scripted

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
TOWING = "We pay up to NZD 1,000 for towing and storage for each event."


def claimant_asks(live, claim: str, question: str, reason: str = "no_clause_selected", ids=()) -> dict:
    """A claimant question the scripted model routes to staff; returns the turn reply."""
    use_model(live, scripted(list(ids), route("I can't answer that from your wording.", question, reason)))
    with live.client(TOKENS[claim]) as client:
        response = client.post(f"/claims/{claim}/messages", json={"text": question})
    assert response.status_code == 200, response.text
    reply = response.json()
    assert reply["outcome"] == "routed_to_staff"
    assert re.fullmatch(r"WL-\d{6}", reply["waiting_list_reference"])
    return reply


def staff(live, username: str = "aroha.staff"):
    return live.client(STAFF_TOKENS[username])


def send(client, reference: str, body: dict):
    """POST an answer written on the item as it reads now: with the basis GET returns."""
    basis = client.get(f"/staff/api/items/{reference}").json()["basis"]
    return client.post(f"/staff/api/items/{reference}/answer", json={"basis": basis, **body})


def citing_the_rate(text: str) -> dict:
    """A staff answer with these words, citing the hire car rate (MTR-BEN-03)."""
    return {"text": text, "citations": [{"clause_id": "MTR-BEN-03", "quote": RATE}]}


def conversation(live, claim: str) -> list[dict]:
    with live.client(TOKENS[claim]) as client:
        response = client.get(f"/claims/{claim}/messages")
    assert response.status_code == 200, response.text
    return response.json()["messages"]


def test_a_routed_question_is_answered_by_staff_in_the_claimants_conversation(staff_live) -> None:
    live = staff_live
    routed = claimant_asks(live, "CLM-204518", "Will you pay for my rental car while mine is repaired?")
    reference = routed["waiting_list_reference"]

    with staff(live) as aroha:
        listed = aroha.get("/staff/api/items", params={"status": "open"}).json()
        [item] = [i for i in listed["items"] if i["reference"] == reference]
        assert item["claim_id"] == "CLM-204518" and item["reason"] == "no_clause_selected"
        assert item["question"] == "Will you pay for my rental car while mine is repaired?"
        assert listed["counts_by_reason"] == {"no_clause_selected": 1}
        assert listed["counts_by_family"] == {"motor": 1}

        detail = aroha.get(f"/staff/api/items/{item['id']}").json()
        assert detail["claim"]["policy_number"] == "KM-MTR-204518"
        assert "Alternative transport (hire car): included" in detail["claim"]["schedule_summary"]
        assert [m["role"] for m in detail["conversation"]] == ["claimant", "agent"]
        assert detail["conversation"][1]["waiting_list_reference"] == reference
        turn = detail["turn"]
        assert (turn["family"], turn["version"]) == ("motor", "2026.2")
        assert turn["requested"] == [] and turn["returned"] == [] and turn["not_found"] == []
        assert turn["route_reason"] == "no_clause_selected" and turn["failed_checks"] == []
        assert aroha.get(f"/staff/api/items/{reference}").json()["item"]["id"] == item["id"]

        taken = aroha.post(f"/staff/api/items/{reference}/take")
        assert taken.status_code == 200, taken.text
        assert taken.json()["status"] == "taken" and taken.json()["taken_by"] == "aroha.staff"

        answered = send(
            aroha,
            reference,
            citing_the_rate(
                "Your policy includes a hire car while yours is repaired, subject to the claim "
                "being accepted."
            ),
        )
        assert answered.status_code == 200, answered.text
        done = answered.json()
        assert done["status"] == "answered" and done["answered_by"] == "aroha.staff"
        assert done["answer_citations"] == [
            {
                "clause_id": "MTR-BEN-03",
                "title": done["answer_citations"][0]["title"],
                "version": "2026.2",
                "quote": RATE,
            }
        ]
        assert aroha.get("/staff/api/items", params={"status": "open"}).json()["total"] == 0
        assert aroha.get("/staff/api/items", params={"status": "answered"}).json()["total"] == 1

    messages = conversation(live, "CLM-204518")
    last = messages[-1]
    assert last["role"] == "staff" and last["author"] == "Aroha Ngata"
    assert last["waiting_list_reference"] == reference
    assert last["body"].startswith("Your policy includes a hire car")
    assert RATE in last["body"] and "MTR-BEN-03" not in last["body"]  # the clause by its title
    assert last["id"] == done["answer_message_id"]
    assert last["citations"] == done["answer_citations"]
    # The same answer with its structure, for a page to show it as it shows a served one.
    shown = last["staff_answer"]
    assert shown["text"] == (
        "Your policy includes a hire car while yours is repaired, subject to the claim being accepted."
    )
    [quoted] = shown["clauses"]
    assert (quoted["clause_id"], quoted["version"], quoted["quotes"]) == ("MTR-BEN-03", "2026.2", [RATE])
    assert quoted["title"] in last["body"] and RATE in quoted["full_text"]
    assert len(quoted["full_text"]) > len(RATE)


def test_an_answer_citing_outside_the_governing_wording_is_refused(staff_live) -> None:
    # KM-MTR-118230's term began 2026-03-01: motor 2025.1 governs, and it has no MTR-BEN-03.
    live = staff_live
    routed = claimant_asks(
        live, "CLM-118230", "Does my policy pay for a rental car?", "clause_not_in_directory", ["MTR-BEN-03"]
    )
    reference = routed["waiting_list_reference"]
    with staff(live) as aroha:
        detail = aroha.get(f"/staff/api/items/{reference}").json()
        assert detail["turn"]["version"] == "2025.1"
        assert detail["turn"]["requested"] == ["MTR-BEN-03"]
        assert detail["turn"]["not_found"] == ["MTR-BEN-03"]
        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200

        outside = send(aroha, reference, citing_the_rate("You can have a hire car."))
        assert outside.status_code == 422
        assert "MTR-BEN-03 is not in the governing motor wording 2025.1" in outside.json()["detail"]

        misquote = send(
            aroha,
            reference,
            {
                "text": "Towing is included.",
                "citations": [{"clause_id": "MTR-BEN-01", "quote": "We pay up to NZD 5,000 for towing"}],
            },
        )
        assert misquote.status_code == 422
        assert "does not occur in the clause text" in misquote.json()["detail"]

        assert aroha.get(f"/staff/api/items/{reference}").json()["item"]["status"] == "taken"
        assert all(m["role"] != "staff" for m in conversation(live, "CLM-118230"))

        good = send(
            aroha,
            reference,
            {
                "text": "Your wording has no hire car benefit; towing is covered.",
                "citations": [{"clause_id": "MTR-BEN-01", "quote": TOWING}],
            },
        )
        assert good.status_code == 200, good.text
        assert good.json()["answer_citations"][0]["version"] == "2025.1"
    assert conversation(live, "CLM-118230")[-1]["role"] == "staff"


def test_only_the_taker_can_release_answer_or_close_a_taken_item(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, "CLM-310442", "Is my fence covered?")["waiting_list_reference"]
    answer = {"text": "An answer."}
    with staff(live, "aroha.staff") as aroha, staff(live, "tama.staff") as tama:
        assert send(aroha, reference, answer).status_code == 409
        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200

        second = tama.post(f"/staff/api/items/{reference}/take")
        assert second.status_code == 409
        assert second.json()["detail"] == f"{reference} is already taken by Aroha Ngata"
        assert tama.post(f"/staff/api/items/{reference}/release").status_code == 409
        assert send(tama, reference, answer).status_code == 409
        assert tama.post(f"/staff/api/items/{reference}/close", json={"reason": "dup"}).status_code == 409

        released = aroha.post(f"/staff/api/items/{reference}/release")
        assert released.status_code == 200 and released.json()["status"] == "open"
        assert released.json()["taken_by"] is None
        assert tama.post(f"/staff/api/items/{reference}/take").status_code == 200
        assert tama.post(f"/staff/api/items/{reference}/close", json={"reason": "  "}).status_code == 422
        closed = tama.post(
            f"/staff/api/items/{reference}/close", json={"reason": "Claimant phoned; answered by phone."}
        )
        assert closed.status_code == 200
        assert closed.json()["status"] == "closed" and closed.json()["closed_by"] == "tama.staff"
        assert closed.json()["close_reason"] == "Claimant phoned; answered by phone."
        assert send(tama, reference, answer).status_code == 409
        assert tama.post(f"/staff/api/items/{reference}/take").status_code == 409
        assert tama.post("/staff/api/items/WL-999999/take").status_code == 404
    assert all(m["role"] != "staff" for m in conversation(live, "CLM-310442"))


def add_items(live, specs: list[tuple[str, str, str, timedelta]]) -> list[str]:
    """Items written straight to the database: (claim, family, reason, age)."""
    references = []
    with live.app.state.services.sessions.begin() as session:
        for claim, family, reason, age in specs:
            item = create_item(
                session, claim_id=claim, turn_id=None, family=family, question=f"q {claim}", reason=reason
            )
            item.created_at = utcnow() - age
            references.append(item.reference)
    return references


def test_the_list_filters_pages_and_counts_oldest_first(staff_live) -> None:
    live = staff_live
    day = timedelta(days=1)
    refs = add_items(
        live,
        [
            ("CLM-204518", "motor", "failed_check", 2 * day),
            ("CLM-310442", "home", "no_clause_selected", 5 * day),
            ("CLM-402117", "contents", "no_clause_selected", 1 * day),
            ("CLM-402118", "contents", "needs_decision", 3 * day),
            ("CLM-204519", "motor", "no_clause_selected", 4 * day),
        ],
    )
    oldest_first = [refs[1], refs[4], refs[3], refs[0], refs[2]]
    with staff(live) as aroha:
        first = aroha.get("/staff/api/items", params={"limit": 2}).json()
        assert first["total"] == 5 and [i["reference"] for i in first["items"]] == oldest_first[:2]
        rest = aroha.get("/staff/api/items", params={"limit": 2, "offset": 2}).json()
        last = aroha.get("/staff/api/items", params={"limit": 2, "offset": 4}).json()
        assert [i["reference"] for i in rest["items"] + last["items"]] == oldest_first[2:]
        assert first["counts_by_reason"] == {"failed_check": 1, "needs_decision": 1, "no_clause_selected": 3}
        assert first["counts_by_family"] == {"contents": 2, "home": 1, "motor": 2}

        by_reason = aroha.get("/staff/api/items", params={"reason": "no_clause_selected"}).json()
        assert [i["reference"] for i in by_reason["items"]] == [refs[1], refs[4], refs[2]]
        motor = aroha.get(
            "/staff/api/items", params={"family": "motor", "reason": "no_clause_selected"}
        ).json()
        assert [i["reference"] for i in motor["items"]] == [refs[4]]

        assert aroha.post(f"/staff/api/items/{refs[1]}/take").status_code == 200
        taken = aroha.get("/staff/api/items", params={"status": "taken"}).json()
        assert [i["reference"] for i in taken["items"]] == [refs[1]]
        assert aroha.get("/staff/api/items", params={"status": "open"}).json()["total"] == 4
        assert aroha.get("/staff/api/items", params={"status": "waiting"}).json()["total"] == 5
        assert aroha.get("/staff/api/items", params={"status": "bogus"}).status_code == 422
        assert aroha.get("/staff/api/items", params={"limit": 0}).status_code == 422


def test_content_gaps_per_family_and_questions_with_no_clause(staff_live) -> None:
    live = staff_live
    routed = claimant_asks(live, "CLM-402117", "Is my bike covered when it's parked at work?")
    not_in_wording = claimant_asks(
        live, "CLM-118230", "Rental car?", "clause_not_in_directory", ["MTR-BEN-03"]
    )
    day = timedelta(days=1)
    add_items(
        live,
        [
            ("CLM-402118", "contents", "needs_decision", 10 * day),
            ("CLM-402118", "contents", "no_clause_selected", 20 * day),
            ("CLM-402118", "contents", "no_clause_selected", 40 * day),  # outside both windows
            ("CLM-204518", "motor", "failed_check", 2 * day),
        ],
    )
    with staff(live) as aroha:
        gaps = aroha.get("/staff/api/content-gaps").json()
    families = {f["family"]: f for f in gaps["families"]}
    assert families["contents"]["last_7_days"] == {"no_clause_selected": 1}
    assert families["contents"]["last_30_days"] == {"no_clause_selected": 2, "needs_decision": 1}
    assert (families["contents"]["total_7_days"], families["contents"]["total_30_days"]) == (1, 3)
    assert families["motor"]["last_7_days"] == {"clause_not_in_directory": 1, "failed_check": 1}
    assert families["motor"]["total_30_days"] == 2
    no_clause = {q["reference"]: q for q in gaps["no_clause_selected"]}
    assert set(no_clause) == {routed["waiting_list_reference"], not_in_wording["waiting_list_reference"]}
    asked = no_clause[not_in_wording["waiting_list_reference"]]
    assert asked["version"] == "2025.1" and asked["not_found"] == ["MTR-BEN-03"]
    assert (
        no_clause[routed["waiting_list_reference"]]["question"]
        == "Is my bike covered when it's parked at work?"
    )


def test_an_answer_needing_unreachable_wording_is_refused_and_nothing_changes(staff_live) -> None:
    from agent.evaluation.localstore import free_port
    from knowledge.clauses import ClauseLibrary
    from knowledge.store import ObjectStore
    from tests.conftest import store_settings

    live = staff_live
    reference = claimant_asks(live, "CLM-204518", "Rental car?")["waiting_list_reference"]
    with staff(live) as aroha:
        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
        stopped = ObjectStore(store_settings(f"127.0.0.1:{free_port()}"))
        live.app.state.services.runner.library = ClauseLibrary(stopped)
        refused = send(aroha, reference, citing_the_rate("Yes."))
        assert refused.status_code == 503 and "policy wording unavailable" in refused.json()["detail"]
        assert aroha.get(f"/staff/api/items/{reference}").json()["item"]["status"] == "taken"
        # An answer that cites nothing needs no wording.
        plain = send(aroha, reference, {"text": "We'll call you today."})
        assert plain.status_code == 200 and plain.json()["answer_citations"] == []
    assert conversation(live, "CLM-204518")[-1]["body"] == "We'll call you today."


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_staff_logs_carry_ids_and_outcomes_not_message_text(staff_live, caplog) -> None:
    import logging

    live = staff_live
    question = "my neighbour Hemi saw the thief at 14 Kauri Street"
    reference = claimant_asks(live, "CLM-204518", question)["waiting_list_reference"]
    with caplog.at_level(logging.DEBUG), staff(live) as aroha, staff(live, "tama.staff") as tama:
        aroha.post(f"/staff/api/items/{reference}/take")
        assert tama.post(f"/staff/api/items/{reference}/take").status_code == 409
        answered = send(
            aroha, reference, citing_the_rate("Thanks, the thief's details are with the police liaison team.")
        )
        assert answered.status_code == 200
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert reference in logged and "aroha.staff" in logged and "MTR-BEN-03" in logged
    assert "refused" in logged and "answered" in logged
    assert "Kauri" not in logged and "thief" not in logged and "NZD 60" not in logged


# Access ---------------------------------------------------------------------------------------


def test_a_claimant_token_never_reaches_staff_endpoints(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, "CLM-204518", "Rental car?")["waiting_list_reference"]
    for auth in (TOKENS["CLM-204518"], None, "not-a-token"):
        with live.client(auth) as client:
            assert client.get("/staff/api/items").status_code == 401
            assert client.get(f"/staff/api/items/{reference}").status_code == 401
            assert client.post(f"/staff/api/items/{reference}/take").status_code == 401
            answer = client.post(f"/staff/api/items/{reference}/answer", json={"text": "x"})
            assert answer.status_code == 401
            assert client.get("/staff/api/content-gaps").status_code == 401
    with staff(live) as aroha:
        assert aroha.get(f"/staff/api/items/{reference}").json()["item"]["status"] == "open"


def test_staff_cannot_post_as_a_claimant(staff_live) -> None:
    live = staff_live
    with staff(live) as aroha:
        posted = aroha.post("/claims/CLM-204518/messages", json={"text": "I am the claimant now"})
        assert posted.status_code == 404
        assert aroha.get("/claims/CLM-204518/messages").status_code == 404
    assert conversation(live, "CLM-204518") == []


def test_the_staff_page_needs_a_login(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, "CLM-204518", "Rental car?")["waiting_list_reference"]
    with live.client(STAFF_TOKENS["aroha.staff"]) as client:  # a bearer token is not a page login
        for path in ("/staff", f"/staff/items/{reference}", "/staff/gaps"):
            response = client.get(path, follow_redirects=False)
            assert response.status_code == 303
            assert response.headers["location"].startswith("/staff/login?next=")
        assert client.post(f"/staff/items/{reference}/take", follow_redirects=False).status_code == 303

    with live.client() as browser:
        login_page = browser.get("/staff/login")
        csrf = re.search(r'name="csrf" value="([^"]+)"', login_page.text).group(1)
        wrong = browser.post(
            "/staff/login",
            data={"username": "aroha.staff", "password": "guess", "csrf": csrf, "next": "/staff"},
        )
        assert wrong.status_code == 401 and "Wrong username or password" in wrong.text
        no_csrf = browser.post(
            "/staff/login", data={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"]}
        )
        assert no_csrf.status_code == 403
        ok = browser.post(
            "/staff/login",
            data={
                "username": "aroha.staff",
                "password": STAFF_PASSWORDS["aroha.staff"],
                "csrf": csrf,
                "next": f"/staff/items/{reference}",
            },
            follow_redirects=False,
        )
        assert ok.status_code == 303 and ok.headers["location"] == f"/staff/items/{reference}"
        page = browser.get(f"/staff/items/{reference}")
        assert page.status_code == 200 and "Take this item" in page.text
        # A form without the session's CSRF token is refused and changes nothing.
        forged = browser.post(f"/staff/items/{reference}/take", data={"csrf": "forged"})
        assert forged.status_code == 403
    with staff(live) as aroha:
        assert aroha.get(f"/staff/api/items/{reference}").json()["item"]["status"] == "open"


def test_no_password_or_token_is_stored_in_clear(staff_live, database_url) -> None:
    secrets = [*STAFF_PASSWORDS.values(), *STAFF_TOKENS.values(), *TOKENS.values()]
    engine = create_engine(database_url)
    with Session(engine) as session:
        users = session.scalars(select(StaffUser)).all()
        assert {u.username for u in users} == set(STAFF_TOKENS)
        for user in users:
            assert user.password_hash.startswith("scrypt$")
            assert user.token_hash == hashlib.sha256(STAFF_TOKENS[user.username].encode()).hexdigest()
        # No column of any table holds any password or token as written.
        for table in inspect(engine).get_table_names():
            for row in session.execute(text(f"SELECT * FROM {table}")).all():
                dump = " ".join(str(v) for v in row)
                assert not [s for s in secrets if s in dump], table
    engine.dispose()
