"""A stranger guessing a staff user's password from many addresses cannot lock that user out:
staff logins are counted per address, per user and address, and per user, the way claimants'
access codes are (agent.throttle.Guard)."""

from __future__ import annotations

from tests.conftest import STAFF_PASSWORDS, make_live_app
from tests.staff.staff_web import csrf_of

USER = "aroha.staff"


def api_login(client, password: str, address: str):
    return client.post(
        "/staff/api/login",
        json={"username": USER, "password": password},
        headers={"X-Forwarded-For": address},
    )


def test_wrong_passwords_from_many_addresses_do_not_lock_the_user_out(sqlite_url, corpus_store) -> None:
    server = make_live_app(sqlite_url, corpus_store, trusted_proxies="127.0.0.1")
    try:
        with server.client() as client:
            guesses = [api_login(client, f"guess-{n}", f"203.0.113.{n}") for n in range(12)]
            again = api_login(client, STAFF_PASSWORDS[USER], "203.0.113.3")
            right = api_login(client, STAFF_PASSWORDS[USER], "192.0.2.50")
            form = client.get("/staff/login", headers={"X-Forwarded-For": "192.0.2.51"})
            page = client.post(
                "/staff/login",
                data={"username": USER, "password": STAFF_PASSWORDS[USER], "csrf": csrf_of(form)},
                headers={"X-Forwarded-For": "192.0.2.51"},
            )
    finally:
        server.stop()
        server.app.state.engine.dispose()
    assert {g.status_code for g in guesses} == {401}
    # Past the user's limit an address that already guessed wrong is refused, even with the
    # right password ...
    assert again.status_code == 429 and "login attempts for this account" in again.json()["detail"]
    # ... and the user, from an address that sent no wrong password, gets in: API and page.
    assert right.status_code == 201, right.text
    assert page.status_code == 303, page.text


def test_wrong_passwords_from_one_address_still_lock_that_address(sqlite_url, corpus_store) -> None:
    server = make_live_app(sqlite_url, corpus_store, trusted_proxies="127.0.0.1")
    try:
        with server.client() as client:
            guesses = [api_login(client, f"guess-{n}", "198.51.100.7") for n in range(6)]
            right_there = api_login(client, STAFF_PASSWORDS[USER], "198.51.100.7")
            right_elsewhere = api_login(client, STAFF_PASSWORDS[USER], "192.0.2.60")
    finally:
        server.stop()
        server.app.state.engine.dispose()
    assert [g.status_code for g in guesses] == [401] * 5 + [429]
    assert right_there.status_code == 429 and int(right_there.headers["retry-after"]) >= 1
    assert right_elsewhere.status_code == 201, right_elsewhere.text
