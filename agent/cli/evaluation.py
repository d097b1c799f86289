"""The evaluation commands: `clausedesk curve`, `evaluate`, `first-turns`, `replies`, `bench` and
`probe`. They are tooling, not the runtime: each imports agent.evaluation when it runs (`curve`
when its parser is built, its arguments living there), so the runtime never loads it."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from agent.cli.common import _positive
from agent.settings import get_settings


def cmd_evaluate(args: argparse.Namespace) -> int:
    from agent.evaluation.run import Options, evaluate, store_control

    logging.getLogger().setLevel(logging.WARNING)
    asked = Options(
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
    return evaluate(args.base_url, asked)


def cmd_replies(args: argparse.Namespace) -> int:
    from agent.evaluation.replies import run_collect, run_compare

    if args.step == "collect":
        return run_collect(args.database_url, args.questions, Path(args.out))
    return run_compare(Path(args.before), Path(args.after))


def cmd_bench(args: argparse.Namespace) -> int:
    from agent.evaluation.bench.command import run_bench

    logging.getLogger().setLevel(logging.WARNING)
    if args.growth:
        from agent.evaluation.growth.command import run_growth

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


def add_curve(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from agent.evaluation.curve_cli import add_parser

    return add_parser(sub)


def add_evaluate(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    return e


def add_first_turns(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    f = sub.add_parser(
        "first-turns",
        help="a first question on three development claims whose conversation is empty, through the API",
    )
    f.add_argument("--base-url", default="http://127.0.0.1:8000", help="the running system")
    f.set_defaults(run=cmd_first_turns)
    return f


def add_replies(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    return rp


def add_bench(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    return b


def add_probe(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    return pr


PARSERS = {
    "curve": add_curve,
    "evaluate": add_evaluate,
    "first-turns": add_first_turns,
    "replies": add_replies,
    "bench": add_bench,
    "probe": add_probe,
}
