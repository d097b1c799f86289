"""Whether a database is at the schema this code needs, read without migrating it.

Read-only commands use this (through `agent.db.tables.open_current`) instead of
`agent.db.tables.upgrade()`: they never change the database, and they say plainly when it
needs migrating (`python -m agent seed`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
MIGRATE_HINT = "run `python -m agent seed` to create or migrate it"


# The triggers that keep the counts of the kept tables (migration 0014). A table rebuilt
# without them (SQLite's batch migrations copy a table) would leave those counts stale
# without a word, so a database that lacks one is refused, by name.
KEPT_TRIGGERS = {
    "turns": ("turns_kept_insert", "turns_kept_update", "turns_kept_delete"),
    "waiting_items": ("waiting_items_kept_insert", "waiting_items_kept_update", "waiting_items_kept_delete"),
}


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


def current_revision(connection: Connection) -> str | None:
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def require_current(engine: Engine) -> None:
    """Raise SchemaNotReady with a message that says what to do; never migrates. One
    connection reads the revision and the kept-count triggers."""
    url = describe(str(engine.url))
    try:
        with engine.connect() as connection:
            current = current_revision(connection)
            head = head_revision()
            if current is None:
                raise SchemaNotReady(f"the database {url} has no clausedesk schema; {MIGRATE_HINT}")
            if current != head:
                raise SchemaNotReady(
                    f"the database {url} is at schema revision {current}, this code needs {head}; "
                    f"{MIGRATE_HINT}"
                )
            require_kept_triggers(connection)
    except SQLAlchemyError as exc:
        raise SchemaNotReady(
            f"the database {url} cannot be read ({type(exc).__name__}): {str(exc).splitlines()[0][:160]}"
        ) from exc


def triggers_on(connection: Connection, table: str) -> set[str]:
    if connection.dialect.name == "sqlite":
        query = "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = :t"
    else:
        query = (
            "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal "
            "AND tgrelid = to_regclass(current_schema() || '.' || :t)"
        )
    return set(connection.execute(text(query), {"t": table}).scalars())


def require_kept_triggers(connection: Connection) -> None:
    """Raise SchemaNotReady naming every kept-count trigger the database lacks."""
    missing = [
        f"{table}.{name}"
        for table, names in KEPT_TRIGGERS.items()
        for name in sorted(set(names) - triggers_on(connection, table))
    ]
    if missing:
        raise SchemaNotReady(
            f"the database {describe(str(connection.engine.url))} lacks the trigger(s) "
            f"{', '.join(missing)} that keep the counts of the staff pages and `agent affected`; "
            "a migration that rebuilt the table must create them again (see migration 0014)"
        )
