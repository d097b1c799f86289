"""Upgrading keeps what a database already holds: each test builds a database as it was at
one revision, writes rows as that schema took them, upgrades it to the head and reads them."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, inspect, select, text, update
from sqlalchemy.orm import Session

import agent.db.tables as tables
from agent.db.tables import Base, Message, PolicyTerm, WaitingItem, make_engine, make_sessionmaker, upgrade
from agent.seed import seed_policies

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases


def start_at(engine: Engine, revision: str) -> None:
    """The engine's database as it was at `revision`: emptied of today's tables (the
    PostgreSQL one is shared; a SQLite file is new), then migrated up to it."""
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    if engine.dialect.name == "postgresql":
        Base.metadata.drop_all(engine)
    config = Config()
    config.set_main_option("script_location", str(Path(tables.__file__).parent / "migrations"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def write(engine: Engine, *statements: str) -> None:
    """Rows written in SQL, as the schema of the database's revision took them, in one transaction."""
    with engine.begin() as connection:
        for statement in statements:
            connection.execute(text(statement))


def test_upgrading_a_0001_database_keeps_its_rows(blank_database_url: str) -> None:
    engine = make_engine(blank_database_url)
    start_at(engine, "0001")
    columns = {c["name"] for c in inspect(engine).get_columns("waiting_items")}
    assert "answer_citations" not in columns
    write(
        engine,
        (
            "INSERT INTO policies VALUES ('KM-MTR-204518', 'motor', 'A', 'Comprehensive', "
            "'2026-08-01', '2027-08-01')"
        ),
        (
            "INSERT INTO claims (claim_id, policy_number, status, incident, token_hash, created_at) "
            "VALUES ('CLM-204518', 'KM-MTR-204518', 'open', '', 'h', '2026-11-01 10:00:00')"
        ),
        (
            "INSERT INTO waiting_items "
            "(reference, claim_id, question, reason, status, taken_by, created_at) "
            "VALUES ('WL-000001', 'CLM-204518', 'Rental car?', 'no_clause_selected', 'taken', "
            "'aroha.staff', '2026-11-01 10:00:00')"
        ),
    )

    upgrade(engine)

    with Session(engine) as session:
        [item] = session.scalars(select(WaitingItem)).all()
        assert (item.reference, item.question, item.status, item.taken_by) == (
            "WL-000001",
            "Rental car?",
            "taken",
            "aroha.staff",
        )
        assert item.answer_citations is None and item.answered_by is None
        session.execute(update(WaitingItem).values(answer_citations=[{"clause_id": "MTR-BEN-03"}]))
        session.commit()
        assert session.scalar(select(WaitingItem.answer_citations)) == [{"clause_id": "MTR-BEN-03"}]
        assert session.scalar(select(Message).limit(1)) is None
    seed_policies(make_sessionmaker(engine))  # the upgraded schema takes the usual seed
    engine.dispose()


def test_existing_policies_become_one_term_each(blank_database_url) -> None:
    """Migration 0009: every policy stored before terms existed becomes one term, with its
    dates, plan and schedule, so its claims keep the wording and schedule they had."""
    engine = create_engine(blank_database_url)
    start_at(engine, "0006")
    write(
        engine,
        (
            "INSERT INTO policies (policy_number, family, policyholder, plan, term_start, term_end) "
            "VALUES ('KM-HOM-700001', 'home', 'Ana Rewi', 'Home Replacement', '2026-02-01', "
            "'2027-02-01'), ('KM-HOM-700002', 'home', 'Ben Rewi', 'Home Replacement', '2026-03-01', "
            "'2027-03-01')"
        ),
        (
            "INSERT INTO schedules (policy_number, sections, excess, sums_insured, details, labels) "
            "VALUES ('KM-HOM-700001', '[\"glass\"]', '{\"standard\": 400}', '{}', '{}', '{}')"
        ),
    )
    upgrade(engine)
    with Session(engine) as session:
        terms = session.scalars(select(PolicyTerm).order_by(PolicyTerm.policy_number)).all()
        rows = [(t.policy_number, t.term_start, t.term_end, t.plan, t.schedule) for t in terms]
    engine.dispose()
    assert rows == [
        (
            "KM-HOM-700001",
            date(2026, 2, 1),
            date(2027, 2, 1),
            "Home Replacement",
            {
                "sections": ["glass"],
                "excess": {"standard": 400},
                "sums_insured": {},
                "details": {},
                "labels": {},
                "endorsements": [],
            },
        ),
        ("KM-HOM-700002", date(2026, 3, 1), date(2027, 3, 1), "Home Replacement", None),
    ]


def test_references_stored_before_the_rename_keep_their_reference(blank_database_url) -> None:
    """Migration 0012: the waiting-list reference has one name everywhere (the API's);
    references stored under the old column name are kept."""
    engine = create_engine(blank_database_url)
    start_at(engine, "0010")
    write(
        engine,
        (
            "INSERT INTO policies (policy_number, family, policyholder, plan, term_start, term_end) "
            "VALUES ('KM-MTR-700001', 'motor', 'Ana Rewi', 'Comprehensive', '2026-02-01', '2027-02-01')"
        ),
        (
            "INSERT INTO claims (claim_id, policy_number, status, incident, token_hash, created_at) "
            "VALUES ('CLM-700001', 'KM-MTR-700001', 'open', '', 'x', '2026-03-01 10:00:00')"
        ),
        (
            "INSERT INTO messages (claim_id, role, body, waiting_reference, created_at) "
            "VALUES ('CLM-700001', 'agent', 'Staff will answer.', 'WL-000042', '2026-03-01 10:00:01')"
        ),
    )
    upgrade(engine)
    with Session(engine) as session:
        references = session.scalars(select(Message.waiting_list_reference)).all()
    engine.dispose()
    assert references == ["WL-000042"]
