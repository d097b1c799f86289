"""Migration 0009: every policy stored before terms existed becomes one term, with its dates,
plan and schedule, so its claims keep the wording and schedule they had."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import Session

import agent.db.tables as tables
from agent.db.tables import PolicyTerm, upgrade


def migrate(engine, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(Path(tables.__file__).parent / "migrations"))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def test_existing_policies_become_one_term_each(database_url) -> None:
    engine = create_engine(database_url)
    with engine.begin() as connection:  # a database from before this migration
        connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    if engine.dialect.name == "postgresql":
        from agent.db.tables import Base

        Base.metadata.drop_all(engine)
    migrate(engine, "0006")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO policies (policy_number, family, policyholder, plan, term_start, term_end) "
                "VALUES ('KM-HOM-700001', 'home', 'Ana Rewi', 'Home Replacement', '2026-02-01', "
                "'2027-02-01'), ('KM-HOM-700002', 'home', 'Ben Rewi', 'Home Replacement', '2026-03-01', "
                "'2027-03-01')"
            )
        )
        connection.execute(
            text(
                "INSERT INTO schedules (policy_number, sections, excess, sums_insured, details, labels) "
                "VALUES ('KM-HOM-700001', '[\"glass\"]', '{\"standard\": 400}', '{}', '{}', '{}')"
            )
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
