"""`clausedesk dev-modes`: the development system's answering modes (start-dev.sh runs it):
Kowhai's clauses earn answers from the dev part of the inventory, the travel wording drafts."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent.cli.common import migrated_sessions
from agent.settings import get_settings


def cmd_dev_modes(args: argparse.Namespace) -> int:
    from agent.wording.development import bring_in_travel, earn_from_dev, modes_line
    from agent.wording.memory_examples import runtime_memory, served_model
    from knowledge.store import ObjectStore

    settings = get_settings()
    if settings.production:
        print("CLAUSEDESK_ENV=production: development data approves nothing", file=sys.stderr)
        return 2
    store, sessions = ObjectStore(), migrated_sessions()
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
    from agent.cli.evidence import labelled
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


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
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
    return dm


PARSERS = {"dev-modes": add_parser}
