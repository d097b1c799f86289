"""The wording command line, for policy owners (`python -m knowledge`): validate, ingest, check,
approve, withdraw, discard, status, apply releases, import and review an insurer's wording.

python -m knowledge validate [policies/]
python -m knowledge ingest [policies/ | policies/motor/2026.2.md …]
python -m knowledge check-release motor 2027.1 [--against 2026.2] [--model offline] [--parts dev]
                                                [--questions N]
python -m knowledge approve motor 2027.1 --from 2027-07-01 [--to DATE] --by "Name" [--check RC-…] [--yes]
python -m knowledge withdraw motor 2026.2 --by "Name" --reason "…" [--yes]
python -m knowledge discard motor 2027.1 --by "Name" [--yes]

The release check, the audit records and the withdrawal follow-ups live in the clausedesk
database (CLAUSEDESK_DATABASE_URL). Without one, manifest changes still work and say that
no record was kept.
python -m knowledge status [--on 2026-08-01] [--json]
python -m knowledge apply-releases [policies/releases.toml]
python -m knowledge import FILE --family F --version V [--supplement FILE | --supplement-pages A-B]
python -m knowledge review drafts/travel/2026.1.md     the import's review page
python -m knowledge render-sample --out DIR            the synthetic Kowhai travel wording
python -m knowledge probe-large-pdf [--pages 2000]     time and memory of a long import
"""

from __future__ import annotations

import argparse
import getpass
import json
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent.closed_pipe import quiet_on_closed_pipe
from agent.settings import SETTING_PREFIXES
from knowledge.errors import KnowledgeError, NoGoverningVersion
from knowledge.ingest import ingest
from knowledge.manifest import Registry, governing_version
from knowledge.releases import apply_releases, check_releases, load_releases
from knowledge.rules import check_sources
from knowledge.settings import refused_settings
from knowledge.source import PolicySource, load_sources, parse_wording
from knowledge.store import ObjectStore

DEFAULT_POLICIES = Path("policies")


def _records():  # type: ignore[no-untyped-def]
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


def _audit(changes: list[dict[str, Any]], records: tuple[Any, str | None] | None = None) -> None:
    """The audit records of these manifest changes, in one transaction, or a note saying why
    none is kept. `records`: what _records() returned, when the command opened it already."""
    if not changes:
        return
    sessions, why = records or _records()
    if sessions is None:
        _no_record(why or "the clausedesk database cannot be reached")
        return
    from agent.wording.lifecycle import record_change

    with sessions.begin() as session:
        for change in changes:
            record_change(session, **change)


def _no_record(why: str, what: str = "no audit record kept") -> None:
    print(
        f"note: {what}: {why} (set CLAUSEDESK_DATABASE_URL to the clausedesk database)",
        file=sys.stderr,
    )


def _sources(paths: list[str]) -> tuple[list[PolicySource], list[PolicySource]]:
    """(the files named, every wording of their families) — lineage needs all versions."""
    roots = [Path(p) for p in paths] or [DEFAULT_POLICIES]
    named: list[PolicySource] = []
    for root in roots:
        named.extend(load_sources(root) if root.is_dir() else [parse_wording(root)])
    everything = {s.path: s for s in named}
    for source in named:
        family_dir = Path(source.path).parent
        for sibling in load_sources(family_dir.parent):
            if Path(sibling.path).parent == family_dir:
                everything.setdefault(sibling.path, sibling)
    return named, list(everything.values())


def _release_records(args: argparse.Namespace) -> Path | None:
    """The release records to check: those named, else the project's own when the wordings
    checked are the project's (policies/); a draft imported elsewhere has none yet."""
    if args.releases:
        return Path(args.releases)
    roots = [Path(p).resolve() for p in args.paths] or [DEFAULT_POLICIES.resolve()]
    policies = DEFAULT_POLICIES.resolve()
    if all(r == policies or policies in r.parents for r in roots):
        return DEFAULT_POLICIES / "releases.toml"
    return None


def cmd_validate(args: argparse.Namespace) -> int:
    named, family = _sources(args.paths)
    check_sources(family)
    releases = _release_records(args)
    if releases is not None and releases.exists():
        violations = check_releases(str(releases), load_releases(releases), family)
        if violations:
            from knowledge.errors import ValidationFailed

            raise ValidationFailed(violations)
    print(f"ok: {len(named)} wording files, {sum(len(s.clauses) for s in named)} clauses")
    return 0


def cmd_ingest(args: argparse.Namespace) -> int:
    named, family = _sources(args.paths)
    check_sources(family)
    store = ObjectStore()
    written = []
    for source in named:
        report = ingest(store, source)
        state = "unchanged" if report.unchanged else f"{report.objects_written} objects written"
        print(f"{report.family} {report.version}: {state}")
        if not report.unchanged:
            written.append((report, source.content_hash))
    # The same content ingested again into a store that lost it is already on record.
    _audit(
        [
            dict(
                actor=args.by or getpass.getuser(),
                action="ingest",
                family=report.family,
                version=report.version,
                detail={
                    "objects_written": report.objects_written,
                    "content_hash": content_hash,
                    "via": "command line",
                },
                unless_recorded=("content_hash",),
            )
            for report, content_hash in written
        ]
    )
    return 0


def cmd_check_release(args: argparse.Namespace) -> int:
    # The agent's release check (it runs the turn code): imported only when this command
    # runs, so the knowledge package does not need the agent package to load.
    from agent.settings import Settings
    from agent.wording.memory_examples import served_model
    from agent.wording.questions import load_questions
    from agent.wording.release_check import render_text, run_release_check, write_report

    settings = Settings(model=args.model) if args.model else Settings()
    sessions, why = _records()
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
        print(json.dumps(report, indent=2, default=str))
    else:
        print(render_text(report))
    json_path, html_path = write_report(report, Path(args.report_dir))
    print(f"report: {json_path} and {html_path}", file=sys.stderr)
    if sessions is None:
        _no_record(why, f"release check {report['check_id']} not stored, so no approval can cite it")
        return 0
    from agent.wording.lifecycle import store_check

    with sessions.begin() as session:
        store_check(session, report)
    print(f"stored as {report['check_id']}; `knowledge approve` shows it before approving", file=sys.stderr)
    return 0


def _confirmed(question: str, yes: bool, verb: str) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        print(f"error: no terminal to confirm on: add --yes to {verb}", file=sys.stderr)
        return False
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def cmd_approve(args: argparse.Namespace) -> int:
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
    sessions, why = _records()
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
        print("\n".join(check.summary.get("lines", [])))
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
        _audit([change], (sessions, why))
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
    sessions, why = _records()
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
        _no_record(
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

    sessions, why = _records()
    if not discard(registry, sessions, args.family, args.version, by=args.by):
        _no_record(why or "the clausedesk database cannot be reached")
    print(f"{args.family} {args.version}: discarded")
    return 0


def cmd_apply_releases(args: argparse.Namespace) -> int:
    path = Path(args.file)
    records = load_releases(path)
    _, family = _sources([str(path.parent)])
    violations = check_releases(str(path), records, family)
    if violations:
        from knowledge.errors import ValidationFailed

        raise ValidationFailed(violations)
    done = apply_releases(Registry(ObjectStore()), records)
    print("\n".join(done) or "all release records already applied")
    applied = [r for r in records if any(line.startswith(f"approved {r.label} from") for line in done)]
    _audit(
        [
            dict(
                actor=r.approved_by,
                action="approve",
                family=r.family,
                version=r.version,
                reason=r.note or None,
                detail={
                    "effective_from": str(r.effective_from),
                    "effective_to": str(r.effective_to) if r.effective_to else None,
                    "check_id": None,
                    "via": f"release record ({path})",
                },
                # A release record applied again to a store that lost it is not a new approval.
                unless_recorded=("effective_from", "effective_to", "via"),
            )
            for r in applied
        ]
    )
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    manifest, _ = Registry(ObjectStore()).read()
    on = args.on or date.today()
    rows = []
    for family in sorted(manifest.families):
        try:
            governing = governing_version(manifest, family, on).version
        except NoGoverningVersion as exc:
            governing = f"none: {exc}"
        versions = [
            {
                "version": e.version,
                "status": e.status,
                "effective": e.interval() if e.effective_from else "-",
                "approved_by": e.approved_by,
                "clauses": e.clause_count,
            }
            for e in manifest.families[family].values()
        ]
        rows.append({"family": family, "on": str(on), "governing": governing, "versions": versions})
    if args.json:
        print(json.dumps(rows, indent=2, default=str))
        return 0
    if not rows:
        print("the manifest is empty: nothing has been ingested")
    for row in rows:
        print(f"{row['family']}: governing on {row['on']}: {row['governing']}")
        for v in row["versions"]:
            print(
                f"  {v['version']:<8} {v['status']:<9} {v['effective']:<28} "
                f"{v['clauses']:>3} clauses  {v['approved_by'] or ''}"
            )
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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="knowledge", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check wording files and release records")
    v.add_argument("paths", nargs="*")
    v.add_argument(
        "--releases",
        help="release records to check with the wordings (default: policies/releases.toml when "
        "the wordings are under policies/; none for a draft elsewhere)",
    )
    v.set_defaults(run=cmd_validate)
    i = sub.add_parser("ingest", help="write wording versions to the store as drafts")
    i.add_argument("paths", nargs="*")
    i.add_argument("--by", help="who ingests, for the audit record (default: the login name)")
    i.set_defaults(run=cmd_ingest)
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
    s = sub.add_parser("status", help="what governs each family on a date")
    s.add_argument("--on", type=date.fromisoformat)
    s.add_argument("--json", action="store_true")
    s.set_defaults(run=cmd_status)
    r = sub.add_parser("apply-releases", help="approve what the release records say")
    r.add_argument("file", nargs="?", default=str(DEFAULT_POLICIES / "releases.toml"))
    r.set_defaults(run=cmd_apply_releases)
    # Import of an insurer's own wording (issue 19): everything lives in knowledge.importer.
    from knowledge import importer

    m = sub.add_parser("import", help="an insurer's wording (PDF, DOCX, HTML, MD) to a draft and a report")
    importer.add_arguments(m)
    m.set_defaults(run=importer.run_import)
    rv = sub.add_parser("review", help="the review page of an imported draft, on this machine")
    rv.add_argument("draft", type=Path)
    rv.add_argument("--port", type=int, default=8765)
    rv.set_defaults(run=lambda a: _review(a.draft, a.port))
    rs = sub.add_parser("render-sample", help="the synthetic Kowhai travel wording as PDF and DOCX")
    rs.add_argument("--out", type=Path, default=Path("drafts/sample"))
    rs.set_defaults(run=_render_sample)
    pl = sub.add_parser(
        "probe-large-pdf", help="import a long PDF under a memory limit; print time and memory"
    )
    pl.add_argument("--pages", type=int, default=2000)
    pl.add_argument("--limit-mb", type=int, default=500)
    pl.set_defaults(run=lambda a: _probe(a.pages, a.limit_mb))
    return p


def _review(draft: Path, port: int) -> int:
    from knowledge.review.app import serve

    return serve(draft, port)


def _render_sample(args: argparse.Namespace) -> int:
    from knowledge.sample import render

    for path in render(args.out):
        print(path)
    return 0


def _probe(pages: int, limit_mb: int) -> int:
    from knowledge.probe import probe

    return probe(pages, limit_mb)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return quiet_on_closed_pipe(lambda: args.run(args))
    except KnowledgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ValidationError as exc:  # settings from the environment
        if exc.title not in SETTING_PREFIXES:
            raise
        print(refused_settings(exc, SETTING_PREFIXES), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
