"""Developer command line: `python -m agent` or `clausedesk`.

clausedesk seed                 create or upgrade the database, seed policies and claims
                                (and, in development only, the development staff users)
clausedesk serve [--port 8000]  run the HTTP API (claimant and staff)
clausedesk staff add USERNAME --name "Name" [--role handler|policy_owner] [--password-stdin]
clausedesk staff list | disable USERNAME | sessions USERNAME | revoke USERNAME [--session ID]
clausedesk evaluate (--base-url URL | --model M [--api-base URL]) [--runs K]
                  [--only scenarios|inventory|adversarial]
                                scenarios and question inventory through a running system
clausedesk bench                runtime overhead, throughput and prompt tokens (own store + SQLite)
clausedesk affected motor 2026.2 [--clause MTR-BEN-03]
                                the replies that cited a wording version, e.g. after a withdrawal
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from agent.db.seed import seed_policies, seed_staff
from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.production import ProductionRefused, check_production
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


def cmd_staff(args: argparse.Namespace) -> int:
    from agent.staff import accounts as staff_admin

    settings = get_settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    return staff_admin.run(args, settings, make_sessionmaker(engine))


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from agent.evaluation.serving import NoDelayH11Protocol

    # Refuse here, with one clear line, before uvicorn starts any worker.
    settings = get_settings()
    try:
        engine = make_engine(settings.database_url)
        upgrade(engine)
        check_production(settings, make_sessionmaker(engine))
    except ProductionRefused as exc:
        print(f"clausedesk serve: {exc}", file=sys.stderr)
        return 2
    engine.dispose()
    # Workers are separate processes (the turn is CPU-bound Python); run `seed` first so
    # the database is already migrated when they start.
    uvicorn.run(
        "agent.api.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        http=NoDelayH11Protocol,
        proxy_headers=False,  # X-Forwarded-For is read by the app, from trusted proxies only
        log_level="info",
    )
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from agent.evaluation.run import evaluate, store_control

    logging.getLogger().setLevel(logging.WARNING)
    return evaluate(
        args.base_url,
        args.database_url or get_settings().database_url,
        model=args.model,
        api_base=args.api_base,
        runs=args.runs,
        only=args.only,
        report_dir=Path(args.report_dir),
        store=store_control(args.store_pid_file, args.store_port),
        concurrency=args.concurrency,
        decision_phrases=args.decision_phrases,
    )


def cmd_bench(args: argparse.Namespace) -> int:
    from agent.evaluation.bench import run_bench

    logging.getLogger().setLevel(logging.WARNING)
    if args.growth:
        from agent.evaluation.growth import run_growth

        return run_growth(
            args.database_url,
            scale=args.scale,
            repeat=args.repeat,
            json_path=args.json,
            existing=args.existing,
        )
    return run_bench(
        turns=args.turns,
        throughput_turns=args.throughput_turns,
        json_path=args.json,
        workers=args.workers,
        baseline_path=args.baseline,
    )


def cmd_affected(args: argparse.Namespace) -> int:
    from agent.db.revision import SchemaNotReady, open_current
    from agent.wording.affected import answers_citing, count_citing

    # Read-only: never migrates; says so when the database is not ready.
    try:
        engine = open_current(get_settings().database_url)
    except SchemaNotReady as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sessions, clauses = make_sessionmaker(engine), set(args.clause) if args.clause else None
    found = answers_citing(sessions, args.family, args.version, clauses, limit=args.limit or None)
    for a in found:
        print(
            f"{a.answered_at:%Y-%m-%d %H:%M}  claim {a.claim_id}  turn {a.turn_id}  "
            f"{a.outcome:<16} cited {', '.join(a.cited)}"
        )
    # A short page needs no count: it is all there is.
    full = len(found) == args.limit
    total = count_citing(sessions, args.family, args.version, clauses) if full else len(found)
    print(
        f"{total} replies cited {args.family} {args.version}"
        + (f" ({', '.join(args.clause)})" if args.clause else "")
        + (f"; the latest {len(found)} are listed (--limit 0 lists all)" if total > len(found) else "")
    )
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="clausedesk", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("seed", help="upgrade the database and seed development data").set_defaults(run=cmd_seed)
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

    from agent.staff.accounts import add_parser

    add_parser(sub).set_defaults(run=cmd_staff)

    e = sub.add_parser(
        "evaluate",
        help="run the scenarios and the question inventory through a running system's HTTP API",
        description="Runs every scenario in corpus/scenarios (each --runs times: pass^k) and every "
        "question in corpus/questions through the claim message API, reads the turn records from the "
        "database, prints the report and writes reports/latest.json and latest.html. Exits 1 when a "
        "scenario fails or is not runnable, a reply is a 5xx or has no turn record, a citation is "
        "invented, a decision served, a served quote is not in the clause re-read from the store, or a "
        "target is missed on the test part, or an adversarial attack is served (that suite runs its own "
        "in-process app on a temporary SQLite file). Each run "
        "uses fresh claims cloned from the seeded ones (written to the database). Scenarios that stop "
        "the object store need --store-pid-file and --store-port (start-dev.sh's .data/store.pid and "
        "CLAUSEDESK_S3_PORT are used when present); the store is restarted with the same command "
        "and the corpus re-ingested and the release records re-applied.",
    )
    e.add_argument("--base-url", help="the running API, e.g. http://127.0.0.1:8000")
    e.add_argument(
        "--model",
        help="litellm model string or 'offline': without --base-url, start the API with it (database and "
        "store from the environment); with --base-url, the running API must report it on /health",
    )
    e.add_argument("--api-base", help="base URL of an OpenAI-compatible model server, with --model")
    e.add_argument(
        "--runs",
        type=int,
        help="runs per scenario; all must pass (default: 1 for the deterministic offline model, else 5)",
    )
    e.add_argument(
        "--decision-phrases",
        type=Path,
        help="labelled decision phrases (TSV: label<TAB>text) for the decision audit "
        "(default: CLAUSEDESK_DECISION_PHRASES, corpus/decision_phrases.tsv)",
    )
    e.add_argument("--only", choices=["scenarios", "inventory", "adversarial"], help="run only one part")
    e.add_argument("--report-dir", default="reports", help="where latest.json and latest.html go")
    e.add_argument("--database-url", help="the system's database (default: CLAUSEDESK_DATABASE_URL)")
    e.add_argument("--store-pid-file", help="pid file of the object store process (enables store control)")
    e.add_argument("--store-port", type=int, help="the object store's port (default: CLAUSEDESK_S3_PORT)")
    e.add_argument("--concurrency", type=int, default=4, help="parallel inventory questions (default 4)")
    e.set_defaults(run=cmd_evaluate)

    a = sub.add_parser("affected", help="the replies that cited a wording version (after a withdrawal)")
    a.add_argument("family")
    a.add_argument("version")
    a.add_argument("--clause", action="append", help="only replies citing this clause ID (repeatable)")
    a.add_argument(
        "--limit", type=int, default=200, help="list the latest N replies (default 200; 0 lists all)"
    )
    a.set_defaults(run=cmd_affected)

    b = sub.add_parser(
        "bench",
        help="runtime overhead per turn, turns per second, prompt tokens per lookup turn",
        description="Starts its own local S3 server (moto) and a temporary SQLite database, ingests "
        "and approves the corpus and seeds the claims; it never touches a running system. Measures "
        "(1) runtime overhead per turn with a zero-latency scripted model, with its breakdown and the "
        "floor of the same raw store and database calls; (2) turns per second through the HTTP API "
        "(a `python -m agent serve` subprocess with the offline model) at concurrency 1, 4 and 16; "
        "(3) prompt tokens per lookup turn (tiktoken cl100k_base, bundled with litellm, offline) "
        "over the question inventory. Prints targets met or missed; never fails on a target.",
    )
    b.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="server processes for the throughput run (default: the number of CPUs)",
    )
    b.add_argument("--turns", type=int, default=300, help="turns for the overhead measurement")
    b.add_argument("--throughput-turns", type=int, default=160, help="turns per concurrency level")
    b.add_argument("--json", help="also write the figures to this JSON file")
    b.add_argument(
        "--baseline",
        help="the --json file of an earlier run (another commit, measured just before): "
        "throughput at concurrency 16 is then also checked against it",
    )
    b.add_argument(
        "--growth",
        action="store_true",
        help="instead: the growth benchmark (1,000,000 turns, 100,000 waiting items, 10,000 claims, a "
        "200-message conversation, generated in bulk; p50 and p95 of the staff reads, the wording page, "
        "`affected`, conversation reads and a turn at the end of the long conversation)",
    )
    b.add_argument(
        "--scale", type=float, default=1.0, help="with --growth: multiply every count (smoke runs)"
    )
    b.add_argument("--repeat", type=int, default=30, help="with --growth: timed calls per measure")
    b.add_argument(
        "--existing",
        action="store_true",
        help="with --growth and --database-url: measure a database an earlier run filled (after a "
        "migration, say) without filling it again",
    )
    b.add_argument(
        "--database-url",
        help="with --growth: an empty database to fill (default: a temporary SQLite file); "
        "e.g. a fresh PostgreSQL database",
    )
    b.set_defaults(run=cmd_bench)
    return p


READ_ONLY = {"affected"}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Read-only commands print their answer and nothing from the frameworks underneath.
    level = logging.WARNING if args.command in READ_ONLY else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
