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
import csv
import json
import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

from pydantic import ValidationError

from agent.closed_pipe import quiet_on_closed_pipe
from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.production import ProductionRefused, check_production
from agent.seed import seed_policies, seed_staff
from agent.settings import SETTING_PREFIXES, get_settings
from agent.wording.affected import MAX_PAGE, PAGE, AffectedReply
from knowledge.settings import refused_settings


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
        keep_claims=args.keep_claims,
        decision_phrases=args.decision_phrases,
        questions_dir=args.questions,
        answer_all=args.answer_all,
    )


def cmd_replies(args: argparse.Namespace) -> int:
    from pathlib import Path

    from agent.evaluation.replies import run_collect, run_compare

    if args.step == "collect":
        return run_collect(args.database_url, args.questions, Path(args.out))
    return run_compare(Path(args.before), Path(args.after))


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
        token_questions=args.token_questions,
    )


def cmd_probe(args: argparse.Namespace) -> int:
    from agent.evaluation.probe_cli import main as probe

    logging.getLogger().setLevel(logging.WARNING)
    return probe(args)


def cmd_affected(args: argparse.Namespace) -> int:
    from agent.db.revision import SchemaNotReady
    from agent.db.tables import open_current
    from agent.wording.affected import affected, as_csv_rows, each_affected

    if (args.all or args.csv) and (args.limit is not None or args.offset is not None):
        print("error: --all and --csv list every row; leave out --limit and --offset", file=sys.stderr)
        return 2
    # Read-only: never migrates; says so when the database is not ready.
    try:
        engine = open_current(get_settings().database_url)
    except SchemaNotReady as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    clauses = set(args.clause) if args.clause else None
    with make_sessionmaker(engine)() as session:
        if args.csv:
            writer = csv.writer(sys.stdout, lineterminator="\n")
            writer.writerows(as_csv_rows(each_affected(session, args.family, args.version, clauses)))
            return 0
        found = affected(
            session, args.family, args.version, clauses, limit=args.limit or PAGE, offset=args.offset or 0
        )
        listed = each_affected(session, args.family, args.version, clauses) if args.all else None
        labels = {"agent": "agent reply, turn", "staff": "staff answer,", "draft": "draft for"}
        for a in listed or [*found.agent, *found.staff, *found.drafts]:
            print(
                f"{a.at:%Y-%m-%d %H:%M}  claim {a.claim_id}  {labels[a.kind]} {a.ref}  {a.detail:<22} "
                f"cited {', '.join(a.cited) or 'nothing'}"
            )
    t = found.totals
    print(
        f"{t.agent + t.staff:,} replies relied on {args.family} {args.version}"
        + (f" ({', '.join(args.clause)})" if args.clause else "")
        + f": {t.agent:,} agent replies, {t.staff:,} staff answers; {t.drafts:,} drafts were made from it"
    )
    if listed is None and t.agent + t.staff + t.drafts:  # nothing stood on it: nothing to page
        shown = ", ".join(
            _shown(rows, total, found.offset, label)
            for rows, total, label in (
                (found.agent, t.agent, "agent replies"),
                (found.staff, t.staff, "staff answers"),
                (found.drafts, t.drafts, "drafts"),
            )
        )
        more = ""
        if found.next_offset is not None:
            more = f"; next page: --offset {found.next_offset}, every row: --all (or --csv)"
        print(f"showing {shown}, oldest first{more}")
    return 0


def _shown(rows: list[AffectedReply], total: int, offset: int, label: str) -> str:
    if not rows:
        return f"0 of {total:,} {label}" if total else f"0 {label}"
    return f"{offset + 1:,}–{offset + len(rows):,} of {total:,} {label}"


def cmd_turns(args: argparse.Namespace) -> int:
    from agent.db.revision import SchemaNotReady
    from agent.db.tables import open_current
    from agent.turn.records import as_line, as_record, latest_turns

    try:  # read-only: never migrates
        engine = open_current(get_settings().database_url)
    except SchemaNotReady as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with make_sessionmaker(engine)() as session:
        turns = latest_turns(session, claim_id=args.claim, outcome=args.outcome, last=args.last)
        for turn in turns:
            print(json.dumps(as_record(turn), ensure_ascii=False) if args.json else as_line(turn))
    if not args.json:
        print(f"{len(turns)} turn records")


def _sessions():  # type: ignore[no-untyped-def]
    engine = make_engine(get_settings().database_url)
    upgrade(engine)
    return make_sessionmaker(engine)


def cmd_first_turns(args: argparse.Namespace) -> int:
    import httpx

    from agent.evaluation.first_turns import send_first_questions

    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line a claim, not one a request
    try:
        done = send_first_questions(args.base_url)
    except httpx.HTTPError as exc:
        print(f"error: the first questions could not be sent to {args.base_url}: {exc}", file=sys.stderr)
        return 2
    for turn in done:
        print(f"{turn.claim_id}: {turn.outcome}" + (f" (turn {turn.turn_id})" if turn.turn_id else ""))
    return 0


def cmd_dev_modes(args: argparse.Namespace) -> int:
    from agent.wording.development import bring_in_travel, earn_from_dev, modes_line
    from agent.wording.memory_examples import runtime_memory, served_model
    from knowledge.store import ObjectStore

    settings = get_settings()
    if settings.production:
        print("CLAUSEDESK_ENV=production: development data approves nothing", file=sys.stderr)
        return 2
    store, sessions = ObjectStore(), _sessions()
    # The model the API serves with: the offline model's memory reads what the API's reads.
    memories = runtime_memory(settings, sessions)
    model = served_model(settings, sessions, memories)
    load = dev_evidence_loader(store)
    answering = earn_from_dev(
        store, sessions, model, settings, load=load, below_bar=args.below_bar, memories=memories
    )
    drafting = [bring_in_travel(store, sessions, model, settings, Path(args.out))]
    if not args.quiet:
        print(modes_line(answering, drafting))
    return 0


def dev_evidence_loader(store):  # type: ignore[no-untyped-def]
    """Puts a version's dev questions into the evidence store, as `evidence load` does, so an
    approval weighs them as the release check scored them."""
    from agent.answering import evidence
    from agent.evidence_cli import labelled
    from agent.wording.development import ACTOR, DEV_PART
    from agent.wording.questions import questions_dir
    from knowledge.clauses import ClauseLibrary

    library = ClauseLibrary(store)

    def load(session, entry, asked):  # type: ignore[no-untyped-def]
        directory = library.directory(entry)
        wanted = {q.id for q in asked}
        path = questions_dir() / DEV_PART / f"{entry.family}.toml"
        read = labelled([path], entry.family, directory, library)
        hashes = {e.clause_id: e.sha256 for e in directory.entries}
        chosen = [r for r in read.rows if r.key in wanted]
        evidence.load_inventory(session, entry.family, entry.version, chosen, hashes, by=ACTOR)

    return load


def cmd_import_policies(args: argparse.Namespace) -> int:
    from agent.policy.bulk_import import import_policies

    path = Path(args.file)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"import-policies: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    report = import_policies(_sessions(), lines, f"import:{path.name}")
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

    sessions = _sessions()
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

    from agent.evidence_cli import add_parser as add_evidence

    add_evidence(sub)

    from agent.evaluation.curve_cli import add_parser as add_curve

    add_curve(sub)

    e = sub.add_parser(
        "evaluate",
        help="run the scenarios and the question inventory through a running system's HTTP API",
        description="Runs every scenario in corpus/scenarios (each --runs times: pass^k) and every "
        "question in corpus/questions through the claim message API, reads the turn records from the "
        "database, prints the report and writes reports/latest.json and latest.html. Exits 1 when a "
        "scenario fails or is not runnable, a reply is a 5xx or has no turn record, a citation is "
        "invented, a decision served, a served quote is not in the clause re-read from the store, or "
        "an adversarial attack is served (that suite runs its own in-process app on a temporary SQLite "
        "file); 3 when all of that held but a target is missed on the headline part; 2 for a usage "
        "error. Each run "
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
    e.add_argument(
        "--questions",
        type=Path,
        help="another question folder in the inventory format (a held-out set): its part "
        "subfolders, or its own files as one part (default: corpus/questions' dev, test, test2)",
    )
    e.add_argument(
        "--answer-all",
        action="store_true",
        help="every approved wording answers claimants for this run, so the figures say what the model "
        "would serve rather than draft; a clause moved back to drafts on its own keeps drafting (the "
        "answering-mode rows it adds are removed afterwards)",
    )
    e.add_argument("--report-dir", default="reports", help="where latest.json and latest.html go")
    e.add_argument("--database-url", help="the system's database (default: CLAUSEDESK_DATABASE_URL)")
    e.add_argument("--store-pid-file", help="pid file of the object store process (enables store control)")
    e.add_argument("--store-port", type=int, help="the object store's port (default: CLAUSEDESK_S3_PORT)")
    e.add_argument("--concurrency", type=int, default=4, help="parallel inventory questions (default 4)")
    e.add_argument(
        "--keep-claims",
        action="store_true",
        help="keep the evaluation claims, their conversations, turn records and waiting items "
        "(by default they are deleted after the report is written)",
    )
    e.set_defaults(run=cmd_evaluate)

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
    g = sub.add_parser("integration", help="clients of the intake API")
    g.add_argument("action", choices=["add", "list", "disable"])
    g.add_argument("name", nargs="?", help="the client's name (add, disable)")
    g.set_defaults(run=cmd_integration)
    a = sub.add_parser("affected", help="the replies that cited a wording version (after a withdrawal)")
    a.add_argument("family")
    a.add_argument("version")
    a.add_argument("--clause", action="append", help="only replies citing this clause ID (repeatable)")
    a.add_argument(
        "--limit", type=_page_size, help=f"rows of each kind on a page (1 to {MAX_PAGE}, default {PAGE})"
    )
    a.add_argument("--offset", type=_offset, help="rows of each kind to skip (default 0)")
    every = a.add_mutually_exclusive_group()
    every.add_argument("--all", action="store_true", help="every row instead of a page")
    every.add_argument(
        "--csv", action="store_true", help="every row as CSV (kind, at, claim, ref, detail, cited)"
    )
    a.set_defaults(run=cmd_affected)

    t = sub.add_parser("turns", help="print the latest turn records (the turn log)")
    t.add_argument("--claim", help="only this claim's turns")
    t.add_argument("--outcome", help="only turns with this outcome, e.g. routed_to_staff")
    t.add_argument("--last", type=_positive, default=20, help="how many of the latest (default 20)")
    t.add_argument("--json", action="store_true", help="one JSON record per line, every field")
    t.set_defaults(run=cmd_turns)

    f = sub.add_parser(
        "first-turns",
        help="a first question on three development claims whose conversation is empty, through the API",
    )
    f.add_argument("--base-url", default="http://127.0.0.1:8000", help="the running system")
    f.set_defaults(run=cmd_first_turns)

    dm = sub.add_parser(
        "dev-modes",
        help="development answering modes: Kowhai earns answers from its dev part, travel drafts",
    )
    dm.add_argument("--out", default=".data/dev-wordings", help="where the rendered travel PDF goes")
    dm.add_argument("--quiet", action="store_true", help="set the modes up without printing the line")
    dm.add_argument(
        "--below-bar",
        action="store_true",
        help="approve clauses with fewer dev questions than the bar asks (served within its wrong share), "
        "below the bar with the reason 'development data'; by default only clauses meeting the bar answer",
    )
    dm.set_defaults(run=cmd_dev_modes)

    rp = sub.add_parser(
        "replies",
        help="inventory replies read back after evaluate --keep-claims; two runs compared",
        description="collect: after `evaluate --only inventory --keep-claims`, read every inventory "
        "question's reply from the system's database (plain SQL, so an older commit's database reads "
        "too), judge it on the question's facts and write per-part figures (served, answered right, "
        "served wrong, unanswerable routed, the runtime's statement within the first 200 characters, "
        "median length) with every reply to a JSON file. compare: two such files, before and after, "
        "and every question whose verdict changed.",
    )
    rsub = rp.add_subparsers(dest="step", required=True)
    rc = rsub.add_parser("collect", help="read one run's replies from its database")
    rc.add_argument("database_url", help="the evaluated system's database URL")
    rc.add_argument("--questions", type=Path, help="the inventory folder (default: corpus/questions)")
    rc.add_argument("--out", required=True, help="the JSON file to write")
    rm = rsub.add_parser("compare", help="two collected runs side by side")
    rm.add_argument("before")
    rm.add_argument("after")
    rp.set_defaults(run=cmd_replies)

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
    b.add_argument(
        "--token-questions",
        type=int,
        help="prompt tokens over the first N questions of the inventory only (default: all of them; "
        "a smoke run's sample)",
    )
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

    pr = sub.add_parser(
        "probe",
        help="probes from outside: load with a kill -9, the store killed mid-load, schemathesis",
        description="Starts its own local S3 server with the corpus, a fresh database and `python -m "
        "agent serve` processes; never touches a running system. load: claimants for --seconds against "
        "two processes, one killed with SIGKILL 40 %% of the way in; store-outage: the same with the object "
        "store killed at a third and restarted at two thirds; fuzz: schemathesis against one process per "
        "database, signed in as each role in turn. Every serve process is known by the name /health "
        "reports. Prints the figures as JSON; exits 1 when a message is lost, duplicated, out of order "
        "or unanswered, a response is a 5xx (load: or an unexpected 4xx), or a process that was started "
        "is not the one answering. See docs/operations.md.",
    )
    pr.add_argument("kind", choices=["load", "store-outage", "fuzz", "races"])
    pr.add_argument(
        "--trials", type=_positive, default=20, help="races: trials of each race, across two processes (20)"
    )
    pr.add_argument("--seconds", type=float, default=60.0, help="load: how long the claimants send (60)")
    pr.add_argument("--claimants", type=_positive, default=16, help="load: concurrent claimants (16)")
    pr.add_argument(
        "--database",
        choices=["postgresql", "sqlite"],
        default="postgresql",
        help="load, races: the database kind (PostgreSQL at 127.0.0.1:5432, a fresh database dropped after)",
    )
    pr.add_argument(
        "--databases",
        nargs="+",
        choices=["sqlite", "postgresql"],
        default=["sqlite", "postgresql"],
        help="fuzz: the databases, one after the other (both)",
    )
    pr.add_argument(
        "--cases", type=_positive, default=85, help="fuzz: cases per operation and generation mode (85)"
    )
    pr.add_argument("--json", help="also write the figures to this file")
    pr.set_defaults(run=cmd_probe)
    return p


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _whole(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text[:20]!r}")
    return int(text)


def _page_size(text: str) -> int:
    value = _whole(text)
    if not 1 <= value <= MAX_PAGE:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_PAGE}, not {value}")
    return value


def _offset(text: str) -> int:
    return _whole(text)


# Commands whose output is their answer (a token printed once, a list, the claims seeded):
# nothing from the frameworks underneath (Alembic migrating the database, for one) or the
# intake's own log lines (they say what seed prints) is printed with it.
QUIET = {"affected", "turns", "integration", "seed", "dev-modes"}


def quiet_libraries() -> None:
    """Alembic's INFO lines ("Context impl SQLiteImpl", one per migration) say nothing a user
    acts on, and bm25s sets its own logger to DEBUG (a line per index built); their warnings
    and errors still show."""
    for name in ("alembic", "bm25s"):
        logging.getLogger(name).setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> int:
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


if __name__ == "__main__":
    sys.exit(main())
