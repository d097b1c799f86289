"""The policy owner's review of an import, walked through in Chromium: every decision the page
asks for is made by clicking, the words shown to read are counted, the draft is written from
the review and validates as the report says. Minutes = words / 200 + 10 s per decision.

The AXA car booklet (its source lines beside each part) and the NRMA PDS (an image of each
source page beside its units, rendered by pypdfium2)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.cli import wording as cli
from knowledge.importing.pipeline import build, write
from knowledge.importing.review.app import create_app
from knowledge.importing.review.state import open_review
from tests.knowledge import imports, own_wordings
from tests.knowledge.imports import CAR_2021, NRMA
from tests.support import serve

pytestmark = pytest.mark.browser
TARGET_MINUTES = 60
TARGET_DECISIONS = 60


def walk_through(browser, base: str, entry: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    page = browser.new_page()
    page.goto(base + entry)  # the printed address: its key becomes the page's cookie
    read: set[str] = set()  # each passage is read once, however often its page reloads
    words = 0
    decisions = 0

    def take_in() -> None:
        nonlocal words
        for text in page.locator(".read").all_inner_texts():
            key = " ".join(text.split())
            if key and key not in read:
                read.add(key)
                words += len(re.findall(r"\w+", key))

    def decide(selector: str) -> None:
        nonlocal decisions
        left = page.locator(selector).count()
        page.locator(selector).first.click()
        page.wait_for_function(
            "([s, n]) => document.querySelectorAll(s).length < n", arg=[selector, left], timeout=10_000
        )
        decisions += 1

    page.goto(base + "/")
    take_in()
    parts = page.locator("a.part").count()
    shown = False  # one page image seen to render is enough: each part's is the same endpoint
    decide("#accept-removals")
    for n in range(parts):
        page.goto(f"{base}/part/{n}")
        take_in()
        while page.locator("button.accept-unit").count():
            decide("button.accept-unit")
        images = page.locator(".source img")
        if images.count() and not shown:  # the source page beside the units is an image of it
            shown = True
            first = images.first
            first.scroll_into_view_if_needed()
            page.wait_for_function(
                "(img) => img.complete && img.naturalWidth > 0", arg=first.element_handle(), timeout=20_000
            )
        decide("#accept-part")
    page.goto(base + "/matrix")
    take_in()
    while page.locator("button.accept-row").count():
        decide("button.accept-row")
    while page.locator("button.accept-unread").count():
        decide("button.accept-unread")
    page.goto(base + "/")
    assert re.match(r"(\d+) of \1 decisions made", page.locator("#progress").inner_text())
    page.locator("#write").click()
    page.wait_for_load_state()
    result = page.locator("#result").inner_text()
    page.close()
    assert "ok: the draft validates" in result, result
    minutes = words / 200 + decisions * 10 / 60
    return {"decisions": decisions, "words": words, "minutes": round(minutes, 1)}


@pytest.mark.parametrize("name", [CAR_2021, NRMA])
def test_review_walk_through_writes_a_draft_that_validates(browser, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    draft, _, _ = write(imports.imported(name), tmp_path / "drafts" / "motor" / "2022.1.md")
    app = create_app(draft)
    server = serve(app)
    try:
        figures = walk_through(browser, server.url, app.state.entry)
    finally:
        server.stop()
    print(f"\nreview of {name}: {json.dumps(figures)}")
    assert figures["minutes"] <= TARGET_MINUTES, figures
    # Parts of a unit cut by length are one decision, a part's fragments another (issue: at most 60).
    assert figures["decisions"] <= TARGET_DECISIONS, figures
    assert cli.main(["validate", str(draft)]) == 0  # the report's last step, as it says
    state = json.loads(draft.with_name(draft.name + ".review.json").read_text())
    assert "removals" in state and "written" in state


def test_an_edited_title_and_applies_line_reach_the_draft(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    draft, _, _ = write(imports.imported(CAR_2021), tmp_path / "drafts" / "motor" / "2021.1.md")
    unit = imports.imported(CAR_2021).report.units[5]
    app = create_app(draft)
    server = serve(app)
    try:
        page = browser.new_page()
        page.goto(server.url + app.state.entry)
        page.goto(f"{server.url}/unit/{unit['id']}")
        assert page.locator("#source-lines").inner_text()  # the source lines beside the unit
        page.fill("input[name=title]", "x" * 95)
        page.click("#save")
        assert "2 words to 90 characters" in page.locator("#error").inner_text()
        page.fill("input[name=title]", "Owner's own title for this clause")
        page.fill("input[name=applies]", "<!-- applies: plans=Comprehensive -->")
        page.click("#save")
        page.close()
    finally:
        server.stop()
    from knowledge.importing.review.state import open_review

    text = open_review(draft).written()
    assert (
        f"## {unit['id']} - Owner's own title for this clause\n<!-- applies: plans=Comprehensive -->" in text
    )
    assert "review: titles" in text  # not every decision is made yet


@pytest.mark.parametrize(("wording", "width"), [("own", 1280), ("own", 360), ("nrma", 1280)])
def test_nothing_covers_an_accept_button(browser, tmp_path: Path, wording: str, width: int) -> None:  # type: ignore[no-untyped-def]
    # PDF wordings: their source pages are images beside the matrix table (NRMA's is wide).
    if wording == "own":
        source = own_wordings.render_motor_pdf(tmp_path / "harbour-motor.pdf")
        imported = build(source, "motor", "2026.1", "MTR", None, None)
    else:
        imported = imports.imported(NRMA)
    draft, _, _ = write(imported, tmp_path / "d" / "2026.1.md")
    app = create_app(draft)
    server = serve(app)
    try:
        page = browser.new_page(viewport={"width": width, "height": 800})
        page.goto(server.url + app.state.entry)
        checked = 0
        for path in ("/matrix", *(f"/part/{n}" for n in range(len(open_review(draft).parts())))):
            page.goto(server.url + path)
            page.wait_for_load_state("networkidle")
            buttons = page.locator("button.accept-row, button.accept-unit, #accept-part")
            checked += buttons.count()
            for n in range(buttons.count()):
                button = buttons.nth(n)
                button.scroll_into_view_if_needed()
                on_top = button.evaluate(
                    """(b) => { const r = b.getBoundingClientRect();
                    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                    return hit === b || b.contains(hit); }"""
                )
                assert on_top, f"{path} at {width} px: button {n} is covered"
        # every matrix row's button and at least one part's
        assert checked > len(open_review(draft).report["matrix"]["rows"])
        page.close()
    finally:
        server.stop()
