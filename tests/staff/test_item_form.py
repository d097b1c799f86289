"""The item page's answer form without JavaScript, over plain HTTP: several citations, the
basis in hidden fields, a stale send shown with its reason and one rebuild (SQLite and PostgreSQL)."""

from __future__ import annotations

import re

from tests.conftest import STAFF_PASSWORDS
from tests.staff.staff_web import csrf_of, web_login
from tests.staff.test_staff_api import claimant_asks, conversation, staff

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
TOWING = "We pay up to NZD 2,000 for towing and storage for each event."


def hidden(page, name: str) -> str:  # type: ignore[no-untyped-def]
    found = re.search(rf'name="{name}" value="([^"]*)"', page.text)
    assert found, name
    return found.group(1)


def form_of(page, text: str, citations: list[tuple[str, str]]) -> dict:  # type: ignore[no-untyped-def]
    rows = citations + [("", "")] * (3 - len(citations))
    return {
        "csrf": csrf_of(page),
        "text": text,
        "clause_id": [c for c, _ in rows],
        "quote": [q for _, q in rows],
        **{
            f: hidden(page, f)
            for f in ("basis_message", "basis_family", "basis_version", "basis_hash", "basis_status")
        },
    }


def test_an_answer_with_two_citations_is_sent_from_the_plain_form(staff_live) -> None:
    live = staff_live
    reference = claimant_asks(live, "CLM-204518", "Hire car and towing?")["waiting_list_reference"]
    with live.client() as browser:
        assert web_login(browser, "aroha.staff", STAFF_PASSWORDS["aroha.staff"]).status_code == 303
        page = browser.get(f"/staff/items/{reference}")
        browser.post(f"/staff/items/{reference}/take", data={"csrf": csrf_of(page)})
        page = browser.get(f"/staff/items/{reference}")
        assert hidden(page, "basis_version") == "2026.2" and hidden(page, "basis_status") == "open"
        assert page.text.count('name="clause_id"') == 3

        # The claimant writes again: the send is refused with the reason and a rebuild button.
        written = form_of(page, "Both are covered.", [("MTR-BEN-03", RATE), ("MTR-BEN-01", TOWING)])
        claimant_asks(live, "CLM-204518", "Any news? <b>Tow</b> & hire")
        stale = browser.post(f"/staff/items/{reference}/answer", data=written)
        assert stale.status_code == 409
        # The notice quotes what the claimant wrote, escaped: their words, never markup.
        assert re.search(
            r"<li>The claimant wrote again at \d\d:\d\d UTC: "
            r"“Any news\? &lt;b&gt;Tow&lt;/b&gt; &amp; hire”</li>",
            stale.text,
        )
        assert "Rebuild the draft" in stale.text and "Both are covered." in stale.text
        rebuilt = browser.post(
            f"/staff/items/{reference}/rebuild", data={"csrf": csrf_of(stale), "text": "Both are covered."}
        )
        assert rebuilt.status_code == 200
        assert int(hidden(rebuilt, "basis_message")) > int(written["basis_message"])

        sent = browser.post(
            f"/staff/items/{reference}/answer",
            data=form_of(rebuilt, "Both are covered.", [("MTR-BEN-03", RATE), ("MTR-BEN-01", TOWING)]),
            follow_redirects=False,
        )
        assert sent.status_code == 303, re.findall(r"role=\"alert\">(.*?)<", sent.text)
    with staff(live) as aroha:
        item = aroha.get(f"/staff/api/items/{reference}").json()["item"]
    assert [c["clause_id"] for c in item["answer_citations"]] == ["MTR-BEN-03", "MTR-BEN-01"]
    body = conversation(live, "CLM-204518")[-1]["body"]
    assert RATE in body and TOWING in body
