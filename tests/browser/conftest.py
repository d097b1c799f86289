"""Headless Chromium from Debian, driven by Playwright, for the browser tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "reports" / "test-artifacts"


@pytest.fixture
def browser():
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
