"""Headless Chromium from Debian, driven by Playwright, for the browser tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "reports" / "test-artifacts"


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium per test run (per xdist worker)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium package "
            "(apt-get install -y chromium) to run the browser tests"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--disable-sync",
            ],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def browser(chromium, request: pytest.FixtureRequest):
    """The run's Chromium for one test: every page or context the test opens (each
    `new_page` is a fresh context: no cookies or storage from another test) is closed after it."""
    if request.node.get_closest_marker("browser") is None:
        pytest.fail("a test that drives Chromium is marked `browser`, so it runs last (tests/conftest.py)")
    yield chromium
    for context in chromium.contexts:
        context.close()
