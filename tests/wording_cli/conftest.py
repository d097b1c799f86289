"""Fixtures of the wording command line tests: a fresh bucket and a fresh database."""

from __future__ import annotations

import uuid

import pytest

from agent.db.tables import make_engine, upgrade


@pytest.fixture
def bucket() -> str:
    return f"cli-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def database(tmp_path) -> str:
    """A clausedesk SQLite database at the current schema."""
    url = f"sqlite:///{tmp_path / 'clausedesk.db'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return url
