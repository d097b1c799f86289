"""Pages a new user meets first, in headless Chromium with every other host unreachable: /docs
(Swagger UI) and /redoc (ReDoc) draw from the app's own assets, and the chat page says a
question is too long before it is sent."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.browser.test_chat_page import keep_screenshot
from tests.conftest import TOKENS

pytestmark = [pytest.mark.browser, pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)]


def offline_page(browser, url: str):  # type: ignore[no-untyped-def]
    """A page that can reach only the app: any other host is refused and noted."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    own = urlparse(url).netloc
    elsewhere: list[str] = []

    def only_the_app(route) -> None:  # type: ignore[no-untyped-def]
        if urlparse(route.request.url).netloc in (own, ""):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_the_app)
    page.elsewhere = elsewhere  # type: ignore[attr-defined]
    return page


def test_docs_and_redoc_draw_from_the_apps_own_assets(live, browser, tmp_path) -> None:
    page = offline_page(browser, live.url)
    loaded: list[str] = []
    page.on("requestfinished", lambda request: loaded.append(request.url))
    page.goto(f"{live.url}/docs")
    page.locator(".swagger-ui .info .title").filter(has_text="clausedesk").wait_for(timeout=30_000)
    assert page.locator(".opblock-summary-path", has_text="/claims/{claim_id}/messages").count() >= 1
    keep_screenshot(page, tmp_path, "docs-offline.png")
    page.goto(f"{live.url}/redoc")
    page.get_by_role("heading", name="clausedesk").first.wait_for(timeout=30_000)
    assert page.elsewhere == []  # type: ignore[attr-defined]
    assets = [u for u in loaded if "/docs-assets/" in u]
    assert any(u.endswith("swagger-ui-bundle.js") for u in assets)
    assert any(u.endswith("redoc.standalone.js") for u in assets)


def test_the_chat_page_says_a_question_is_too_long_before_sending(live, browser, tmp_path) -> None:
    page = offline_page(browser, live.url)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.goto(live.url)
    page.get_by_label("Claim number").fill("CLM-204518")
    page.get_by_label("Access code").fill(TOKENS["CLM-204518"])
    page.get_by_role("button", name="Open conversation").click()
    long = "Can I get a rental car? " + "x" * 2976  # 3,000 characters
    page.get_by_label("Your question").fill(long)
    assert page.get_by_label("Your question").input_value() == long  # nothing cut
    notice = page.locator("#length")
    assert "3,000 characters; one message can hold 2,000" in notice.inner_text()
    keep_screenshot(page, tmp_path, "chat-too-long.png")
    page.get_by_role("button", name="Send").click()
    assert posts == [] and page.locator(".msg").count() == 0
    page.get_by_label("Your question").fill(long[:1500])
    assert notice.inner_text() == ""
