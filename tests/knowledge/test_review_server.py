"""The import review page takes orders from its owner's browser only: loopback Host, the
secret key of its printed address (then a cookie), the form's CSRF token and a same-origin
Origin on every state-changing request, and redirects only to its own paths. Through HTTP
against the real app, and the command's own output naming the port and the address."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from knowledge.importer import build, write
from knowledge.review.app import COOKIE, create_app
from knowledge.review.state import open_review
from knowledge.sample import SAMPLE
from tests.support import ROOT, LiveServer, serve


@pytest.fixture(scope="module")
def draft(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("review") / "drafts" / "travel" / "2026.1.md"
    return write(build(SAMPLE, "travel", "2026.1", "TRV", None, None), out)[0]


@pytest.fixture(scope="module")
def server(draft: Path):  # type: ignore[no-untyped-def]
    live = serve(create_app(draft))
    yield live
    live.stop()


def signed_in(server: LiveServer) -> tuple[httpx.Client, str]:
    """A client that opened the printed address, and the CSRF token of the page it got."""
    client = httpx.Client(base_url=server.url, timeout=30)
    first = client.get(server.app.state.entry)
    assert first.status_code == 303 and first.headers["location"] == "/"
    assert "key=" not in first.headers["location"] and COOKIE in client.cookies
    page = client.get("/")
    assert page.status_code == 200
    return client, re.search(r'name="csrf" value="([0-9a-f]+)"', page.text)[1]  # type: ignore[index]


def decisions(draft: Path) -> dict:
    return open_review(draft).decisions


def test_without_the_key_nothing_is_shown_or_changed(server: LiveServer, draft: Path) -> None:
    bare = httpx.Client(base_url=server.url, timeout=30)
    assert bare.get("/").status_code == 403
    assert bare.get("/matrix").status_code == 403
    refused = bare.post("/removals/accept", data={})
    assert refused.status_code == 403 and "printed" in refused.text
    assert bare.get("/?key=guessed").status_code == 403
    assert "removals" not in decisions(draft)


def test_a_foreign_page_cannot_drive_it_even_in_the_owners_browser(server: LiveServer, draft: Path) -> None:
    client, csrf = signed_in(server)
    # A page on another origin posting in the owner's browser (the cookie goes with it).
    foreign = client.post("/removals/accept", data={"csrf": csrf}, headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403 and "another site" in foreign.text
    cross = client.post("/removals/accept", data={"csrf": csrf}, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    # Without the form's token (a form that does not come from the page itself).
    tokenless = client.post("/removals/accept", data={}, headers={"Origin": server.url})
    assert tokenless.status_code == 403 and "CSRF" in tokenless.text
    unit = open_review(draft).report["units"][0]["id"]
    retitle = client.post(
        f"/unit/{unit}", data={"action": "save", "title": "Taken over", "applies": "", "csrf": "0" * 64}
    )
    assert retitle.status_code == 403
    assert "removals" not in decisions(draft) and unit not in decisions(draft).get("edits", {})
    # A foreign Host (DNS rebinding onto 127.0.0.1) is not served, key or not.
    rebound = client.get("/", headers={"Host": "evil.example:80"})
    assert rebound.status_code == 403


def test_the_owner_decides_and_is_sent_back_only_within_the_page(server: LiveServer, draft: Path) -> None:
    client, csrf = signed_in(server)
    accepted = client.post("/removals/accept", data={"csrf": csrf}, headers={"Origin": server.url})
    assert accepted.status_code == 303 and "removals" in decisions(draft)
    unit = open_review(draft).report["units"][0]["id"]
    off_site = client.post(
        f"/unit/{unit}",
        data={
            "action": "save",
            "title": "The owner's title",
            "applies": "",
            "back": "//evil.example/x",
            "csrf": csrf,
        },
    )
    assert off_site.status_code == 303 and off_site.headers["location"] == "/"
    assert decisions(draft)["edits"][unit]["title"] == "The owner's title"


def test_the_command_prints_its_port_and_its_keyed_address(draft: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "knowledge", "review", str(draft), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        said = proc.stdout.readline() + proc.stdout.readline()
        assert f"on port {port}" in said
        address = re.search(r"http://127\.0\.0\.1:(\d+)/\?key=(\S+)", said)
        assert address and int(address[1]) == port
        client = httpx.Client(timeout=30)
        for _ in range(100):
            try:
                opened = client.get(address[0], follow_redirects=True)
                break
            except httpx.ConnectError:
                import time

                time.sleep(0.1)
        assert opened.status_code == 200 and "decisions made" in opened.text
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=30).status_code == 403
    finally:
        proc.terminate()
        proc.wait(timeout=20)
