"""Helpers for driving the staff pages over plain HTTP (no browser)."""

from __future__ import annotations

import re

import httpx


def csrf_of(page: httpx.Response) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found, page.text[:500]
    return found.group(1)


def web_login(client: httpx.Client, username: str, password: str) -> httpx.Response:
    """Open the login form (for its cookie and CSRF token) and post the credentials."""
    form = client.get("/staff/login")
    return client.post(
        "/staff/login", data={"username": username, "password": password, "csrf": csrf_of(form)}
    )
