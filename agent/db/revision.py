"""Whether a database is at the schema this code needs, read without migrating it.

Read-only commands use this instead of `agent.db.tables.upgrade()`: they never change the
database, and they say plainly when it needs migrating (`python -m agent seed`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from sqlalchemy import Engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
MIGRATE_HINT = "run `python -m agent seed` to create or migrate it"


class SchemaNotReady(Exception):
    """The database is missing, unreachable, or not at the revision this code needs."""


@lru_cache
def head_revision() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def describe(url: str) -> str:
    """The URL without its password, for messages."""
    return make_url(url).render_as_string(hide_password=True)


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return None
        return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def require_current(engine: Engine) -> None:
    """Raise SchemaNotReady with a message that says what to do; never migrates."""
    url = engine.url
    try:
        current = current_revision(engine)
    except SQLAlchemyError as exc:
        raise SchemaNotReady(
            f"the database {describe(str(url))} cannot be read ({type(exc).__name__}): "
            f"{str(exc).splitlines()[0][:160]}"
        ) from exc
    head = head_revision()
    if current is None:
        raise SchemaNotReady(f"the database {describe(str(url))} has no clausedesk schema; {MIGRATE_HINT}")
    if current != head:
        raise SchemaNotReady(
            f"the database {describe(str(url))} is at schema revision {current}, this code needs "
            f"{head}; {MIGRATE_HINT}"
        )


def open_current(url: str) -> Engine:
    """An engine on an existing database at the current revision, or SchemaNotReady.
    A missing SQLite file is reported, not created."""
    from agent.db.tables import make_engine

    parsed = make_url(url)
    local = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
    if local and not Path(str(parsed.database)).exists():
        raise SchemaNotReady(f"no database at {parsed.database}; {MIGRATE_HINT}")
    engine = make_engine(url)
    try:
        require_current(engine)
    except SchemaNotReady:
        engine.dispose()
        raise
    return engine
