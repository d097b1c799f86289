"""Developer command line: `python -m agent` or `clausedesk`.

clausedesk seed                 create or upgrade the database, seed policies and claims
                                (and, in development only, the development staff users)
clausedesk serve [--port 8000]  run the HTTP API (claimant and staff)
clausedesk staff add USERNAME --name "Name" [--role handler|policy_owner] [--password-stdin]
clausedesk staff list | disable USERNAME | sessions USERNAME | revoke USERNAME [--session ID]
clausedesk evaluate (--base-url URL | --model M [--api-base URL]) [--runs K]
                  [--only scenarios|inventory|adversarial]
                                scenarios and question inventory through a running system
clausedesk replies collect DATABASE_URL --out FILE | replies compare BEFORE AFTER
                                the inventory's replies read back after evaluate --keep-claims
                                (judged, statement position, length); two runs side by side
clausedesk bench                runtime overhead, throughput and prompt tokens (own store + SQLite)
clausedesk first-turns [--base-url URL]
                                a first question on three development claims with an empty
                                conversation, through the API (start-dev.sh runs it)
clausedesk dev-modes [--quiet] [--below-bar]
                                development answering modes (start-dev.sh runs it): Kowhai's
                                clauses that meet the bar in a release check of the dev part earn
                                answers (--below-bar: also those short of its counts), the travel
                                wording is imported from PDF and drafts; one line says which
clausedesk import-policies FILE.jsonl
                                load policies with their terms, claims and claim statuses
                                (one JSON object a line, as the intake API takes them);
                                reports each bad line and loads the good ones
clausedesk integration add NAME | list | disable NAME
                                clients of the intake API (/integration/api); a token once
clausedesk probe load | store-outage | fuzz
                                probes from outside: 16 claimants against two serve processes with
                                one killed, or the store killed; schemathesis on both databases
clausedesk evidence load motor 2026.2 corpus/questions/dev/motor.toml
clausedesk evidence carry motor 2027.1 [--from 2026.2]
                                the evidence store: inventory questions as evidence of a
                                version (idempotent by question ID); carry evidence into a
                                new version (clauses whose text changed await review)
clausedesk affected motor 2026.2 [--clause MTR-BEN-03] [--limit 50] [--offset 0] [--all | --csv]
                                the agent replies, staff answers and drafts that stood on a
                                wording version, e.g. before a withdrawal: each kind's total and
                                a page of each, oldest first; --all or --csv for every row
"""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
from collections.abc import Callable

from pydantic import ValidationError

from agent.closed_pipe import quiet_on_closed_pipe
from agent.settings import SETTING_PREFIXES
from knowledge.settings import refused_settings

# The package holds the command line, a module per command group with its parsers beside its
# commands; `python -m knowledge` is agent.cli.wording. The docstring above is `clausedesk --help`.

# The order `clausedesk --help` lists the commands in; each group module adds its own.
COMMANDS = (
    "seed",
    "serve",
    "staff",
    "evidence",
    "curve",
    "evaluate",
    "import-policies",
    "integration",
    "affected",
    "turns",
    "first-turns",
    "dev-modes",
    "replies",
    "bench",
    "probe",
)

# Commands whose output is their answer (a token printed once, a list, the claims seeded):
# nothing from the frameworks underneath (Alembic migrating the database, for one) or the
# intake's own log lines (they say what seed prints) is printed with it.
QUIET = {"affected", "turns", "integration", "seed", "dev-modes"}


def parser() -> argparse.ArgumentParser:
    # The groups are imported here, not with this package: `python -m knowledge` imports it and
    # needs none of them, and `serve` sets its metrics directory before they load.
    from agent.cli import development, evaluation, evidence, history, integration, serve, staff

    adders: dict[str, Callable[[argparse._SubParsersAction], argparse.ArgumentParser]] = {}
    for group in (serve, staff, evidence, evaluation, integration, history, development):
        adders |= group.PARSERS
    if adders.keys() != set(COMMANDS):  # a command missing from COMMANDS would vanish from the parser
        raise RuntimeError(f"clausedesk commands out of step with COMMANDS: {adders.keys() ^ set(COMMANDS)}")
    p = argparse.ArgumentParser(
        prog="clausedesk", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        adders[name](sub)
    return p


def quiet_libraries() -> None:
    """Alembic's INFO lines ("Context impl SQLiteImpl", one per migration) say nothing a user
    acts on, and bm25s sets its own logger to DEBUG (a line per index built); their warnings
    and errors still show."""
    for name in ("alembic", "bm25s"):
        logging.getLogger(name).setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> int:
    from agent.cli.serve import metrics_directory

    argv = sys.argv[1:] if argv is None else argv
    # Before the parser is built: building it imports the modules that import prometheus_client.
    made = metrics_directory() if argv[:1] == ["serve"] else None
    try:
        args = parser().parse_args(argv)
        level = logging.WARNING if args.command in QUIET else logging.INFO
        logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        quiet_libraries()
        return quiet_on_closed_pipe(lambda: args.run(args))
    except ValidationError as exc:  # a setting from the environment, refused in one line
        if exc.title not in SETTING_PREFIXES:
            raise
        print(refused_settings(exc, SETTING_PREFIXES), file=sys.stderr)
        return 2
    finally:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
