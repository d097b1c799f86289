"""Developer command line: `python -m agent` or `clausedesk`.

    clausedesk seed                 create or upgrade the database, seed policies and claims
    clausedesk serve [--port 8000]  run the HTTP API (claimant and staff)
"""

from __future__ import annotations

import argparse
import logging
import sys

from agent.db import make_engine, make_sessionmaker, upgrade
from agent.seed import seed_policies, seed_staff
from agent.settings import get_settings


def cmd_seed(_: argparse.Namespace) -> int:
    settings = get_settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    seeded = seed_policies(sessions)
    for claim in seeded:
        print(f"{claim.claim_id}  {claim.policy_number}  {claim.family:<8} {claim.plan:<18} "
              f"token {claim.token}")
    for staff in seed_staff(sessions):
        print(f"staff {staff.username:<12} {staff.display_name:<14} password {staff.password}  "
              f"token {staff.token}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    uvicorn.run("agent.api.app:create_app", factory=True, host=args.host, port=args.port,
                log_level="info")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="clausedesk", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("seed", help="upgrade the database and seed development data").set_defaults(
        run=cmd_seed)
    s = sub.add_parser("serve", help="run the HTTP API")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.set_defaults(run=cmd_serve)
    return p


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
