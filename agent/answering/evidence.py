"""The evidence store: labelled questions per wording version, what earns a clause `answers`.

A row says what a right answer to one question cites (clauses, and the sentences that decide
it) or that it must be routed, the facts it must and must not hold, and the claimant context
that matters. Its sources: the policy owner's inventory (`python -m agent evidence load`),
staff answers (the handler's verdict on the draft), answers staff flagged wrong, and answers
a claimant said did not help (once a handler confirms it). Once something was served or drafted
for it, the row keeps which clauses that quoted and how it scored (right, wrong, irrelevant,
routed): a wrong answer counts against every clause it quoted.

Evidence is bound to clause content: each row keeps the SHA-256 of every clause it names. When
a later version keeps a clause's text, its evidence carries over verified; when the text
changed, the carried row awaits review.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from agent import metrics
from agent.answering.examples import Cover, Example
from agent.db.tables import Claim, Evidence, PolicyTerm, Turn, utcnow
from agent.policy.terms import schedule_of

log = logging.getLogger(__name__)

Source = Literal["inventory", "staff", "flag", "claimant"]
Outcome = Literal["right", "wrong", "irrelevant", "routed"]
VERIFIED, AWAITING_REVIEW = "verified", "awaiting_review"
SERVED: tuple[str, ...] = ("right", "wrong", "irrelevant")  # outcomes of an answer that was served


@dataclass(frozen=True)
class Labelled:
    """A question as the policy owner's inventory labels it, ready to be stored."""

    key: str
    question: str
    clauses: tuple[str, ...]  # empty: a right answer routes it to staff
    context: dict[str, Any] = field(default_factory=dict)
    deciding: tuple[dict[str, str], ...] = ()  # {clause_id, sentence}
    facts: tuple[tuple[str, ...], ...] = ()
    wrong_facts: tuple[str, ...] = ()


@dataclass
class Loaded:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def named_clauses(row: Evidence) -> list[str]:
    """Every clause a row is about: what a right answer cites and what was served for it."""
    return list(dict.fromkeys([*(row.clauses or []), *(row.served_clauses or [])]))


def load_inventory(
    session: Session,
    family: str,
    version: str,
    questions: Iterable[Labelled],
    hashes: Mapping[str, str],
    *,
    by: str,
) -> Loaded:
    """Store the inventory's questions as verified evidence of (family, version), keyed by
    question ID: loading the same file again changes nothing, a question whose label changed is
    updated (and its score, measured on the old label, cleared). Adds to the session."""
    done = Loaded()
    existing = {
        r.key: r
        for r in session.scalars(
            select(Evidence).where(
                Evidence.family == family, Evidence.version == version, Evidence.source == "inventory"
            )
        )
    }
    for q in questions:
        label = {
            "question": q.question,
            "context": dict(q.context),
            "clauses": list(q.clauses),
            "deciding": [dict(d) for d in q.deciding],
            "routed": not q.clauses,
            "facts": [list(g) for g in q.facts],
            "wrong_facts": list(q.wrong_facts),
            "clause_hashes": {c: hashes[c] for c in q.clauses if c in hashes},
        }
        row = existing.get(q.key)
        if row is None:
            session.add(
                Evidence(
                    family=family, version=version, key=q.key, source="inventory", created_by=by, **label
                )
            )
            done.added.append(q.key)
        elif all(getattr(row, k) == v for k, v in label.items()) and row.status == VERIFIED:
            done.unchanged.append(q.key)
        else:
            for k, v in label.items():
                setattr(row, k, v)
            row.status, row.outcome, row.scored_by, row.scored_at = VERIFIED, None, None, None
            row.served_clauses = []
            done.updated.append(q.key)
    session.flush()
    log.info(
        "evidence %s %s inventory: %d added, %d updated, %d unchanged",
        family,
        version,
        len(done.added),
        len(done.updated),
        len(done.unchanged),
    )
    return done


# Who is told once new evidence of a version is committed: (database URL, family, version).
# The API's checkpoints listen (agent.wording.checkpoints); each hears only its own database.
Listener = Callable[[str, str, str], None]
LISTENERS: list[Listener] = []


def _tell_listeners(session: Session, family: str, version: str) -> None:
    url = session.get_bind().engine.url.render_as_string(hide_password=False)
    for listener in list(LISTENERS):
        metrics.after_commit(session, lambda listener=listener: listener(url, family, version))


def record(
    session: Session,
    *,
    family: str,
    version: str,
    key: str,
    source: Source,
    by: str,
    question: str | None,
    clauses: list[str],
    served: list[str],
    outcome: Outcome | None,
    verdict: str | None,
    hashes: Mapping[str, str],
    deciding: list[dict[str, str]] | None = None,
    context: dict[str, Any] | None = None,
    item_id: int | None = None,
    turn_id: str | None = None,
) -> Evidence:
    """One piece of evidence from staff or a claimant, scored as it arrives. A key already
    recorded (the same item, turn or report) is updated, never doubled; its kept question stays.
    Concurrent writers hold agent.db.locks.hold_evidence first. Adds to the session."""
    row = session.scalar(
        select(Evidence).where(Evidence.family == family, Evidence.version == version, Evidence.key == key)
    )
    if row is None:
        row = Evidence(family=family, version=version, key=key, source=source, created_by=by)
        session.add(row)
    named = list(dict.fromkeys([*clauses, *served]))
    if row.question is None:  # words one handler kept are not replaced (or dropped) by a later writer
        row.question = question
    row.context = context or {}
    row.clauses = list(clauses)
    row.deciding = deciding or []
    row.routed = not clauses
    row.served_clauses = list(served)
    row.verdict = verdict
    row.outcome = outcome
    row.scored_by = by if outcome else None
    row.scored_at = utcnow() if outcome else None
    row.clause_hashes = {c: hashes[c] for c in named if c in hashes}
    row.status = VERIFIED
    row.item_id, row.turn_id = item_id, turn_id
    session.flush()
    _tell_listeners(session, family, version)
    log.info(
        "evidence %s %s %s from %s: verdict %s outcome %s served %s",
        row.id,
        family,
        version,
        source,
        verdict,
        outcome,
        served,
    )
    return row


def verified(session: Session, family: str, version: str) -> list[Evidence]:
    """The verified evidence of a version, oldest first."""
    return list(
        session.scalars(
            select(Evidence)
            .where(Evidence.family == family, Evidence.version == version, Evidence.status == VERIFIED)
            .order_by(Evidence.id)
        )
    )


def verified_examples(session: Session, family: str, version: str) -> list[Example]:
    """What the selector's memory reads: verified questions whose words were kept and whose
    right answer is known (a flag or a claimant's report says what was wrong, not what is right),
    each with the claimant's cover: the row's `context`, or where it records no plan (a staff
    answer) the plan and schedule of the claim the row's turn answered."""
    rows = [
        row
        for row in verified(session, family, version)
        if row.question and row.source in ("inventory", "staff") and (row.clauses or row.routed)
    ]
    asked_by = _claimants_of(session, family, version) if any(_needs_claimant(r) for r in rows) else {}
    return [
        Example(
            key=row.key if row.source == "inventory" else f"evidence-{row.id}",
            family=family,
            version=version,
            question=row.question or "",
            clause_ids=tuple(row.clauses),
            routed=row.routed,
            source=row.source,
            deciding=tuple(
                (d["clause_id"], d["sentence"])
                for d in row.deciding or []
                if isinstance(d, dict) and d.get("clause_id") and d.get("sentence")
            ),
            cover=Cover.of(asked_by.get(row.id) if _needs_claimant(row) else row.context),
        )
        for row in rows
    ]


def _needs_claimant(row: Evidence) -> bool:
    return bool(row.turn_id) and not (row.context or {}).get("plan")


def _claimants_of(session: Session, family: str, version: str) -> dict[int, dict[str, Any]]:
    """Evidence row ID -> the claimant context (plan, sections and endorsements as the runtime
    reads them) of the policy term in force on the incident date of the claim its turn answered,
    for the version's verified rows that name a turn: one query, whatever the number of rows."""
    in_force = and_(
        PolicyTerm.policy_number == Claim.policy_number,
        PolicyTerm.term_start <= Claim.incident_date,
        PolicyTerm.term_end > Claim.incident_date,
    )
    query = (
        select(Evidence.id, PolicyTerm)
        .join(Turn, Turn.id == Evidence.turn_id)
        .join(Claim, Claim.claim_id == Turn.claim_id)
        .join(PolicyTerm, in_force)
        .where(Evidence.family == family, Evidence.version == version, Evidence.status == VERIFIED)
    )
    found: dict[int, dict[str, Any]] = {}
    for row_id, term in session.execute(query):
        schedule = schedule_of(term)
        sections = schedule.sections if schedule else []
        found[row_id] = {"policy": term.policy_number, "plan": term.plan, "sections": sections}
    return found


def counts(session: Session, family: str) -> dict[str, dict[str, int]]:
    """version -> {status: rows} for a family: the wording page's totals."""
    found: dict[str, dict[str, int]] = {}
    rows = session.execute(
        select(Evidence.version, Evidence.status, func.count())
        .where(Evidence.family == family)
        .group_by(Evidence.version, Evidence.status)
    ).all()
    for version, status, n in rows:
        found.setdefault(version, {})[status] = n
    return found


# Carry-over -------------------------------------------------------------------------------------


@dataclass
class Carried:
    source: str | None
    carried: list[str] = field(default_factory=list)  # verified in the new version
    awaiting_review: list[str] = field(default_factory=list)  # a clause it names changed or went
    already: list[str] = field(default_factory=list)  # the new version has that key already


def source_version(session: Session, family: str, version: str, order: Any) -> str | None:
    """The latest earlier version of the family that holds evidence (`order`: a version sort key)."""
    versions = session.scalars(select(Evidence.version).where(Evidence.family == family).distinct()).all()
    earlier = [v for v in versions if order(v) < order(version)]
    return max(earlier, key=order, default=None)


def carry_over(
    session: Session,
    family: str,
    source: str,
    target: str,
    source_hashes: Mapping[str, str],
    target_hashes: Mapping[str, str],
    *,
    by: str,
) -> Carried:
    """Copy the verified evidence of `source` into `target`: verified where every clause it
    names keeps its text (the same SHA-256 in `target`), else awaiting review. Keys `target`
    already holds are left alone, so running it again adds nothing. Adds to the session."""
    done = Carried(source)
    have = set(
        session.scalars(select(Evidence.key).where(Evidence.family == family, Evidence.version == target))
    )
    for row in verified(session, family, source):
        if row.key in have:
            done.already.append(row.key)
            continue
        named = named_clauses(row)
        kept = all(
            target_hashes.get(c) is not None
            and target_hashes.get(c) == (row.clause_hashes or {}).get(c, source_hashes.get(c))
            for c in named
        )
        copy = Evidence(
            **{
                col: getattr(row, col)
                for col in (
                    "key",
                    "question",
                    "context",
                    "clauses",
                    "deciding",
                    "routed",
                    "facts",
                    "wrong_facts",
                    "source",
                    "served_clauses",
                    "verdict",
                    "outcome",
                    "scored_by",
                    "scored_at",
                    "item_id",
                    "turn_id",
                )
            },
            family=family,
            version=target,
            clause_hashes={c: target_hashes[c] for c in named if c in target_hashes},
            status=VERIFIED if kept else AWAITING_REVIEW,
            carried_from=source,
            created_by=by,
        )
        session.add(copy)
        (done.carried if kept else done.awaiting_review).append(row.key)
    session.flush()
    log.info(
        "evidence %s %s -> %s: %d carried, %d awaiting review, %d already there",
        family,
        source,
        target,
        len(done.carried),
        len(done.awaiting_review),
        len(done.already),
    )
    return done


# Measured precision -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Week:
    starting: datetime
    served: int
    right: int

    @property
    def share(self) -> float | None:
        return self.right / self.served if self.served else None


@dataclass(frozen=True)
class ClauseEvidence:
    """A clause's evidence on the wording page: questions about it, and per week the served
    answers that quoted it and how many were right."""

    clause_id: str
    questions: int
    served: int
    right: int
    weeks: tuple[Week, ...]

    @property
    def precision(self) -> float | None:
        return self.right / self.served if self.served else None


def by_clause(rows: Iterable[Evidence]) -> dict[str, ClauseEvidence]:
    """Per clause named by the rows: how many are about it and the precision of what quoted it,
    per week of scoring (newest first)."""
    questions: dict[str, int] = {}
    weeks: dict[str, dict[datetime, list[int]]] = {}
    for row in rows:
        for cid in named_clauses(row):
            questions[cid] = questions.get(cid, 0) + 1
        if row.outcome not in SERVED:
            continue
        at = row.scored_at or row.created_at
        monday = (at - timedelta(days=at.weekday())).replace(hour=0, minute=0, second=0, microsecond=0)
        for cid in row.served_clauses or []:
            tally = weeks.setdefault(cid, {}).setdefault(monday, [0, 0])
            tally[0] += 1
            tally[1] += row.outcome == "right"
    found = {}
    for cid, n in questions.items():
        per_week = tuple(
            Week(w, served, right) for w, (served, right) in sorted(weeks.get(cid, {}).items(), reverse=True)
        )
        found[cid] = ClauseEvidence(
            cid, n, sum(w.served for w in per_week), sum(w.right for w in per_week), per_week
        )
    return found
