"""What a handler sends is checked against the server's own state, over HTTP (SQLite and
PostgreSQL):

- the pre-send basis names a message of this claim's conversation: a forged
  `last_message_id` (far in the future, or another claim's newer message) is stale, on the API
  and on the page's hidden fields, whatever the claimant wrote since;
- a draft is replaced only by the handler holding a taken item (as answer, release and
  close are), on the API and the page.
"""

from __future__ import annotations

import re

from tests.conftest import STAFF_PASSWORDS
from tests.staff.staff_web import csrf_of, web_login
from tests.staff.test_drafts import routed_after_fetching
from tests.staff.test_item_form import form_of
from tests.staff.test_presend import opened
from tests.staff.test_staff_api import claimant_asks, conversation, staff

CLAIM = "CLM-204518"
OTHER = "CLM-310442"
ANSWER = "A handler's answer about the hire car."


def staff_answers(live) -> list[dict]:
    return [m for m in conversation(live, CLAIM) if m["role"] == "staff"]


def test_a_forged_last_message_id_is_stale_on_the_api(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, CLAIM, "Will you pay for a rental car?")["waiting_list_reference"]
    with staff(live) as aroha:
        basis = opened(aroha, reference)["basis"]
        claimant_asks(live, CLAIM, "Also, is my windscreen covered?")  # not seen by the handler
        elsewhere = claimant_asks(live, OTHER, "Is my jewellery covered?")  # a newer message id
        newer_elsewhere = conversation(live, OTHER)[-1]["id"]
        assert elsewhere and newer_elsewhere > basis["last_message_id"]
        forged = [
            aroha.post(
                f"/staff/api/items/{reference}/answer",
                json={"text": ANSWER, "basis": {**basis, "last_message_id": forged_id}},
            )
            for forged_id in (2**62, newer_elsewhere)
        ]
    for refused in forged:
        assert refused.status_code == 409, refused.text
        assert refused.json()["detail"].startswith(f"{reference}: the answer is stale: ")
        assert "is not in this claim's conversation" in refused.json()["detail"]
    assert staff_answers(live) == []


def test_a_forged_basis_field_on_the_page_is_stale(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, CLAIM, "Hire car?")["waiting_list_reference"]
    with live.client() as browser:
        assert web_login(browser, "aroha.staff", STAFF_PASSWORDS["aroha.staff"]).status_code == 303
        page = browser.get(f"/staff/items/{reference}")
        browser.post(f"/staff/items/{reference}/take", data={"csrf": csrf_of(page)})
        page = browser.get(f"/staff/items/{reference}")
        claimant_asks(live, CLAIM, "Any news?")
        written = {**form_of(page, ANSWER, []), "basis_message": str(2**59)}
        refused = browser.post(f"/staff/items/{reference}/answer", data=written)
    assert refused.status_code == 409, re.findall(r"role=\"alert\">(.*?)<", refused.text)
    assert "is not in this claim&#39;s conversation" in refused.text
    assert staff_answers(live) == []


def test_only_the_holder_of_a_taken_item_replaces_its_draft(staff_live) -> None:
    live = staff_live
    reference = routed_after_fetching(live, ["MTR-BEN-03"])
    with staff(live) as aroha, staff(live, "tama.staff") as tama:
        first = opened(aroha, reference)["draft"]
        assert first is not None
        replaced = tama.post(f"/staff/api/items/{reference}/draft", json={"clause_ids": ["MTR-BEN-01"]})
        assert replaced.status_code == 409, replaced.text
        assert "taken by Aroha" in replaced.json()["detail"]
        assert aroha.get(f"/staff/api/items/{reference}").json()["draft"]["id"] == first["id"]

        with live.client() as browser:  # the page's rebuild and "draft from the wording"
            assert web_login(browser, "tama.staff", STAFF_PASSWORDS["tama.staff"]).status_code == 303
            page = browser.get(f"/staff/items/{reference}")
            rebuilt = browser.post(
                f"/staff/items/{reference}/rebuild", data={"csrf": csrf_of(page), "text": "x"}
            )
            drafted = browser.post(
                f"/staff/items/{reference}/draft", data={"csrf": csrf_of(page), "clause_ids": "MTR-BEN-01"}
            )
        assert rebuilt.status_code == 409 and drafted.status_code == 409
        assert aroha.get(f"/staff/api/items/{reference}").json()["draft"]["id"] == first["id"]

        mine = aroha.post(f"/staff/api/items/{reference}/draft", json={"clause_ids": ["MTR-BEN-01"]})
        assert mine.status_code == 200, mine.text
        assert aroha.get(f"/staff/api/items/{reference}").json()["draft"]["id"] == mine.json()["id"]
