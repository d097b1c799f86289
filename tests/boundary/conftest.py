"""The current (2026.2) clauses of each family, read from the policy sources, as the runtime
fetches them; the app over HTTP with a harness that opens fresh claims on it."""

from __future__ import annotations

import pytest

from knowledge.clauses import FetchedClause
from knowledge.source import load_sources
from tests.conftest import POLICIES, make_live_app, stop_live


def clauses(family: str) -> dict[str, FetchedClause]:
    [source] = [s for s in load_sources(POLICIES) if s.family == family and s.version == "2026.2"]
    return {
        c.clause_id: FetchedClause(
            c.clause_id, c.title, c.text, family, "2026.2", plans=c.plans, added_by=c.added_by
        )
        for c in source.clauses
    }


@pytest.fixture(scope="module")
def motor() -> dict[str, FetchedClause]:
    return clauses("motor")


@pytest.fixture(scope="module")
def contents() -> dict[str, FetchedClause]:
    return clauses("contents")


@pytest.fixture(scope="module")
def home() -> dict[str, FetchedClause]:
    return clauses("home")


@pytest.fixture(scope="module")
def harnessed_live(tmp_path_factory, sqlite_template, corpus_store):
    """The app on this module's own SQLite database, with the evaluation harness on it."""
    from agent.evaluation.harness import Harness

    url = sqlite_template.fresh(tmp_path_factory.mktemp("harnessed"))
    server = make_live_app(url, corpus_store)
    harness = Harness(server.url, url)
    yield server, harness
    harness.close()
    stop_live(server)
