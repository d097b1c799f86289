"""What several command groups share: the database's sessions and an argument type."""

from __future__ import annotations

import argparse

from sqlalchemy.orm import sessionmaker

from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.settings import get_settings


def migrated_sessions() -> sessionmaker:
    """Sessions of the configured database, migrated to the current schema first."""
    engine = make_engine(get_settings().database_url)
    upgrade(engine)
    return make_sessionmaker(engine)


# The name is in argparse's refusal of a non-number ("invalid _positive value: 'x'").
def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value
