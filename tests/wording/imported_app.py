"""The app over HTTP on the imported AXA UK car wording, its synthetic claimants seeded: what the
tests that ask that wording questions through the claim message API start from."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from agent.db.tables import make_engine, make_sessionmaker
from agent.wording.questions import Question, load_imported
from knowledge.store import ObjectStore
from tests.conftest import make_live_app, stop_live
from tests.support import LiveServer
from tests.wording.imported import FAMILY, seed_claimants


@dataclass(frozen=True)
class ImportedApp:
    server: LiveServer
    questions: list[Question]  # the wording's inventory
    claimants: list[dict]  # its synthetic claimants, as the inventory files give them
    seeded: dict[str, str]  # each claimant's claim ID by policy number


@contextmanager
def imported_app(database_url: str, store: ObjectStore) -> Iterator[ImportedApp]:
    """The app on `store` (which holds the imported wording) and the database at `database_url`
    with the wording's claimants seeded; stopped on leaving."""
    questions, claimants = load_imported(FAMILY)
    engine = make_engine(database_url)
    seeded = seed_claimants(make_sessionmaker(engine), claimants)
    engine.dispose()
    server = make_live_app(database_url, store)
    try:
        yield ImportedApp(server, questions, claimants, seeded)
    finally:
        stop_live(server)
