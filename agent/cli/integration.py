"""`clausedesk import-policies` and `clausedesk integration`: the insurer's systems, from the
command line: policies, claims and statuses loaded from a file, and the intake API's clients."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent.cli.common import migrated_sessions


def cmd_import_policies(args: argparse.Namespace) -> int:
    from agent.policy.bulk_import import import_policies

    path = Path(args.file)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"import-policies: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    report = import_policies(migrated_sessions(), lines, f"import:{path.name}")
    for bad in report.bad:
        print(f"{path.name}: {bad}", file=sys.stderr)
    for warning in report.warnings:
        print(f"{path.name}: {warning} (loaded)", file=sys.stderr)
    for claim_id, code in report.access_codes.items():
        print(f"claim {claim_id} access code (shown once): {code}")
    print(
        f"{len(report.created)} created, {len(report.updated)} updated, {len(report.unchanged)} unchanged, "
        f"{len({b.line for b in report.bad})} bad lines"
    )
    return 1 if report.bad else 0


def cmd_integration(args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from agent.db.tables import IntegrationClient
    from agent.policy.intake import IntakeRefused, add_client

    sessions = migrated_sessions()
    with sessions.begin() as session:
        if args.action == "add":
            try:
                token = add_client(session, args.name)
            except IntakeRefused as exc:
                print(f"integration add: {exc}", file=sys.stderr)
                return 2
            print(f"integration client {args.name} added; its token (shown once): {token}")
        elif args.action == "disable":
            client = session.get(IntegrationClient, args.name)
            if client is None:
                print(f"integration disable: no client {args.name!r}", file=sys.stderr)
                return 2
            client.active = False
            print(f"integration client {args.name} disabled")
        else:
            for client in session.scalars(select(IntegrationClient).order_by(IntegrationClient.name)):
                state = "active" if client.active else "disabled"
                print(f"{client.name:<30} {state:<8}  since {client.created_at}")
    return 0


def add_import_policies(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    i = sub.add_parser(
        "import-policies", help="load policies with their terms, claims and statuses from a JSON-lines file"
    )
    i.add_argument(
        "file",
        help="one object a line: a policy (policy_number, family, policyholder, terms), a claim "
        "(claim_id, policy_number, incident_date, incident, status, claimant_ref) or a status "
        "(claim_id, status)",
    )
    i.set_defaults(run=cmd_import_policies)
    return i


def add_integration(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    g = sub.add_parser("integration", help="clients of the intake API")
    g.add_argument("action", choices=["add", "list", "disable"])
    g.add_argument("name", nargs="?", help="the client's name (add, disable)")
    g.set_defaults(run=cmd_integration)
    return g


PARSERS = {"import-policies": add_import_policies, "integration": add_integration}
