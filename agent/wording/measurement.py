"""One measure of the bar, from all evidence: what a release check replays.

Every verified evidence question of a version whose words were kept (the policy owner's
inventory and staff answers alike) is asked again through the turn code, with the model the
runtime serves, on the claimant it came from (a staff answer's live policy is copied into the
check's throwaway database). While one is scored, every memory example with the same
normalised words is left out, so no question finds itself. Inventory questions are judged on
their facts; staff answers on what the handler cited and the sentences they kept, as a
handler's answer judges a draft (agent.answering.verdicts.judge). Served answers that a
handler flagged wrong, or a claimant reported and a handler confirmed, are not replayed: they
count as they happened, wrong, for the subjects they were served by.

The release check's per-subject table, approval, promotion, the wording page and the automatic
fall back all read the figures of one such check (agent.answering.bar), so they cannot disagree.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from agent.answering import evidence
from agent.answering.bar import Scored
from agent.answering.check_report import StoreSummary
from agent.answering.measured import SERVED_WRONG_SOURCES, TUNED_PART, served_wrong
from agent.db.tables import Claim, Evidence, Policy, PolicyTerm, Schedule
from agent.wording.questions import Question, load_imported, load_questions, normalise

log = logging.getLogger(__name__)
# Evidence that is replayed: what a right answer is, is known. Flags and confirmed reports say
# only what was wrong; they count as served wrong answers instead.
REPLAYED_SOURCES = ("inventory", "staff")


@dataclass
class Replay:
    """What a check asks and counts for one version's evidence."""

    questions: list[Question] = field(default_factory=list)
    # Live policies the questions' claimants hold, as rows per table, copied into the check's database.
    claimants: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    claims: dict[str, str] = field(default_factory=dict)  # policy number -> the claim to clone
    fixed: list[Scored] = field(default_factory=list)  # served answers known wrong
    skipped: dict[str, str] = field(default_factory=dict)  # evidence key -> why it is not replayed
    leave_out: dict[str, tuple[str, ...]] = field(default_factory=dict)  # question ID -> memory keys
    rows: int = 0  # the verified rows it covers
    last_evidence_id: int = 0

    def summary(self) -> StoreSummary:
        return StoreSummary(
            verified_rows=self.rows,
            last_evidence_id=self.last_evidence_id,
            replayed=len(self.questions),
            served_wrong_as_recorded=len(self.fixed),
            not_replayed=dict(self.skipped),
        )


def _example_key(row: Evidence) -> str:
    """The key the memory knows a row by (agent.answering.evidence.verified_examples)."""
    return row.key if row.source == "inventory" else f"evidence-{row.id}"


def replay_of(session: Session, family: str, version: str, shipped: Iterable[Question] = ()) -> Replay:
    """The replay of a version's verified evidence. `shipped`: the inventory shipped with the
    corpus, whose earlier messages (follow-ups) and keys the store's rows are matched with."""
    rows = evidence.verified(session, family, version)
    done = Replay(rows=len(rows), last_evidence_id=max((r.id for r in rows), default=0))
    inventory = {q.id: q for q in shipped}
    # A staff answer to a question of the tuned part, word for word, is that part's question.
    tuned = {normalise(q.text) for q in shipped if q.part == TUNED_PART}
    by_words: dict[str, set[str]] = {}
    for r in rows:
        if r.question:
            by_words.setdefault(normalise(r.question), set()).add(_example_key(r))
    for q in inventory.values():
        by_words.setdefault(normalise(q.text), set()).add(q.id)
    policies: set[str] = set()
    done.fixed = served_wrong(session, [r for r in rows if r.source in SERVED_WRONG_SOURCES])
    for r in rows:
        if r.source not in REPLAYED_SOURCES:
            continue
        if not r.question:
            done.skipped[r.key] = "the claimant's words were not kept"
            continue
        context = r.context or {}
        policy = context.get("policy") or (inventory[r.key].policy if r.key in inventory else None)
        if not policy:
            done.skipped[r.key] = "no claimant recorded with it"
            continue
        shipped_q = inventory.get(r.key)
        done.questions.append(
            Question(
                id=r.key,
                family=family,
                policy=policy,
                text=r.question,
                clauses=tuple(r.clauses or ()),
                coverage="",
                part=shipped_q.part
                if shipped_q
                else (TUNED_PART if normalise(r.question) in tuned else r.source),
                facts=tuple(tuple(g) for g in (r.facts or ())),
                wrong=tuple(r.wrong_facts or ()),
                earlier=shipped_q.earlier if shipped_q else (),
                deciding=tuple(
                    (d["clause_id"], d["sentence"]) for d in (r.deciding or ()) if d.get("sentence")
                ),
            )
        )
        done.leave_out[r.key] = tuple(sorted(by_words.get(normalise(r.question), set()) | {r.key}))
        if context.get("claim"):
            done.claims.setdefault(policy, context["claim"])
            policies.add(policy)
    done.claimants = _claimant_rows(session, policies, set(done.claims.values()))
    missing = {
        p
        for p in policies
        if not any(row["policy_number"] == p for row in done.claimants.get("policies", []))
    }
    if missing:  # a policy gone from the live database: its questions cannot be asked as they were
        for q in [q for q in done.questions if q.policy in missing]:
            done.skipped[q.id] = f"policy {q.policy} is no longer on record"
        done.questions = [q for q in done.questions if q.policy not in missing]
    log.info(
        "replay of %s %s: %d verified rows, %d replayed, %d served wrong as recorded, %d not replayed",
        family, version, done.rows, len(done.questions), len(done.fixed), len(done.skipped),
    )  # fmt: skip
    return done


def _columns(row: Any) -> dict[str, Any]:
    return {c.key: getattr(row, c.key) for c in row.__table__.columns}


def _claimant_rows(session: Session, policies: set[str], claims: set[str]) -> dict[str, list[dict[str, Any]]]:
    if not policies:
        return {}
    return {
        "policies": [
            _columns(r) for r in session.scalars(select(Policy).where(Policy.policy_number.in_(policies)))
        ],
        "schedules": [
            _columns(r) for r in session.scalars(select(Schedule).where(Schedule.policy_number.in_(policies)))
        ],
        "policy_terms": [
            {k: v for k, v in _columns(r).items() if k != "id"}
            for r in session.scalars(select(PolicyTerm).where(PolicyTerm.policy_number.in_(policies)))
        ],
        "claims": [
            {**_columns(r), "turn_lease_owner": None, "turn_lease_until": None}
            for r in session.scalars(select(Claim).where(Claim.claim_id.in_(claims)))
        ],
    }


def copy_claimants(sessions: sessionmaker, replay: Replay) -> None:
    """The live claimants into a check's database; a policy it already holds (a seeded one) stays."""
    tables = {"policies": Policy, "schedules": Schedule, "policy_terms": PolicyTerm, "claims": Claim}
    with sessions.begin() as session:
        have = set(session.scalars(select(Policy.policy_number)))
        fresh = {
            r["policy_number"] for r in replay.claimants.get("policies", []) if r["policy_number"] not in have
        }
        for name in ("policies", "schedules", "policy_terms"):
            for row in replay.claimants.get(name, []):
                if row["policy_number"] in fresh:
                    session.add(tables[name](**row))
        session.flush()
        for row in replay.claimants.get("claims", []):
            if session.get(Claim, row["claim_id"]) is None:
                session.add(Claim(**row))


def shipped_inventory(family: str) -> list[Question]:
    """The inventory shipped with the corpus for a family (an imported wording's own)."""
    found = [q for q in load_questions() if q.family == family]
    return found or load_imported(family)[0]


def measure_replay(sessions: sessionmaker, family: str, version: str) -> Replay:
    """The replay of a version from the live database."""
    try:
        shipped = shipped_inventory(family)
    except (OSError, ValueError) as exc:
        log.warning("replay of %s %s: no shipped inventory (%s)", family, version, type(exc).__name__)
        shipped = []
    with sessions() as session:
        return replay_of(session, family, version, shipped)
