"""Fixtures the answering tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.answering.support import live_at
from tests.support import LiveServer


@pytest.fixture
def live40(database_url, corpus_store) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    """The app over HTTP with the bar at 40 % (the test inventory is too small to certify 5 %):
    a clause of seven right answers meets it; each test module says what does not."""
    with live_at(database_url, corpus_store, 40.0) as server:
        yield server
