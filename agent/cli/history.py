"""`clausedesk affected` and `clausedesk turns`: what happened, read from the database without
migrating it: the replies, staff answers and drafts that stood on a wording version, and the
latest turn records."""

from __future__ import annotations

import argparse
import csv
import json
import sys

from agent.cli.common import _positive
from agent.db.tables import make_sessionmaker
from agent.settings import get_settings
from agent.wording.affected import MAX_PAGE, PAGE, AffectedReply


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


def add_affected(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    return a


def add_turns(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    t = sub.add_parser("turns", help="print the latest turn records (the turn log)")
    t.add_argument("--claim", help="only this claim's turns")
    t.add_argument("--outcome", help="only turns with this outcome, e.g. routed_to_staff")
    t.add_argument("--last", type=_positive, default=20, help="how many of the latest (default 20)")
    t.add_argument("--json", action="store_true", help="one JSON record per line, every field")
    t.set_defaults(run=cmd_turns)
    return t


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


PARSERS = {"affected": add_affected, "turns": add_turns}
