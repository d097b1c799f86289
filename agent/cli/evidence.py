"""`python -m agent evidence`: the evidence store from the command line.

evidence load FAMILY VERSION FILE... [--by NAME]
    store the questions of inventory files (corpus/questions/*/FAMILY.toml, or an imported
    wording's corpus/questions/imported/*.toml, whose `sections` are mapped onto the ingested
    clause IDs) as verified evidence of the version; idempotent by question ID
evidence carry FAMILY VERSION [--from VERSION] [--by NAME]
    carry the evidence of an earlier version (default: the latest that holds any) into VERSION:
    verified where a clause kept its text, awaiting review where it changed (approval does this)
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.answering import evidence, retention
from agent.answering.carry import carry_into
from agent.boundary.units import units
from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.seed import load_seed_files
from agent.settings import get_settings
from agent.wording.questions import IMPORTED, InventoryError, Question, clauses_for, load_file, normalise
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.errors import KnowledgeError
from knowledge.manifest import Registry
from knowledge.store import ObjectStore


class LoadRefused(ValueError):
    """Inventory files that cannot be stored as they are: every problem, by file and question."""


def claimants(paths: list[Path]) -> dict[str, dict[str, Any]]:
    """policy number -> the claimant context that matters (plan or cover level, schedule sections
    and endorsements): the development schedules, and the `[[policy]]` files beside the inventories."""
    tables = [*load_seed_files()]
    for folder in {p.parent for p in paths}:
        for path in sorted(folder.glob("*.toml")):
            tables += tomllib.loads(path.read_text(encoding="utf-8")).get("policy", [])
    found = {}
    for t in tables:
        schedule = t.get("schedule") or {}
        found[t["policy_number"]] = {
            "policy": t["policy_number"],
            "plan": t.get("plan"),
            "sections": list(schedule.get("sections") or []),
            "endorsements": list(schedule.get("endorsements") or []),
        }
    return found


def deciding(question: Question, texts: dict[str, str], cited: tuple[str, ...]) -> tuple[dict[str, str], ...]:
    """The sentences of the cited clauses that hold one of the question's facts."""
    found: list[dict[str, str]] = []
    for cid in cited:
        for unit in units(texts.get(cid, "")):
            text = normalise(unit.text)
            if any(normalise(s) in text for group in question.facts for s in group):
                entry = {"clause_id": cid, "sentence": unit.text}
                if entry not in found:
                    found.append(entry)
    return tuple(found)


@dataclass
class ReadInventory:
    """The files' questions ready to store, and the answerable ones left out because no clause
    of the version carries the headings they name (an imported wording's units drafted otherwise)."""

    rows: list[evidence.Labelled]
    unmapped: list[str]


def labelled(paths: list[Path], family: str, directory: Directory, library: ClauseLibrary) -> ReadInventory:
    """The files' questions as evidence of the directory's version; LoadRefused names each problem."""
    context = claimants(paths)
    problems, found, unmapped = [], [], []
    questions: list[tuple[Path, Question]] = []
    for path in paths:
        try:
            questions += [(path, q) for q in load_file(path)]
        except (InventoryError, OSError, tomllib.TOMLDecodeError, KeyError) as exc:
            problems.append(f"{path}: {exc}")
    wanted: dict[str, tuple[str, ...]] = {}
    for path, q in questions:
        if q.family != family:
            problems.append(f"{path}: question {q.id} is of family {q.family}, not {family}")
            continue
        cited = clauses_for(q, directory)
        outside = [c for c in cited if directory.get(c) is None]
        if outside:
            problems.append(
                f"{path}: question {q.id} cites {', '.join(outside)}, not in {family} {directory.version}"
            )
        elif q.answerable and not cited:
            # Stored without clauses it would read as "must be routed": left out instead.
            unmapped.append(f"{q.id} ({'; '.join(q.sections)})")
            continue
        wanted[q.id] = cited
    if problems:
        raise LoadRefused("\n".join(problems))
    ids = sorted({c for cited in wanted.values() for c in cited})
    texts = {}
    for start in range(0, len(ids), 3):  # three at a time, as the runtime fetches
        texts |= {c.clause_id: c.text for c in library.fetch(directory, ids[start : start + 3]).clauses}
    for path, q in questions:
        if q.id not in wanted:
            continue
        ctx = dict(context.get(q.policy, {"policy": q.policy}))
        if q.earlier:
            ctx["earlier"] = list(q.earlier)
        if path.parent.name != IMPORTED:
            ctx["part"] = q.part
        found.append(
            evidence.Labelled(
                key=q.id,
                question=q.text,
                clauses=wanted[q.id],
                context=ctx,
                deciding=deciding(q, texts, wanted[q.id]),
                facts=q.facts,
                wrong_facts=q.wrong,
            )
        )
    return ReadInventory(found, unmapped)


def cmd_load(args: argparse.Namespace) -> int:
    settings = get_settings()
    store = ObjectStore(settings.store)
    library = ClauseLibrary(store)
    try:
        manifest, _ = Registry(store).read()
        directory = library.directory(manifest.entry(args.family, args.version))
        read = labelled([Path(f) for f in args.files], args.family, directory, library)
    except LoadRefused as exc:
        print(f"error: nothing loaded:\n{exc}", file=sys.stderr)
        return 2
    except KnowledgeError as exc:
        print(f"error: {args.family} {args.version}: {exc}", file=sys.stderr)
        return 1
    engine = make_engine(settings.database_url)
    upgrade(engine)
    hashes = {e.clause_id: e.sha256 for e in directory.entries}
    with make_sessionmaker(engine).begin() as session:
        done = evidence.load_inventory(session, args.family, args.version, read.rows, hashes, by=args.by)
    engine.dispose()
    print(
        f"evidence {args.family} {args.version}: {len(done.added)} added, {len(done.updated)} updated, "
        f"{len(done.unchanged)} unchanged"
    )
    if read.unmapped:
        print(
            f"left out, no clause of {args.family} {args.version} carries the headings they name: "
            + ", ".join(read.unmapped),
            file=sys.stderr,
        )
    return 0


def cmd_carry(args: argparse.Namespace) -> int:
    settings = get_settings()
    engine = make_engine(settings.database_url)
    upgrade(engine)
    try:
        with make_sessionmaker(engine).begin() as session:
            done = carry_into(
                session,
                ObjectStore(settings.store),
                args.family,
                args.version,
                by=args.by,
                source=args.source,
            )
    except KnowledgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        engine.dispose()
    if done.source is None:
        print(f"evidence {args.family} {args.version}: no earlier version holds evidence; nothing carried")
        return 0
    print(
        f"evidence {args.family} {done.source} -> {args.version}: {len(done.carried)} carried, "
        f"{len(done.awaiting_review)} awaiting review (clause text changed), "
        f"{len(done.already)} already there"
    )
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    settings = get_settings()
    days = args.older_than_days or settings.evidence_words_days
    if args.claim is None and days is None:
        print(
            "error: name --claim, or --older-than-days (or set CLAUSEDESK_EVIDENCE_WORDS_DAYS)",
            file=sys.stderr,
        )
        return 2
    engine = make_engine(settings.database_url)
    upgrade(engine)
    try:
        with make_sessionmaker(engine).begin() as session:
            if args.claim is not None:
                done = retention.forget_claim(session, args.claim)
                print(f"evidence words of claim {args.claim}: {done} rows forgotten")
            if days is not None and args.claim is None:
                done = retention.forget_older_than(session, days)
                print(f"evidence words older than {days} days: {done} rows forgotten")
    finally:
        engine.dispose()
    return 0


# Who the evidence's records name when --by does not.
BY = "policy owner (command line)"


def add_version_verb(verbs: argparse._SubParsersAction, verb: str, help: str) -> argparse.ArgumentParser:
    """A verb on one wording version, named by its family and version first."""
    parser = verbs.add_parser(verb, help=help)
    parser.add_argument("family")
    parser.add_argument("version")
    return parser


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("evidence", help="the evidence store: load an inventory, carry evidence over")
    verbs = p.add_subparsers(dest="verb", required=True)
    load = add_version_verb(verbs, "load", "store inventory questions as evidence of a version")
    load.add_argument("files", nargs="+", metavar="FILE")
    load.add_argument("--by", default=BY)
    load.set_defaults(run=cmd_load)
    carry = add_version_verb(verbs, "carry", "carry an earlier version's evidence into a version")
    carry.add_argument(
        "--from", dest="source", help="the version to carry from (default: latest with evidence)"
    )
    carry.add_argument("--by", default=BY)
    carry.set_defaults(run=cmd_carry)
    forget = verbs.add_parser(
        "forget", help="drop claimants' words kept as evidence (one claim's, or old ones)"
    )
    forget.add_argument("--claim", help="the claim whose kept words go, on request")
    forget.add_argument(
        "--older-than-days",
        type=int,
        help="words kept longer than this (default CLAUSEDESK_EVIDENCE_WORDS_DAYS)",
    )
    forget.set_defaults(run=cmd_forget)
    return p


PARSERS = {"evidence": add_parser}
