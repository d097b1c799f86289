"""`python -m knowledge check-release | approve | withdraw | discard`: a wording version into
service and out of it. The release checks, audit records and withdrawal follow-ups live in the
clausedesk database; agent.cli.wording assembles these commands with the others."""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from knowledge.manifest import Registry
from knowledge.store import ObjectStore


def open_records():  # type: ignore[no-untyped-def]
    """(sessions of the clausedesk database, None) or (None, why not). The agent package is
    imported here, never at import time: the knowledge runtime does not depend on it."""
    try:
        from agent.db.revision import SchemaNotReady
        from agent.db.tables import make_sessionmaker, open_current
        from agent.settings import Settings
    except ImportError as exc:
        return None, f"the clausedesk agent package cannot be imported ({exc})"
    try:
        return make_sessionmaker(open_current(Settings().database_url)), None
    except SchemaNotReady as exc:
        return None, str(exc)


def audit(changes: list[dict[str, Any]], records: tuple[Any, str | None] | None = None) -> None:
    """The audit records of these manifest changes, in one transaction, or a note saying why
    none is kept. `records`: what open_records() returned, when the command opened it already."""
    if not changes:
        return
    sessions, why = records or open_records()
    if sessions is None:
        no_record(why or "the clausedesk database cannot be reached")
        return
    from agent.wording.lifecycle import record_change

    with sessions.begin() as session:
        for change in changes:
            record_change(session, **change)


def no_record(why: str, what: str = "no audit record kept") -> None:
    print(
        f"note: {what}: {why} (set CLAUSEDESK_DATABASE_URL to the clausedesk database)",
        file=sys.stderr,
    )


def cmd_check_release(args: argparse.Namespace) -> int:
    # The agent's release check (it runs the turn code): imported only when this command
    # runs, so the knowledge package does not need the agent package to load.
    from agent.settings import Settings
    from agent.wording.memory_examples import served_model
    from agent.wording.questions import load_questions
    from agent.wording.release_check import render_text, run_release_check, write_report

    settings = Settings(model=args.model) if args.model else Settings()
    sessions, why = open_records()
    # With the database: every verified evidence question of the version (inventory and staff
    # answers) is replayed, the one measure approval and promotion read; without: the inventory.
    from agent.wording.measurement import measure_replay
    from agent.wording.memory_examples import runtime_memory

    replay = (
        measure_replay(sessions, args.family, args.version)
        if sessions is not None and not args.parts
        else None
    )
    memories = runtime_memory(settings, sessions)
    # The model as the API serves it, with its memory of verified questions (the evidence store
    # and the shipped inventory; the inventory alone without a database); each question asked is
    # left out of that memory while it is scored.
    report = run_release_check(
        ObjectStore(),
        args.family,
        args.version,
        model=served_model(settings, sessions, memories),
        against=args.against,
        created_by=args.by or getpass.getuser(),
        inventory=load_questions(parts=tuple(args.parts.split(","))) if args.parts else None,
        questions=args.questions,
        settings=settings,
        replay=replay,
        memories=memories,
    )
    if args.json:
        print(json.dumps(report.as_dict(), indent=2, default=str))
    else:
        print(render_text(report))
    json_path, html_path = write_report(report, Path(args.report_dir))
    print(f"report: {json_path} and {html_path}", file=sys.stderr)
    if sessions is None:
        no_record(why, f"release check {report.check_id} not stored, so no approval can cite it")
        return 0
    from agent.wording.lifecycle import store_check

    with sessions.begin() as session:
        store_check(session, report)
    print(f"stored as {report.check_id}; `knowledge approve` shows it before approving", file=sys.stderr)
    return 0


def _confirmed(question: str, yes: bool, verb: str) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        print(f"error: no terminal to confirm on: add --yes to {verb}", file=sys.stderr)
        return False
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def cmd_approve(args: argparse.Namespace) -> int:
    from agent.answering.check_report import Summary
    from agent.wording.lifecycle import ApprovalRefused, check_for_approval, would_approve

    registry = Registry(ObjectStore())
    manifest, _ = registry.read()
    # The manifest's own refusals (overlap, withdrawn, bad interval) come before any prompt.
    if not would_approve(
        manifest, args.family, args.version, args.effective_from, args.effective_to, args.by
    ):
        print(f"{args.family} {args.version}: already approved")
        return 0
    entry = manifest.entry(args.family, args.version)
    sessions, why = open_records()
    check = None
    if not args.no_check:
        if sessions is None:
            print(
                f"error: cannot look up the release check: {why}; approve with --no-check to go "
                "ahead without one",
                file=sys.stderr,
            )
            return 1
        try:
            with sessions() as session:
                check = check_for_approval(session, entry, args.check)
        except ApprovalRefused as exc:
            print(f"error: {exc} (or approve with --no-check)", file=sys.stderr)
            return 1
        print("\n".join(Summary.of(check.summary).lines))
    else:
        print(f"No release check: approving {args.family} {args.version} without one (--no-check).")
    interval = f"[{args.effective_from}, {args.effective_to or 'open'})"
    if not _confirmed(f"Approve {args.family} {args.version} for {interval}?", args.yes, "approve"):
        print("not approved")
        return 1
    changed = registry.approve(
        args.family,
        args.version,
        args.effective_from,
        args.effective_to,
        args.by,
        check.id if check else None,
    )
    print(f"{args.family} {args.version}: {'approved' if changed else 'already approved'}")
    if changed:
        change = dict(
            actor=args.by,
            action="approve",
            family=args.family,
            version=args.version,
            detail={
                "effective_from": str(args.effective_from),
                "effective_to": str(args.effective_to) if args.effective_to else None,
                "check_id": check.id if check else None,
                "via": "command line",
            },
        )
        audit([change], (sessions, why))
        if sessions is not None:
            from agent.answering.carry import carry_into

            with sessions.begin() as session:
                carried = carry_into(session, registry.store, args.family, args.version, by=args.by)
            if carried.source:
                print(
                    f"evidence of {args.family} {carried.source}: {len(carried.carried)} carried over, "
                    f"{len(carried.awaiting_review)} awaiting review (clause text changed)"
                )
    return 0


def cmd_withdraw(args: argparse.Namespace) -> int:
    if not args.reason.strip():
        print("error: --reason must say why the version is withdrawn", file=sys.stderr)
        return 1
    registry = Registry(ObjectStore())
    manifest, _ = registry.read()
    entry = manifest.entry(args.family, args.version)
    if entry.status == "draft":
        print(
            f"error: {args.family} {args.version} is a draft that was never approved, so there is nothing "
            f"to withdraw; discard it instead: python -m knowledge discard {args.family} {args.version}",
            file=sys.stderr,
        )
        return 1
    sessions, why = open_records()
    # What it will do, before it is done.
    state = entry.status + (f" for {entry.interval()}" if entry.effective_from else "")
    print(f"{args.family} {args.version}: {state}, approved by {entry.approved_by or 'nobody'}")
    to_follow_up: list[str] = []
    if sessions is None:
        print("Conversations relying on it: unknown (no clausedesk database)")
    else:
        from agent.wording.lifecycle import withdrawal_plan

        with sessions() as session:
            plan = withdrawal_plan(session, args.family, args.version)
        print(
            f"Conversations relying on it: {len(plan.affected)} ({plan.replies} "
            f"{'reply' if plan.replies == 1 else 'replies'}: agent replies and staff answers)"
        )
        print(
            f"Will create: {len(plan.to_follow_up)} follow-up items on the waiting list and "
            f"{len(plan.to_follow_up)} notices to claimants"
            + (f" ({', '.join(plan.to_follow_up)})" if plan.to_follow_up else "")
            + (f"; {len(plan.followed_up)} already followed up" if plan.followed_up else "")
        )
        to_follow_up = plan.to_follow_up
    if entry.status == "withdrawn":
        print(f"Already withdrawn by {entry.withdrawn_by}: {entry.withdraw_reason}")
    # Asked whenever something will change: the manifest, or follow-ups still missing.
    question = (
        f"Withdraw {args.family} {args.version} ({args.reason.strip()})?"
        if entry.status != "withdrawn"
        else f"Follow up the {len(to_follow_up)} conversations not yet followed up?"
    )
    changes = entry.status != "withdrawn" or bool(to_follow_up)
    if changes and not _confirmed(question, args.yes, "withdraw"):
        print("not withdrawn")
        return 1
    if sessions is None:
        changed = registry.withdraw(args.family, args.version, args.by, args.reason)
        print(f"{args.family} {args.version}: {'withdrawn' if changed else 'already withdrawn'}")
        no_record(
            why,
            "no audit record kept and no follow-up items made for the conversations that relied "
            "on it; run this command again once the database is reachable (it only adds what is missing)",
        )
        return 0
    from agent.wording.lifecycle import withdraw

    done = withdraw(
        registry,
        sessions,
        args.family,
        args.version,
        withdrawn_by=args.by,
        reason=args.reason,
        via="command line",
    )
    print(f"{args.family} {args.version}: {'withdrawn' if done.changed else 'already withdrawn'}")
    print(
        f"follow-up items on the waiting list: {len(done.created)} new"
        + (f" ({', '.join(done.created)})" if done.created else "")
        + f", {len(done.existing)} already there"
    )
    return 0


def cmd_discard(args: argparse.Namespace) -> int:
    registry = Registry(ObjectStore())
    manifest, _ = registry.read()
    entry = manifest.entry(args.family, args.version)
    if entry.status != "draft":
        hint = "; withdraw it instead: python -m knowledge withdraw" if entry.status == "approved" else ""
        print(
            f"error: {args.family} {args.version} is {entry.status}; only a draft can be discarded{hint}",
            file=sys.stderr,
        )
        return 1
    print(
        f"{args.family} {args.version}: draft, {entry.clause_count} clauses, ingested "
        f"{entry.ingested_at:%Y-%m-%d %H:%M} UTC; never approved, so no reply relied on it"
    )
    if not _confirmed(f"Discard the draft {args.family} {args.version}?", args.yes, "discard"):
        print("not discarded")
        return 1
    from agent.wording.lifecycle import discard

    sessions, why = open_records()
    if not discard(registry, sessions, args.family, args.version, by=args.by):
        no_record(why or "the clausedesk database cannot be reached")
    print(f"{args.family} {args.version}: discarded")
    return 0


def _status_change(
    sub: argparse._SubParsersAction, name: str, help: str, run: Callable[[argparse.Namespace], int]
) -> argparse.ArgumentParser:
    """A command that changes one version's status: by a named person, asked to confirm unless --yes."""
    c = sub.add_parser(name, help=help)
    c.add_argument("family")
    c.add_argument("version")
    c.add_argument("--by", required=True)
    c.add_argument("--yes", action="store_true", help=f"{name} without asking to confirm")
    c.set_defaults(run=run)
    return c


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """check-release, approve, withdraw and discard, in the order `knowledge --help` lists them."""
    c = sub.add_parser(
        "check-release",
        help="what would change if a version went live: inventory answers, clauses, figures",
        description="Runs the family's question inventory through the turn code against the "
        "version and the approved version it would follow (on a throwaway SQLite database), "
        "compares the clause texts, prints a table, writes JSON and HTML to --report-dir and "
        "stores the check in the clausedesk database for `knowledge approve`.",
    )
    c.add_argument("family")
    c.add_argument("version")
    c.add_argument("--against", help="compare with this version (default: the approved one before it)")
    c.add_argument("--model", help="model string (default: CLAUSEDESK_MODEL, 'offline' unless set)")
    c.add_argument("--by", help="who ran the check (default: the login name)")
    c.add_argument("--parts", help="only these parts of corpus/questions, comma-separated (e.g. dev)")
    c.add_argument("--questions", type=int, help="ask at most this many questions, in order")
    c.add_argument("--report-dir", default="reports")
    c.add_argument("--json", action="store_true", help="print the whole report as JSON")
    c.set_defaults(run=cmd_check_release)
    a = _status_change(sub, "approve", "approve an ingested version for an effective interval", cmd_approve)
    a.add_argument("--from", dest="effective_from", type=date.fromisoformat, required=True)
    a.add_argument("--to", dest="effective_to", type=date.fromisoformat)
    a.add_argument("--check", help="the release check to cite (default: the latest of this content)")
    a.add_argument("--no-check", action="store_true", help="approve without a release check")
    w = _status_change(sub, "withdraw", "withdraw a version: it is never evidence again", cmd_withdraw)
    w.add_argument("--reason", required=True)
    _status_change(sub, "discard", "discard a draft version that was never approved", cmd_discard)
