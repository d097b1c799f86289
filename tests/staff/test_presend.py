"""The pre-send check over HTTP (SQLite and PostgreSQL): an answer is bound to what the handler
saw; what changed since is said in plain words, and a check that cannot run lets the answer
out with a recorded warning."""

from __future__ import annotations

import re
from datetime import date

from sqlalchemy import update

from agent.db.tables import Claim
from knowledge.manifest import Registry
from tests.conftest import TOKENS
from tests.staff.test_staff_api import claimant_asks, conversation, staff

CLAIM = "CLM-204518"  # motor, term from 2026-08-01: governed by motor 2026.2
ANSWER = {"text": "A handler's answer about the hire car."}


def opened(client, reference: str) -> dict:
    """Take the item and read it as its page shows it: the basis an answer is written on."""
    assert client.post(f"/staff/api/items/{reference}/take").status_code == 200
    return client.get(f"/staff/api/items/{reference}").json()


def reasons_of(stale, reference: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The reasons a 409 stale answer gives, in plain words."""
    assert stale.status_code == 409, stale.text
    prefix = f"{reference}: the answer is stale: "
    assert stale.json()["detail"].startswith(prefix)
    return stale.json()["detail"].removeprefix(prefix).split("; ")


def answer(client, reference: str, basis: dict, body: dict = ANSWER):  # type: ignore[no-untyped-def]
    return client.post(f"/staff/api/items/{reference}/answer", json={**body, "basis": basis})


def test_the_claimant_writing_again_makes_the_answer_stale_until_rebuilt(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, CLAIM, "Will you pay for a rental car?")["waiting_list_reference"]
    with staff(live) as aroha:
        item = opened(aroha, reference)
        basis = item["basis"]
        assert (basis["family"], basis["version"], basis["claim_status"]) == ("motor", "2026.2", "open")
        assert basis["last_message_id"] == item["conversation"][-1]["id"]

        claimant_asks(live, CLAIM, "Also, is my windscreen covered?")
        stale = answer(aroha, reference, basis)
        assert stale.status_code == 409, stale.text
        assert re.fullmatch(
            rf"{reference}: the answer is stale: The claimant wrote again at \d\d:\d\d UTC: "
            "“Also, is my windscreen covered\\?”",
            stale.json()["detail"],
        )
        assert aroha.get(f"/staff/api/items/{reference}").json()["item"]["status"] == "taken"
        assert all(m["role"] != "staff" for m in conversation(live, CLAIM))

        now = aroha.get(f"/staff/api/items/{reference}").json()["basis"]
        assert now["last_message_id"] > basis["last_message_id"]
        sent = answer(aroha, reference, now)
        assert sent.status_code == 200, sent.text
        assert (sent.json()["send_check"], sent.json()["answer_version"]) == ("passed", "2026.2")
        assert sent.json()["send_warning"] is None
    assert conversation(live, CLAIM)[-1]["body"] == ANSWER["text"]


def test_a_change_of_governing_wording_or_claim_status_is_each_a_reason(wording_live) -> None:
    live = wording_live
    reference = claimant_asks(live, CLAIM, "Will you pay for a rental car?")["waiting_list_reference"]
    with staff(live) as aroha:
        basis = opened(aroha, reference)["basis"]
        # A successor approved from the claim's term start now governs it.
        store = live.app.state.services.runner.library.store
        Registry(store).approve("motor", "2027.1", date(2026, 8, 1), None, "Mere")
        with live.app.state.services.sessions.begin() as db:
            db.execute(update(Claim).where(Claim.claim_id == CLAIM).values(status="closed"))
        stale = answer(aroha, reference, basis)
        assert stale.status_code == 409, stale.text
        reasons = reasons_of(stale, reference)
        assert len(reasons) == 2
        assert re.fullmatch(r"Wording motor 2027\.1 was approved at \d\d:\d\d UTC", reasons[0])
        assert reasons[1] == "The claim's status changed from open to closed"
        now = aroha.get(f"/staff/api/items/{reference}").json()["basis"]
        assert (now["version"], now["claim_status"]) == ("2027.1", "closed")

        Registry(store).withdraw("motor", "2027.1", "Mere", "approved by mistake")
        reasons = reasons_of(answer(aroha, reference, now), reference)
        assert re.fullmatch(r"Wording motor 2027\.1 was withdrawn at \d\d:\d\d UTC", reasons[0])
        assert reasons[1:] == ["No approved motor wording governs this claim now"]


def test_a_check_that_cannot_run_lets_the_answer_out_with_a_recorded_warning(staff_live) -> None:
    from agent.evaluation.localstore import free_port
    from knowledge.clauses import ClauseLibrary
    from knowledge.store import ObjectStore
    from tests.conftest import store_settings

    live = staff_live
    reference = claimant_asks(live, CLAIM, "Rental car?")["waiting_list_reference"]
    with staff(live) as aroha:
        basis = opened(aroha, reference)["basis"]
        runner = live.app.state.services.runner
        working, runner.library = (
            runner.library,
            ClauseLibrary(ObjectStore(store_settings(f"127.0.0.1:{free_port()}"))),
        )
        try:
            down = aroha.get(f"/staff/api/items/{reference}").json()
            assert "cannot be read" in down["basis_warning"] and down["basis"]["version"] is None
            sent = answer(aroha, reference, basis)
        finally:
            runner.library = working
        assert sent.status_code == 200, sent.text
        done = sent.json()
        assert done["send_check"] == "unavailable"
        assert "The pre-send check could not confirm the governing wording" in done["send_warning"]
        # What the handler saw is what the answer stood on.
        assert done["answer_version"] == "2026.2"
        assert (
            aroha.get(f"/staff/api/items/{reference}").json()["item"]["send_warning"] == done["send_warning"]
        )
        # Counted where a manager looks.
        assert aroha.get("/staff/api/content-gaps").json()["sent_without_check_30_days"] == {"motor": 1}
    with live.client(TOKENS[CLAIM]) as client:
        assert client.get(f"/claims/{CLAIM}/messages").json()["messages"][-1]["role"] == "staff"


def test_an_answer_without_its_basis_is_refused_saying_what_is_missing(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, CLAIM, "Rental car?")["waiting_list_reference"]
    with staff(live) as aroha:
        opened(aroha, reference)
        refused = aroha.post(f"/staff/api/items/{reference}/answer", json=ANSWER)
        assert refused.status_code == 422
        assert refused.json()["detail"] == "basis: Field required"
