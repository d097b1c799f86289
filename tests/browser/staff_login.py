"""Logging a member of staff in through the login form, as a browser test's first step."""

from __future__ import annotations

from tests.conftest import STAFF_PASSWORDS


def log_in(page, url: str, username: str, next_page: str) -> None:
    """Logs `username` in with their development password and waits for `next_page`."""
    page.goto(f"{url}/staff/login?next={next_page}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(STAFF_PASSWORDS[username])
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{url}{next_page}")
