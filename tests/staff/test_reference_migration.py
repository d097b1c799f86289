"""Migration 0012: the waiting-list reference has one name everywhere (the API's); references
stored under the old column name are kept."""

from __future__ import annotations

from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import Session

from agent.db.tables import Base, Message, upgrade
from tests.policy.test_terms_migration import migrate


def test_references_stored_before_the_rename_keep_their_reference(database_url) -> None:
    engine = create_engine(database_url)
    with engine.begin() as connection:  # a database from before this migration
        connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    if engine.dialect.name == "postgresql":
        Base.metadata.drop_all(engine)
    migrate(engine, "0010")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO policies (policy_number, family, policyholder, plan, term_start, term_end) "
                "VALUES ('KM-MTR-700001', 'motor', 'Ana Rewi', 'Comprehensive', '2026-02-01', '2027-02-01')"
            )
        )
        connection.execute(
            text(
                "INSERT INTO claims (claim_id, policy_number, status, incident, token_hash, created_at) "
                "VALUES ('CLM-700001', 'KM-MTR-700001', 'open', '', 'x', '2026-03-01 10:00:00')"
            )
        )
        connection.execute(
            text(
                "INSERT INTO messages (claim_id, role, body, waiting_reference, created_at) "
                "VALUES ('CLM-700001', 'agent', 'Staff will answer.', 'WL-000042', '2026-03-01 10:00:01')"
            )
        )
    upgrade(engine)
    with Session(engine) as session:
        references = session.scalars(select(Message.waiting_list_reference)).all()
    engine.dispose()
    assert references == ["WL-000042"]
