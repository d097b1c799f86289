"""Server-side staff sessions (finding 5): logout ends the session for whoever still holds
the cookie, sessions expire idle and absolutely, and a user can list and revoke them
through the API and the command line."""

from __future__ import annotations

from datetime import timedelta

import pytest

from agent.db.tables import StaffSession, utcnow
from tests.api.test_production import agent_cmd
from tests.conftest import STAFF_PASSWORDS, STAFF_TOKENS
from tests.staff.staff_web import csrf_of, web_login


def logged_in_browser(live, username: str = "aroha.staff"):
    client = live.client()
    assert web_login(client, username, STAFF_PASSWORDS[username]).status_code == 303
    return client


def opens_the_queue(live, cookie: str) -> bool:
    with live.client() as other:
        page = other.get("/staff", headers={"Cookie": cookie})
    if page.status_code == 303:
        assert page.headers["location"].startswith("/staff/login")
        return False
    assert page.status_code == 200, page.text
    return True


def test_logout_ends_the_session_and_the_old_cookie_no_longer_works(staff_live) -> None:
    browser = logged_in_browser(staff_live)
    cookie = f"clausedesk_staff={browser.cookies['clausedesk_staff']}"
    assert opens_the_queue(staff_live, cookie)

    queue = browser.get("/staff")
    out = browser.post("/staff/logout", data={"csrf": csrf_of(queue)})
    assert out.status_code == 303 and out.headers["location"] == "/staff/login"
    # Someone who copied the cookie before logout gets nothing from it now.
    assert not opens_the_queue(staff_live, cookie)
    browser.close()


def test_sessions_end_when_idle_too_long_and_at_their_absolute_expiry(staff_live) -> None:
    live = staff_live
    settings = live.app.state.services.settings
    idle = logged_in_browser(live)
    aged = logged_in_browser(live)
    cookies = [f"clausedesk_staff={c.cookies['clausedesk_staff']}" for c in (idle, aged)]
    assert all(opens_the_queue(live, c) for c in cookies)

    with live.app.state.services.sessions.begin() as db:
        [first, second] = db.query(StaffSession).order_by(StaffSession.created_at).all()
        first.last_seen_at = utcnow() - timedelta(seconds=settings.session_idle_s + 1)
        second.expires_at = utcnow() - timedelta(seconds=1)
    assert not opens_the_queue(live, cookies[0])
    assert not opens_the_queue(live, cookies[1])
    idle.close()
    aged.close()


def test_a_user_lists_and_revokes_their_own_sessions_through_the_api(staff_live) -> None:
    live = staff_live
    browser = logged_in_browser(live)
    cookie = f"clausedesk_staff={browser.cookies['clausedesk_staff']}"
    with live.client() as anon:
        login = anon.post(
            "/staff/api/login", json={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"]}
        )
    assert login.status_code == 201, login.text
    token = login.json()["token"]
    assert login.json()["session"]["kind"] == "api"

    with live.client(token) as api:
        sessions = api.get("/staff/api/sessions").json()
        assert sorted(s["kind"] for s in sessions) == ["api", "web"]
        assert [s["kind"] for s in sessions if s["current"]] == ["api"]
        assert all(s["expires_at"].endswith(("Z", "+00:00")) for s in sessions)
        [web] = [s for s in sessions if s["kind"] == "web"]

        # Another user cannot see or revoke Aroha's sessions.
        with live.client(STAFF_TOKENS["tama.staff"]) as tama:
            assert tama.get("/staff/api/sessions").json() == []
            assert tama.delete(f"/staff/api/sessions/{web['id']}").status_code == 404
        assert opens_the_queue(live, cookie)

        assert api.delete(f"/staff/api/sessions/{web['id']}").status_code == 204
        assert not opens_the_queue(live, cookie)
        assert [s["kind"] for s in api.get("/staff/api/sessions").json()] == ["api"]

        assert api.post("/staff/api/logout").status_code == 204
        assert api.get("/staff/api/me").status_code == 401
    browser.close()


@pytest.mark.slow  # a process of its own
def test_staff_sessions_and_revoke_commands_end_a_users_sessions(staff_live, database_url) -> None:
    live = staff_live
    browser = logged_in_browser(live, "mere.staff")
    cookie = f"clausedesk_staff={browser.cookies['clausedesk_staff']}"
    env = {"CLAUSEDESK_DATABASE_URL": database_url}

    listed = agent_cmd("staff", "sessions", "mere.staff", env=env)
    assert listed.returncode == 0, listed.stderr
    assert " web  live " in listed.stdout and "1 sessions" in listed.stdout

    revoked = agent_cmd("staff", "revoke", "mere.staff", env=env)
    assert revoked.returncode == 0 and "revoked 1 sessions of mere.staff" in revoked.stdout
    assert not opens_the_queue(live, cookie)
    assert "0 sessions" in agent_cmd("staff", "sessions", "mere.staff", env=env).stdout
    missing = agent_cmd("staff", "sessions", "nobody", env=env)
    assert missing.returncode == 2 and "no staff user nobody" in missing.stderr
    browser.close()
