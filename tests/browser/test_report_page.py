"""The evaluation report's HTML in headless Chromium: the facts table leads, and each wrong
answer shows what the claimant read and the fact it missed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.evaluation.decision_audit import DecisionAudit
from agent.evaluation.harness import Exchange
from agent.evaluation.inventory import Asked
from agent.evaluation.report.build import build_report
from agent.evaluation.report.page import write_report
from agent.wording.questions import Question
from tests.browser.test_chat_page import keep_screenshot

pytestmark = pytest.mark.browser

ROW = "Jewellery and watches: Standard plan NZD 3,000 in total; Premier plan NZD 15,000 in total."


def answered(text: str, outcome: str = "answered") -> Exchange:
    reply = {"reply": text, "outcome": outcome, "citations": [], "model": "function:clausedesk-offline"}
    return Exchange("EV-1", "contents", "q", 200, reply, {"returned": ["CNT-LIM-01"], "directory_seen": []})


def test_the_report_page_leads_with_the_facts_and_lists_wrong_answers(browser, tmp_path: Path) -> None:
    phone = Question(
        "CNT-N03",
        "contents",
        "KM-CNT-402117",
        "how much for my laptop",
        ("CNT-LIM-01",),
        "covered",
        "test2",
        (("Standard plan NZD 4,000 per item",),),
        ("Jewellery and watches",),
        False,
    )
    progress = Question(
        "CNT-N32", "contents", "KM-CNT-402117", "any update on my claim?", (), "unanswerable", "test2"
    )
    asked = [
        Asked(phone, answered(ROW)),
        Asked(progress, answered("We pay up to NZD 1,000 for spoiled food.")),
        Asked(
            Question(
                "CNT-Q09",
                "contents",
                "KM-CNT-402117",
                "gaming PC",
                ("CNT-LIM-01",),
                "covered",
                "dev",
                (("Standard plan NZD 4,000 per item",),),
            ),
            answered("Electronics, computers and phones: Standard plan NZD 4,000 per item."),
        ),
    ]
    report = build_report(asked, [], audit=DecisionAudit([], []))
    _, html_path = write_report(report, tmp_path / "reports")
    page = browser.new_page(viewport={"width": 1300, "height": 1000})
    page.goto(html_path.as_uri())
    facts = page.locator("#facts + p + table")
    assert "served answers wrong or irrelevant" in facts.inner_text()
    assert "test2 (headline, never tuned on)" in page.locator("#facts + p").inner_text()
    wrong = page.locator("#wrong-CNT-N03")
    assert "missed: Standard plan NZD 4,000 per item" in wrong.inner_text()
    assert "wrong: Jewellery and watches" in wrong.inner_text() and ROW in wrong.inner_text()
    assert "no clause answers" in page.locator("#wrong-CNT-N32").inner_text()
    assert page.locator("#wrong-CNT-Q09").count() == 0  # right, so not listed
    keep_screenshot(page, tmp_path, "evaluation-report-facts.png")


def test_the_report_fits_1280_px_with_its_json_behind_a_link(browser, tmp_path: Path) -> None:
    """Three parts of three families make twelve figure columns, and a reply with no space in
    it is as wide as it is long: the page still fits 1,280 px (each table scrolls in its own
    box), and the run's settings are a link to the JSON, not a line of it."""
    asked = []
    for part in ("dev", "test", "test2"):
        for family in ("motor", "home", "contents"):
            question = Question(f"{family}-{part}", family, "KM-1", "how much", ("X-01",), "covered", part)
            asked.append(Asked(question, answered("https://example.test/" + "x" * 400)))
    report = build_report(asked, [], audit=DecisionAudit([], []), meta={"base_url": "http://127.0.0.1:8000"})
    json_path, html_path = write_report(report, tmp_path / "reports")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(html_path.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    first = page.locator("body > p").first.inner_text()
    assert "{" not in first and "against http://127.0.0.1:8000" in first
    link = page.get_by_role("link", name="every figure as JSON")
    assert link.get_attribute("href") == json_path.name
    # Every table ends inside the window (one wider than the page scrolls in its own box).
    ends = "[...document.querySelectorAll('table')].map(t => t.getBoundingClientRect().right)"
    assert max(page.evaluate(ends)) <= 1280
    keep_screenshot(page, tmp_path, "evaluation-report-1280.png")
