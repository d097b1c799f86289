"""Input limits (findings 4 and 6): bodies capped before parsing, text normalised (control
characters refused, invisible-only text is blank), item keys and paging parameters that
can never cause a 500, conversations paginated, NUL never reaching PostgreSQL."""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import func, select, text

from agent.db.tables import Message, make_engine
from agent.staff.waiting_list import create_item
from tests.conftest import STAFF_PASSWORDS, STAFF_TOKENS, TOKENS
from tests.staff.staff_web import csrf_of, web_login

CLAIM = "CLM-204518"


def messages_stored(live, claim: str = CLAIM) -> int:
    with live.app.state.services.sessions() as db:
        return db.scalar(select(func.count()).select_from(Message).where(Message.claim_id == claim))


def test_a_16_mb_body_is_refused_by_its_length_before_it_is_read(live) -> None:
    with live.client(TOKENS[CLAIM]) as client:
        response = client.post(
            f"/claims/{CLAIM}/messages",
            content=b'{"text": "' + b"x" * (16 * 1024 * 1024) + b'"}',
            headers={"Content-Type": "application/json"},
        )
    assert response.status_code == 413
    assert response.json() == {"detail": "request body over 65536 bytes"}
    assert messages_stored(live) == 0


def test_a_streamed_body_without_length_is_refused_once_it_passes_the_limit(live) -> None:
    sent = []

    def chunks():
        for _ in range(64):  # up to 4 MB in 64 KB chunks; the server stops reading early
            sent.append(1)
            yield b"x" * 65536

    with live.client(TOKENS[CLAIM]) as client:
        response = client.post(
            f"/claims/{CLAIM}/messages", content=chunks(), headers={"Content-Type": "application/json"}
        )
    assert response.status_code == 413
    assert messages_stored(live) == 0


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            "hello\x00world",
            "text: Value error, contains U+0000 (control character), which is not allowed in text",
        ),
        ("\x00", "text: Value error, contains U+0000 (control character), which is not allowed in text"),
        ("ring\x07", "text: Value error, contains U+0007 (control character), which is not allowed in text"),
        ("\u200b\u200b\u200b", "text: Value error, message text is empty"),
        ("\ufeff \u200d\u2060\u00a0", "text: Value error, message text is empty"),
        ("\u3164\u2800", "text: Value error, message text is empty"),
    ],
)
def test_control_characters_and_invisible_only_text_are_refused_with_422(live, body, problem) -> None:
    with live.client(TOKENS[CLAIM]) as client:
        response = client.post(f"/claims/{CLAIM}/messages", json={"text": body})
    assert response.status_code == 422, response.text
    assert response.json() == {"detail": problem}
    assert messages_stored(live) == 0


def test_line_breaks_and_tabs_are_kept_and_invisible_edges_trimmed(live) -> None:
    with live.client(TOKENS[CLAIM]) as client:
        response = client.post(
            f"/claims/{CLAIM}/messages", json={"text": "\u200bWhat is\r\nmy\texcess?\ufeff"}
        )
        assert response.status_code == 200, response.text
        first = client.get(f"/claims/{CLAIM}/messages").json()["messages"][0]
    assert first["body"] == "What is\nmy\texcess?"


def test_nul_in_staff_text_urls_and_forms_never_reaches_the_database(staff_live) -> None:
    live = staff_live
    with live.app.state.services.sessions.begin() as db:
        item = create_item(
            db,
            claim_id=CLAIM,
            turn_id=None,
            family="motor",
            question="Rental car?",
            reason="no_clause_selected",
        )
        reference = item.reference
    with live.client(STAFF_TOKENS["aroha.staff"]) as aroha:
        assert aroha.post(f"/staff/api/items/{reference}/take").status_code == 200
        answer = aroha.post(f"/staff/api/items/{reference}/answer", json={"text": "Yes\x00"})
        assert answer.status_code == 422 and "U+0000" in answer.json()["detail"]
        cited = aroha.post(
            f"/staff/api/items/{reference}/answer",
            json={"text": "See the clause.", "citations": [{"clause_id": "MTR\x00", "quote": "x"}]},
        )
        assert cited.status_code == 422 and "citations.0.clause_id" in cited.json()["detail"]
        closed = aroha.post(f"/staff/api/items/{reference}/close", json={"reason": "\u200b\u200c"})
        assert closed.status_code == 422
        assert closed.json()["detail"] == "reason: Value error, a reason is needed to close an item"
        for url in (
            "/staff/api/items?reason=%00",
            "/staff/api/items?family=a%00b",
            "/staff/api/items/WL-%00",
        ):
            refused = aroha.get(url)
            assert refused.status_code == 400, (url, refused.text)
            assert (
                refused.json()["detail"]
                == "the URL contains U+0000 (control character), which is not allowed in text"
            )
    with live.client(TOKENS[CLAIM]) as claimant:
        assert claimant.get("/claims/CLM-%00/messages").status_code == 400
    with live.client() as browser:
        form = browser.get("/staff/login")
        login = browser.post(
            "/staff/login", data={"username": "aroha\x00", "password": "x", "csrf": csrf_of(form)}
        )
        assert login.status_code == 422 and "U+0000" in login.json()["detail"]
        assert web_login(browser, "aroha.staff", STAFF_PASSWORDS["aroha.staff"]).status_code == 303
        page = browser.get(f"/staff/items/{reference}")
        posted = browser.post(
            f"/staff/items/{reference}/answer", data={"text": "Yes\x00", "csrf": csrf_of(page)}
        )
        assert posted.status_code == 422


def test_sql_parameters_never_reach_logs_or_error_messages(database_url, caplog) -> None:
    engine = make_engine(database_url)
    caplog.set_level(logging.DEBUG)
    secret = "my-private-question-about-my-car"
    with pytest.raises(Exception) as raised, engine.connect() as connection:
        connection.execute(text("SELECT no_such_column FROM claims WHERE claim_id = :x"), {"x": secret})
    assert secret not in str(raised.value)
    assert secret not in caplog.text
    engine.dispose()


@pytest.mark.parametrize("key", ["²", "１", "99999999999999999999", "%20", "WL-", "-1", "1e3", "0x1", "٣"])
def test_item_keys_that_are_not_a_reference_or_ascii_digits_are_404(staff_live, key) -> None:
    live = staff_live
    with live.app.state.services.sessions.begin() as db:
        item = create_item(
            db, claim_id=CLAIM, turn_id=None, family="motor", question="Tow?", reason="no_clause_selected"
        )
        item_id = item.id
    with live.client(STAFF_TOKENS["aroha.staff"]) as aroha:
        assert aroha.get(f"/staff/api/items/{item_id}").status_code == 200
        if key == "１":  # fullwidth digit one: the same digit to int(), not the same key here
            key = chr(ord("０") + item_id) if item_id < 10 else "１"
        for method, path in (("GET", f"/staff/api/items/{key}"), ("POST", f"/staff/api/items/{key}/take")):
            response = aroha.request(method, path)
            assert response.status_code == 404, (method, path, response.text)
            assert response.json()["detail"].startswith("no waiting-list item")
    with live.client() as browser:
        web_login(browser, "aroha.staff", STAFF_PASSWORDS["aroha.staff"])
        assert browser.get(f"/staff/items/{key}").status_code == 404


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        ("offset=", "query.offset: Input should be a valid integer, unable to parse string as an integer"),
        ("offset=99999999999999999999", "query.offset: Input should be less than or equal to 1000000"),
        ("offset=-1", "query.offset: Input should be greater than or equal to 0"),
        ("offset=²", "query.offset: Input should be a valid integer, unable to parse string as an integer"),
        ("limit=0", "query.limit: Input should be greater than or equal to 1"),
        ("limit=100000", "query.limit: Input should be less than or equal to 200"),
    ],
)
def test_paging_parameters_are_bounded_with_a_clear_422(staff_live, query, problem) -> None:
    with staff_live.client(STAFF_TOKENS["aroha.staff"]) as aroha:
        response = aroha.get(f"/staff/api/items?{query}")
    assert response.status_code == 422
    assert response.json() == {"detail": problem}


@pytest.mark.parametrize("offset", ["", "²", "１", "99999999999999999999", "-5"])
def test_the_staff_page_shows_the_first_page_for_an_unusable_offset(staff_live, offset) -> None:
    with staff_live.client() as browser:
        web_login(browser, "aroha.staff", STAFF_PASSWORDS["aroha.staff"])
        page = browser.get(f"/staff?offset={offset}")
    assert page.status_code == 200
    assert "Waiting list" in page.text


def test_a_long_conversation_comes_in_pages_newest_page_first(live) -> None:
    with live.app.state.services.sessions.begin() as db:
        db.add_all(Message(claim_id=CLAIM, role="claimant", body=f"message {n}") for n in range(120))
    seen: list[str] = []
    with live.client(TOKENS[CLAIM]) as client:
        page = client.get(f"/claims/{CLAIM}/messages").json()
        assert len(page["messages"]) == 50 and page["has_more"] is True
        assert page["messages"][-1]["body"] == "message 119"
        while True:
            seen = [m["body"] for m in page["messages"]] + seen
            if not page["has_more"]:
                assert page["next_before"] is None
                break
            page = client.get(f"/claims/{CLAIM}/messages", params={"before": page["next_before"]}).json()
        assert seen == [f"message {n}" for n in range(120)]
        small = client.get(f"/claims/{CLAIM}/messages", params={"limit": 5}).json()
        assert [m["body"] for m in small["messages"]] == [f"message {n}" for n in range(115, 120)]
        too_big = client.get(f"/claims/{CLAIM}/messages", params={"limit": 500})
        assert too_big.status_code == 422
        assert too_big.json()["detail"] == "query.limit: Input should be less than or equal to 200"
        assert client.get(f"/claims/{CLAIM}/messages", params={"before": ""}).status_code == 422


def test_an_undeclared_query_parameter_is_refused_not_ignored(staff_live) -> None:
    with staff_live.client(STAFF_TOKENS["aroha.staff"]) as aroha:
        misspelt = aroha.get("/staff/api/items?ofset=50")
        nameless = aroha.get("/staff/api/items?=0")
    assert misspelt.status_code == 422
    assert misspelt.json()["detail"] == (
        "unknown query parameter 'ofset'; this operation takes family, limit, offset, reason, status"
    )
    assert nameless.status_code == 422
    with staff_live.client(TOKENS[CLAIM]) as claimant:
        assert claimant.get(f"/claims/{CLAIM}/messages?limit=5&page=2").status_code == 422
        assert claimant.get(f"/claims/{CLAIM}/messages?limit=5").status_code == 200


def test_a_message_over_the_limit_is_refused_naming_the_limit_and_nothing_is_cut(live) -> None:
    """3,000 characters: refused whole with the limit in the answer; nothing stored, so no part
    of it is answered as if it were the whole."""
    with live.client(TOKENS[CLAIM]) as client:
        response = client.post(f"/claims/{CLAIM}/messages", json={"text": "My car " + "x" * 2993})
    assert response.status_code == 422
    assert response.json() == {"detail": "text: String should have at most 2000 characters"}
    assert messages_stored(live) == 0
