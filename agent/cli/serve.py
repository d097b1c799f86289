"""`clausedesk seed` and `clausedesk serve`: the database migrated and seeded, the HTTP API run."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.production import ProductionRefused, check_production
from agent.seed import seed_policies, seed_staff
from agent.settings import get_settings


def cmd_seed(_: argparse.Namespace) -> int:
    settings = get_settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    if settings.production:
        # Their access codes are published in the README: production would refuse them anyway.
        print(
            "CLAUSEDESK_ENV=production: the database is migrated; development claims are not seeded; "
            "development staff users are not seeded; "
            'create staff with `python -m agent staff add USERNAME --name "Name"`',
            file=sys.stderr,
        )
        return 0
    seeded = seed_policies(sessions)
    for claim in seeded:
        print(
            f"{claim.claim_id}  {claim.policy_number}  {claim.family:<8} {claim.plan:<18} token {claim.token}"
        )
    for staff in seed_staff(sessions):
        # Development accounts only: their passwords are in the README and agent/staff_seed.toml.
        print(
            f"staff {staff.username:<12} {staff.display_name:<14} roles {', '.join(staff.roles)} "
            "(development account)"
        )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from agent.api.claimant_tokens import ClaimantTokens, TokenConfigError
    from agent.api.protocol import NoDelayH11Protocol
    from agent.db.revision import SchemaNotReady, describe, head_revision
    from agent.events.delivery import EventsConfigError, events_config_problem

    # Refuse here, with one clear line, before uvicorn starts any worker.
    settings = get_settings()
    try:
        engine = make_engine(settings.database_url)
        before = upgrade(engine)
        if before != head_revision():  # one line: what serving changed in the database
            print(
                f"clausedesk serve: migrated the database {describe(settings.database_url)} from "
                f"{f'revision {before}' if before else 'no schema'} to revision {head_revision()}",
                file=sys.stderr,
            )
        check_production(settings, make_sessionmaker(engine))
        ClaimantTokens(settings)  # incomplete token or event settings are named before serving
        events_problem = events_config_problem(settings)
        if events_problem:
            raise EventsConfigError(events_problem)
    except (ProductionRefused, TokenConfigError, EventsConfigError, SchemaNotReady) as exc:
        print(f"clausedesk serve: {exc}", file=sys.stderr)
        return 2
    engine.dispose()
    # Workers are separate processes (the turn is CPU-bound Python); run `seed` first so
    # the database is already migrated when they start.
    uvicorn.run(
        "agent.api.served:app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        http=NoDelayH11Protocol,
        proxy_headers=False,  # X-Forwarded-For is read by the app, from trusted proxies only
        log_level="info",
    )
    return 0


def metrics_directory() -> str | None:
    """`serve`: every worker writes its metrics to files in one directory, so one scrape of
    /metrics covers them all (agent.metrics). Set before any worker starts and before
    prometheus_client is imported here (with one worker, this process serves): a fresh directory
    of this run's own (returned, removed when serving ends) unless the operator named one."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    if "prometheus_client" in sys.modules:  # its values would already live in memory only
        raise RuntimeError("prometheus_client was imported before the metrics directory was set")
    made = tempfile.mkdtemp(prefix="clausedesk-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = made
    return made


def add_seed(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    s = sub.add_parser("seed", help="upgrade the database and seed development data")
    s.set_defaults(run=cmd_seed)
    return s


def add_serve(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    s = sub.add_parser("serve", help="run the HTTP API")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument(
        "--workers",
        type=int,
        default=int(os.environ.get("CLAUSEDESK_WORKERS", "1")),
        help="server processes (default: $CLAUSEDESK_WORKERS or 1)",
    )
    s.set_defaults(run=cmd_serve)
    return s


PARSERS = {"seed": add_seed, "serve": add_serve}
