"""Cookie tossing in Chromium: a page on another port of the same host sets a cookie of the
staff page's name on Path=/ (cookies do not keep ports apart); staff can still log in."""

from __future__ import annotations

import http.server
import threading

import pytest

from tests.conftest import STAFF_PASSWORDS

pytestmark = pytest.mark.browser


class Tosser(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Set-Cookie", "clausedesk_staff=tossed-by-another-port; Path=/")
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<p>another service on this host</p>")

    def log_message(self, *_: object) -> None:
        pass


def test_a_cookie_tossed_by_another_port_does_not_block_staff_login(staff_live, browser) -> None:
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tosser)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{other.server_address[1]}/")
        page.goto(f"{staff_live.url}/staff/login")
        assert "tossed-by-another-port" in [c["value"] for c in context.cookies()]
        page.get_by_label("Username").fill("aroha.staff")
        page.get_by_label("Password").fill(STAFF_PASSWORDS["aroha.staff"])
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{staff_live.url}/staff")
        assert "Signed in as Aroha Ngata" in page.content()
        context.close()
    finally:
        other.shutdown()
