"""The development system's answering modes, set up by start-dev.sh (`python -m agent dev-modes`).

Both modes are on show once the system is up:

- Kowhai's current wordings earn answering from their development evidence: the dev part of
  the question inventory is asked in a release check of each (stored, as a policy owner's is),
  and each clause the check shows meeting the bar (enough questions on the clause and the
  wording, served wrong or irrelevant within its share) moves to `answers` citing that check.
  The bar is the product's rule, so development data is held to it: a clause with fewer dev
  questions than the bar asks keeps drafting. `--below-bar` lets development data approve
  clauses short of the bar's counts (served within its wrong share), each approval below the
  bar saying why: "development data". Everything else stays in `drafts`.
- A wording still drafting: the team-written travel wording (corpus/wordings/kowhai-travel.md)
  rendered to PDF and imported as an insurer's wording would be, approved to govern with its
  release check (no evidence, so a failed check) and left in `drafts`, with one synthetic
  claimant whose policy questions are drafted for staff.

This is the one place development data approves clauses. Idempotent: a wording whose dev
check of this content is on record is not asked again, so a restart takes a second.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pydantic_ai.models import Model
from sqlalchemy.orm import Session, sessionmaker

from agent.answering import approval
from agent.answering.bar import Bar
from agent.answering.check_report import CheckReport, SubjectEvidence
from agent.answering.modes import history, modes_for
from agent.db.tables import ReleaseCheck
from agent.models.memory import Memories
from agent.seed import seed_policies
from agent.settings import Settings
from agent.wording import lifecycle
from agent.wording.measurement import measure_replay
from agent.wording.questions import Question, load_questions
from agent.wording.release_check import run_release_check
from knowledge.clauses import ClauseLibrary
from knowledge.importing.pipeline import import_reviewed
from knowledge.importing.sample import SAMPLE, render_pdf
from knowledge.ingest import ingest
from knowledge.manifest import Registry, VersionEntry
from knowledge.source import version_key
from knowledge.store import ObjectStore

log = logging.getLogger(__name__)

DEV_PART = "dev"
ACTOR = "start-dev (development data)"
REASON = "development data: the dev part of the inventory, which the offline model is tuned on"
TRAVEL_FAMILY, TRAVEL_VERSION, TRAVEL_CODE = "travel", "2026.1", "TRV"
TRAVEL_FROM = date(2026, 7, 1)
TRAVEL_CLAIMANTS = SAMPLE.with_name("kowhai-travel-claimants.toml")


@dataclass(frozen=True)
class WordingModes:
    """What one wording version does for claimants: the clauses that answer, of how many."""

    family: str
    version: str
    answering: tuple[str, ...]
    clauses: int
    check_id: str | None
    failed: str | None  # the first reason the check fails the bar; None when it passes

    def describe(self) -> str:
        check = f"check {self.check_id}" if self.check_id else "no check"
        if self.failed and not self.answering:
            check += f" failed: {self.failed.split(':')[0]}"
        if not self.answering:
            return f"{self.family} {self.version} drafts every answer ({check})"
        share = f"{len(self.answering)} of {self.clauses} clauses"
        return f"{self.family} {self.version} answers on {share} (development data, {check})"


def earned(report: CheckReport, bar: Bar, *, below_bar: bool = False) -> list[SubjectEvidence]:
    """What development data lets answer: the clauses and rules the check shows meeting the bar.
    With `below_bar`, also the clauses (never a pooled rule, which would serve everything the
    model selects) served at least once with no wrong answer among them."""
    meets = [c for c in report.clause_evidence if c.meets_bar]
    if not below_bar:
        return meets
    return meets + [
        c
        for c in report.clause_evidence
        if not c.meets_bar and not c.pooled and c.served and not c.served_wrong
    ]


def approve_clauses(
    session: Session, store: ObjectStore, check: ReleaseCheck, bar: Bar, *, below_bar: bool = False
) -> list[str]:
    """Move the earned clauses of a stored check to `answers` through the policy owner's own path
    (agent.answering.approval.to_answers), citing the check; with `below_bar`, below the bar on
    REASON."""
    entry = Registry(store).read()[0].entry(check.family, check.version)
    known = {e.clause_id for e in ClauseLibrary(store).directory(entry).entries}
    ids = [c.clause_id for c in earned(CheckReport.of(check.report), bar, below_bar=below_bar)]
    if ids:
        approval.to_answers(
            session,
            family=check.family,
            version=check.version,
            clause_ids=ids,
            known=known,
            check=check,
            by=ACTOR,
            bar=bar,
            reason=REASON if below_bar else None,
        )
    return ids


def current(manifest_entries: list[VersionEntry]) -> VersionEntry | None:
    return max(manifest_entries, key=lambda e: version_key(e.version), default=None)


# Puts a version's dev questions into the evidence store, so an approval weighs them as the
# check scored them (the command line passes agent.cli.development's loader: agent.wording does
# not import the command line).
EvidenceLoader = Callable[[Session, VersionEntry, list[Question]], None]


def earn_from_dev(
    store: ObjectStore,
    sessions: sessionmaker,
    model: Model,
    settings: Settings,
    *,
    questions: int | None = None,
    load: EvidenceLoader | None = None,
    below_bar: bool = False,
    memories: Memories | None = None,
) -> list[WordingModes]:
    """Each Kowhai family's current approved version: its dev questions into the evidence store
    (with `load`), a release check on them (at most `questions`; unless a dev check of this
    content is on record), and its earned clauses moved to `answers` citing the check: those that
    meet the bar, or with `below_bar` those served within the bar's wrong share however few."""
    registry = Registry(store)
    manifest, _ = registry.read()
    dev = load_questions(parts=(DEV_PART,))
    bar = Bar.of(settings)
    shown = []
    for family in sorted({q.family for q in dev}):
        entry = current(manifest.approved(family))
        if entry is None:
            continue
        asked = [q for q in dev if q.family == family][:questions]
        with sessions() as session:
            check = lifecycle.latest_check(session, entry, created_by=ACTOR)
            report = CheckReport.of(check.report) if check else None
        if report is None:
            if load is not None:
                with sessions.begin() as session:
                    load(session, entry, asked)
            report = run_release_check(
                store,
                family,
                entry.version,
                model=model,
                created_by=ACTOR,
                inventory=asked,
                questions=questions,
                settings=settings,
                compare=False,  # evidence alone: the text comparison is the policy owner's check
                replay=measure_replay(sessions, family, entry.version) if load is not None else None,
                memories=memories,
            )
            with sessions.begin() as session:
                lifecycle.store_check(session, report)
        with sessions.begin() as session:
            cited = {m.release_check_id for m in history(session, family, entry.version)}
            if report.check_id not in cited:
                check = session.get(ReleaseCheck, report.check_id)
                approve_clauses(session, store, check, bar, below_bar=below_bar)
        shown.append(modes_of(store, sessions, entry, report))
    return shown


def modes_of(
    store: ObjectStore, sessions: sessionmaker, entry: VersionEntry, report: CheckReport | None
) -> WordingModes:
    ids = [e.clause_id for e in ClauseLibrary(store).directory(entry).entries]
    with sessions() as session:
        modes = modes_for(session, entry.family, entry.version, ids)
    return WordingModes(
        entry.family,
        entry.version,
        tuple(cid for cid in ids if modes[cid] == "answers"),
        len(ids),
        report.check_id if report else None,
        next(iter(report.summary.verdict.reasons), None) if report else "no release check",
    )


def bring_in_travel(
    store: ObjectStore, sessions: sessionmaker, model: Model, settings: Settings, folder: Path
) -> WordingModes:
    """The travel wording as an insurer's PDF: rendered, imported with its drafted titles
    accepted, ingested, checked (no inventory: the check fails for want of evidence), approved
    to govern from TRAVEL_FROM citing that check, and left drafting; its claimant seeded."""
    registry = Registry(store)
    manifest, _ = registry.read()
    entry = manifest.families.get(TRAVEL_FAMILY, {}).get(TRAVEL_VERSION)
    if entry is None:
        pdf = render_pdf(folder / "kowhai-travel.pdf")
        _, source = import_reviewed(
            pdf, TRAVEL_FAMILY, TRAVEL_VERSION, TRAVEL_CODE, draft=folder / f"travel-{TRAVEL_VERSION}.md"
        )
        ingest(store, source)
        manifest, _ = registry.read()
        entry = manifest.entry(TRAVEL_FAMILY, TRAVEL_VERSION)
    claimants = tomllib.loads(TRAVEL_CLAIMANTS.read_text(encoding="utf-8"))["policy"]
    seed_policies(sessions, data=claimants)
    with sessions() as session:
        check = lifecycle.latest_check(session, entry)
        report = CheckReport.of(check.report) if check else None
    if report is None:
        report = run_release_check(
            store, TRAVEL_FAMILY, TRAVEL_VERSION, model=model, created_by=ACTOR, settings=settings
        )
        with sessions.begin() as session:
            lifecycle.store_check(session, report)
    if entry.status == "draft":
        lifecycle.approve(
            registry,
            sessions,
            TRAVEL_FAMILY,
            TRAVEL_VERSION,
            effective_from=TRAVEL_FROM,
            effective_to=None,
            approved_by=ACTOR,
            check_id=report.check_id,
            via="start-dev",
            # a fresh in-memory store loses the manifest on every start: not a new approval
            unless_recorded=("effective_from", "effective_to", "via"),
        )
        entry = registry.read()[0].entry(TRAVEL_FAMILY, TRAVEL_VERSION)
    return modes_of(store, sessions, entry, report)


def modes_line(answering: list[WordingModes], drafting: list[WordingModes]) -> str:
    """The one line start-dev.sh prints: which wordings answer and which draft."""
    answers = "; ".join(m.describe() for m in answering if m.answering) or "none"
    drafts = [m.describe() for m in [*answering, *drafting] if not m.answering]
    return (
        f"Answering modes: {answers}; the rest of their clauses draft for staff. "
        f"Drafting: {'; '.join(drafts) or 'nothing else'}; earlier versions draft every answer."
    )
