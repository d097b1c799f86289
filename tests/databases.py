"""Databases for the tests: migrated and seeded once per test run, handed out fresh per test.

Running the migrations and the seed takes about half a second; a test needs a fresh database
in a few milliseconds. So each test process (each xdist worker) builds one template per
database kind, once:

- SQLite: a migrated, seeded file, copied for each test;
- PostgreSQL: one migrated, seeded database; each test gets it emptied (TRUNCATE) and the
  seed's rows put back as they were, sequences included.

Migration tests start from nothing instead (`blank_*`). The migrations themselves are tested
by tests/db, which run every revision.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Integer, create_engine, text

from tests import budget

POSTGRES_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
POSTGRES_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"


def _migrate(engine: Engine) -> None:
    from agent.db.tables import upgrade

    upgrade(engine)
    budget.USED.databases_migrated += 1


# Kowhai's approved wordings answer claimants in the test databases: the tests of the turn
# check what is composed, served and routed. Earning answers (every wording starts drafting)
# is tested on its own, from a database without these rows (tests/answering).
ANSWERING = [(f, v) for f in ("motor", "home", "contents") for v in ("2025.1", "2026.2")]


def _seed(engine: Engine) -> None:
    from agent.answering.modes import set_mode
    from agent.db.tables import make_sessionmaker
    from agent.seed import seed_policies, seed_staff

    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    seed_staff(sessions)
    with sessions.begin() as session:
        for family, version in ANSWERING:
            set_mode(session, family, version, None, "answers", by="tests", reason="test fixture")


class SQLiteTemplate:
    """Two SQLite files, migrated, and migrated and seeded; each test gets a copy of one."""

    def __init__(self, folder: Path):
        from agent.db.tables import make_engine

        self.empty, self.seeded = folder / "empty.db", folder / "seeded.db"
        engine = make_engine(f"sqlite:///{self.seeded}")
        _migrate(engine)
        _checkpoint(engine)
        shutil.copyfile(self.seeded, self.empty)
        _seed(engine)
        _checkpoint(engine)
        engine.dispose()

    def fresh(self, folder: Path, *, seeded: bool = True) -> str:
        target = folder / "clausedesk.db"
        shutil.copyfile(self.seeded if seeded else self.empty, target)
        return f"sqlite:///{target}"


def _checkpoint(engine: Engine) -> None:
    """Everything into the main file: it alone is copied."""
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


class PostgresTemplate:
    """One migrated, seeded database for this test process; `fresh` puts it back as seeded."""

    def __init__(self) -> None:
        from agent.db.tables import Base

        self.name = f"clausedesk_test_{uuid.uuid4().hex[:10]}"
        create_database(self.name)
        self.url = f"{POSTGRES_SERVER}/{self.name}"
        self.engine = create_engine(self.url, hide_parameters=True)
        _migrate(self.engine)
        _seed(self.engine)
        self.tables = list(Base.metadata.sorted_tables)
        with self.engine.connect() as connection:
            self.rows: dict[str, list[dict[str, Any]]] = {
                t.name: [dict(r) for r in connection.execute(t.select()).mappings()] for t in self.tables
            }

    def fresh(self, *, seeded: bool = True) -> str:
        names = ", ".join(f'"{t.name}"' for t in self.tables)
        with self.engine.begin() as connection:
            # A test's app left holding a lock would make TRUNCATE wait for ever: fail instead.
            connection.execute(text("SET LOCAL lock_timeout = '10s'"))
            connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
            for table in self.tables if seeded else ():
                if self.rows[table.name]:
                    connection.execute(table.insert(), self.rows[table.name])
                    for column in table.primary_key.columns:
                        if isinstance(column.type, Integer) and column.autoincrement in (True, "auto"):
                            connection.execute(
                                text(
                                    "SELECT setval(pg_get_serial_sequence(:t, :c), "
                                    f'(SELECT max("{column.name}") FROM "{table.name}"))'
                                ),
                                {"t": table.name, "c": column.name},
                            )
        return self.url

    def close(self) -> None:
        self.engine.dispose()
        drop_database(self.name)


def create_database(name: str) -> None:
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()


def drop_database(name: str) -> None:
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()
