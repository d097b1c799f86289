"""The check itself: both versions read, the inventory asked of each on a throwaway database,
and the comparisons and the bar gathered into one report (agent.answering.check_report)."""

from __future__ import annotations

import tempfile
import uuid
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.models import Model

from agent.answering.bar import Bar
from agent.answering.check_report import (
    Asked,
    CheckReport,
    DirectoryTokens,
    EvidenceCovered,
    RecordedWrong,
    VersionFacts,
)
from agent.answering.measured import tuned_on_dev
from agent.db.tables import make_engine, make_sessionmaker, upgrade
from agent.models.memory import Memories
from agent.models.selection import model_label
from agent.seed import seed_policies
from agent.settings import Settings, get_settings
from agent.wording.measurement import Replay, copy_claimants
from agent.wording.questions import Question, load_imported, load_questions
from agent.wording.release_check.applicability import compare_applicability
from agent.wording.release_check.bar import clause_evidence, summarise, wrong_answers
from agent.wording.release_check.directory import directory_tokens
from agent.wording.release_check.questions import ModelFor, ask_all, compare_questions
from agent.wording.release_check.text_diff import compare_clauses
from agent.wording.release_check.versions import baseline_for, clause_texts
from knowledge.clauses import ClauseLibrary
from knowledge.errors import RegistryError
from knowledge.manifest import Registry, VersionEntry
from knowledge.store import ObjectStore


def new_check_id() -> str:
    return f"RC-{uuid.uuid4().hex[:8]}"


def run_release_check(
    store: ObjectStore,
    family: str,
    version: str,
    *,
    model: Model,
    against: str | None = None,
    created_by: str = "",
    inventory: list[Question] | None = None,
    questions: int | None = None,
    model_for: ModelFor | None = None,
    settings: Settings | None = None,
    compare: bool = True,
    replay: Replay | None = None,
    memories: Memories | None = None,
) -> CheckReport:
    """The whole report; nothing is written anywhere.

    `replay`: the version's verified evidence (agent.wording.measurement): when it holds
    questions, those are asked (inventory and staff answers alike) instead of the shipped
    inventory, and the per-subject table weighs them with the served answers flagged wrong;
    `memories`: the runtime memory the serving gate's near rule reads.

    `inventory`: the questions to ask (the family's whole inventory by default, or an imported
    wording's own); `questions`: ask at most this many of them, in order; `model_for`: the model
    that answers each question (see ModelFor); `compare=False`: the version it would follow is
    neither asked nor compared (a check of evidence alone, at half the time)."""
    if questions is not None and questions < 0:
        raise ValueError(f"questions must be 0 or more, not {questions}")
    bar = Bar.of(settings or get_settings())
    manifest, _ = Registry(store).read()
    candidate = manifest.entry(family, version)
    baseline = manifest.entry(family, against) if against else baseline_for(manifest, candidate)
    baseline = baseline if compare else None
    if baseline is not None and baseline.version == candidate.version:
        raise RegistryError(f"{family} {version} cannot be checked against itself")
    inventory, claimants = _inventory(family, inventory, replay)
    asked_questions = inventory[:questions] if questions is not None else inventory
    library = ClauseLibrary(store)
    cand_dir = library.directory(candidate)
    base_dir = library.directory(baseline) if baseline else None
    cand_texts = clause_texts(library, cand_dir)
    clauses = compare_clauses(clause_texts(library, base_dir) if base_dir else {}, cand_texts)

    cand_answers: dict[str, Asked] = {}
    base_answers: dict[str, Asked] | None = None
    if asked_questions:  # no questions, no database: the check fails for want of evidence
        cand_answers, base_answers = _ask_both(
            store, candidate, baseline, asked_questions, model, claimants, model_for, memories, replay
        )
    rows = compare_questions(asked_questions, base_answers, cand_answers, cand_dir)

    report = CheckReport(
        check_id=new_check_id(),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        created_by=created_by,
        family=family,
        candidate=_version_facts(candidate),
        baseline=_version_facts(baseline) if baseline else None,
        model=model_label(model),
        evidence=EvidenceCovered(
            parts=tuple(sorted({q.part for q in asked_questions})),
            asked=len(asked_questions),
            available=len(inventory),
            limit=questions,
            store=replay.summary() if replay is not None else None,
        ),
        bar=bar,
        questions=rows,
        clauses=clauses,
        applicability=compare_applicability(base_dir, cand_dir),
        clause_evidence=clause_evidence(
            rows, cand_dir, bar, replay.fixed if replay else (), model_tuned=tuned_on_dev(model_label(model))
        ),
        served_wrong_as_recorded=tuple(
            RecordedWrong(f.key, tuple(f.subjects)) for f in (replay.fixed if replay else ())
        ),
        wrong_answers=wrong_answers(rows),
        directory_tokens=DirectoryTokens(
            candidate=directory_tokens(cand_dir),
            baseline=directory_tokens(base_dir) if base_dir else None,
        ),
    )
    return replace(report, summary=summarise(report, bar))


def _version_facts(entry: VersionEntry) -> VersionFacts:
    return VersionFacts(
        version=entry.version,
        status=entry.status,
        content_hash=entry.content_hash,
        clause_count=entry.clause_count,
        effective=entry.interval() if entry.effective_from else None,
    )


def _inventory(
    family: str, inventory: list[Question] | None, replay: Replay | None
) -> tuple[list[Question], list[dict]]:
    """The questions a check may ask of `family`, and the claimants an imported wording brings."""
    claimants: list[dict] = []
    if inventory is None:
        inventory = [q for q in load_questions() if q.family == family]
        if not inventory:  # a wording brought in by import: its owner's own inventory and claimants
            inventory, claimants = load_imported(family)
    inventory = [q for q in inventory if q.family == family]
    if replay is not None and replay.questions:
        inventory = replay.questions
    return inventory, claimants


def _ask_both(
    store: ObjectStore,
    candidate: VersionEntry,
    baseline: VersionEntry | None,
    asked_questions: list[Question],
    model: Model,
    claimants: list[dict],
    model_for: ModelFor | None,
    memories: Memories | None,
    replay: Replay | None,
) -> tuple[dict[str, Asked], dict[str, Asked] | None]:
    """The questions asked of the candidate, then of the baseline, on one throwaway SQLite database
    seeded like the development system (and with the replay's claimants), removed afterwards."""
    base_answers: dict[str, Asked] | None = None
    with tempfile.TemporaryDirectory(prefix="clausedesk-release-check-") as folder:
        database_url = f"sqlite:///{Path(folder) / 'check.db'}"
        engine = make_engine(database_url)
        upgrade(engine)
        seeded = seed_policies(make_sessionmaker(engine))
        seeded += seed_policies(make_sessionmaker(engine), data=claimants) if claimants else []
        if replay is not None:
            copy_claimants(make_sessionmaker(engine), replay)
        engine.dispose()
        claims = {s.policy_number: s.claim_id for s in seeded} | (replay.claims if replay else {})
        ask: dict[str, Any] = {
            "claims": claims,
            "model_for": model_for,
            "memories": memories,
            "leave_out": replay.leave_out if replay else None,
        }
        cand_answers = ask_all(store, candidate, asked_questions, model, database_url, **ask)
        if baseline:
            base_answers = ask_all(store, baseline, asked_questions, model, database_url, **ask)
    return cand_answers, base_answers
