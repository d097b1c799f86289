"""Helpers of the earned answering tests: a wording version drafting, its inventory loaded as
evidence, and a stored release check whose answers a test chooses (what the check served for
each question, right or wrong), so the bar's arithmetic is what is under test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.answering import evidence
from agent.answering.modes import set_mode
from agent.cli.evidence import labelled
from agent.db.tables import Evidence, OutboxEvent, ReleaseCheck, make_engine, make_sessionmaker
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry
from knowledge.store import ObjectStore
from tests.conftest import REPO, STAFF_TOKENS

QUESTIONS = REPO / "corpus" / "questions"


@contextmanager
def db(database_url: str) -> Iterator[Session]:
    """One transaction on the test's database, committed at the end."""
    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine).begin() as session:
            yield session
    finally:
        engine.dispose()


def drafting(database_url: str, family: str = "motor", version: str = "2026.2") -> None:
    """The version drafts again, as every approved wording starts (the test seed has it answering)."""
    with db(database_url) as session:
        set_mode(session, family, version, None, "drafts", by="tests", reason="every wording starts drafting")


def load_inventory(
    database_url: str, store: ObjectStore, family: str = "motor", version: str = "2026.2", part: str = "dev"
) -> list[Evidence]:
    """The part's inventory of the family as verified evidence of the version, as the CLI loads it."""
    library = ClauseLibrary(store)
    manifest, _ = Registry(store).read()
    directory = library.directory(manifest.entry(family, version))
    rows = labelled([QUESTIONS / part / f"{family}.toml"], family, directory, library).rows
    hashes = {e.clause_id: e.sha256 for e in directory.entries}
    with db(database_url) as session:
        evidence.load_inventory(session, family, version, rows, hashes, by="tests")
        return evidence.verified(session, family, version)


def stored_check(
    database_url: str,
    store: ObjectStore,
    family: str = "motor",
    version: str = "2026.2",
    wrong: set[str] = frozenset(),
    part: str | None = None,
) -> str:
    """A release check of the version as ingested, as if it had answered every inventory question
    quoting what the question expects: right, except the questions in `wrong`; every question of
    the inventory `part` when one is named. Returns its ID."""
    manifest, _ = Registry(store).read()
    entry = manifest.entry(family, version)
    check_id = f"RC-{uuid.uuid4().hex[:8]}"
    with db(database_url) as session:
        rows = [
            {
                "id": r.key,
                "part": part,
                "answerable": bool(r.clauses),
                "expected": list(r.clauses),
                "candidate": {
                    "outcome": "answered" if r.clauses else "routed_to_staff",
                    "cited": list(r.clauses),
                    "subjects": [*r.clauses, "#model"] if r.clauses else [],
                    "right": r.key not in wrong if r.clauses else None,
                },
            }
            for r in evidence.verified(session, family, version)
            if r.source == "inventory"
        ]
        session.add(
            ReleaseCheck(
                id=check_id,
                family=family,
                version=version,
                content_hash=entry.content_hash,
                model_name="scripted",
                created_by="tests",
                summary={"lines": [f"Release check {check_id} (tests)"]},
                report={"check_id": check_id, "questions": rows},
            )
        )
    return check_id


def events(database_url: str, kind: str) -> list[dict]:
    with db(database_url) as session:
        return [e.payload for e in session.scalars(select(OutboxEvent).where(OutboxEvent.kind == kind))]


@contextmanager
def live_at(database_url: str, store: ObjectStore, wrong_percent: float) -> Iterator:
    """The app over HTTP with the bar at `wrong_percent` (the inventory is too small to certify 5 %)."""
    from tests.conftest import make_live_app, stop_live

    server = make_live_app(database_url, store, bar_wrong_percent=wrong_percent)
    try:
        yield server
    finally:
        stop_live(server)


def owner(live):
    return live.client(STAFF_TOKENS["mere.staff"])


def handler(live):
    return live.client(STAFF_TOKENS["aroha.staff"])
