"""`clausedesk staff`: staff accounts and their sessions. The subcommands' parsers and their
work live in agent.staff.accounts; this opens the migrated database they work on."""

from __future__ import annotations

import argparse

from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.settings import get_settings
from agent.staff import accounts


def cmd_staff(args: argparse.Namespace) -> int:
    settings = get_settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    return accounts.run(args, settings, make_sessionmaker(engine))


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    s = accounts.add_parser(sub)
    s.set_defaults(run=cmd_staff)
    return s


PARSERS = {"staff": add_parser}
