"""A login response carries the new session's token: no browser or shared cache may keep it."""

from __future__ import annotations

from tests.conftest import STAFF_PASSWORDS
from tests.staff.staff_web import web_login


def test_the_login_responses_are_never_stored(staff_live) -> None:
    with staff_live.client() as client:
        api = client.post(
            "/staff/api/login", json={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"]}
        )
        page = web_login(client, "tama.staff", STAFF_PASSWORDS["tama.staff"])
    assert api.status_code == 201 and api.json()["token"]
    assert api.headers["cache-control"] == "no-store"
    assert page.status_code == 303 and page.headers["cache-control"] == "no-store"
