"""Policies, their terms and claims in from the insurer's systems: one code path for the
intake API, the bulk import and the development seed.

Every field is validated (the error names it); the same request twice changes nothing and
says so; every change is audited field by field with who made it. Terms are merged by their
start date: a term sent again replaces the stored one with that start, terms not sent are
kept (nothing stored is lost), and no two terms of a policy may overlap.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictFloat, StrictInt, field_validator
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from agent.db.tables import Claim, IntakeAudit, IntegrationClient, Policy, PolicyTerm, Schedule
from agent.policy.schedule import unnamed_sections
from agent.policy.terms import overlapping, term_on, terms_of
from agent.security import hash_token, new_token, token_matches
from knowledge.clauses import ClauseLibrary, Directory
from knowledge.errors import NoGoverningVersion

log = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _no_controls(value: str) -> str:
    found = _CONTROL.search(value)
    if found:
        raise ValueError(f"contains U+{ord(found.group()):04X}, a control character, which is not allowed")
    if value != value.strip():
        raise ValueError("has leading or trailing whitespace")
    return value


def _text(max_length: int, min_length: int = 1, description: str = "") -> Any:
    return Annotated[
        str,
        Field(min_length=min_length, max_length=max_length, description=description or None),
        AfterValidator(_no_controls),
    ]


Identifier = Annotated[
    str,
    Field(
        pattern=r"^[A-Z0-9][A-Z0-9-]{1,39}$",
        description="Upper-case letters, digits and hyphens, 2 to 40 characters (KM-MTR-204518)",
    ),
]
Key = Annotated[
    str, Field(pattern=r"^[a-z][a-z0-9_]{0,59}$", description="a schedule key as the wording names it")
]
# NZD, or the schedule's own words where the amount is set elsewhere ("as set by the Natural
# Hazards Commission plus NZD 500").
Amount = Annotated[StrictInt | StrictFloat, Field(ge=0, allow_inf_nan=False)] | _text(200)
ClaimStatus = Literal["open", "closed"]


class ScheduleIn(BaseModel):
    """A term's schedule: the optional sections and endorsements it lists, its excesses,
    sums insured and details, and the label a person reads for each key."""

    model_config = ConfigDict(extra="forbid")

    sections: list[Key] = Field(default_factory=list, max_length=50)
    endorsements: list[Key] = Field(default_factory=list, max_length=50)
    excess: dict[Key, Amount] = Field(default_factory=dict, max_length=50)
    sums_insured: dict[Key, Amount] = Field(default_factory=dict, max_length=50)
    details: dict[Key, _text(300) | StrictInt | StrictFloat] = Field(  # type: ignore[valid-type]
        default_factory=dict, max_length=50
    )
    labels: dict[Key, _text(120)] = Field(default_factory=dict, max_length=200)  # type: ignore[valid-type]


class TermIn(BaseModel):
    """One term: start included, end excluded (a renewal's start is the previous term's end)."""

    model_config = ConfigDict(extra="forbid")

    term_start: date
    term_end: date
    plan: _text(60, description="plan or cover level, as the wording names it")  # type: ignore[valid-type]
    schedule: ScheduleIn | None = Field(None, description="null: no schedule on file for this term yet")

    @field_validator("term_end")
    @classmethod
    def _after_start(cls, end: date, info: Any) -> date:
        start = info.data.get("term_start")
        if start is not None and end <= start:
            raise ValueError(
                f"must be after term_start {start} "
                "(terms are half-open: the end day is the next term's start)"
            )
        return end


class PolicyBody(BaseModel):
    """A policy as the intake API takes it (its number is in the path)."""

    model_config = ConfigDict(extra="forbid")

    family: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]{1,19}$", description="motor, home, contents")]
    policyholder: _text(200)  # type: ignore[valid-type]
    terms: list[TermIn] = Field(min_length=1, max_length=100)

    @field_validator("terms")
    @classmethod
    def _no_overlap(cls, terms: list[TermIn]) -> list[TermIn]:
        pair = overlapping([(t.term_start, t.term_end) for t in terms])
        if pair:
            a, b = (terms[i] for i in pair)
            raise ValueError(
                f"terms {pair[0]} ({a.term_start} to {a.term_end}) and {pair[1]} "
                f"({b.term_start} to {b.term_end}) overlap; a date must fall in one term only"
            )
        return terms


class PolicyIn(PolicyBody):
    policy_number: Identifier


class ClaimBody(BaseModel):
    """A claim as the intake API takes it (its ID is in the path)."""

    model_config = ConfigDict(extra="forbid")

    policy_number: Identifier
    incident_date: date | None = Field(None, description="null until known: no wording can be chosen")
    incident: _text(2000, min_length=0) = ""  # type: ignore[valid-type]
    status: ClaimStatus = "open"
    claimant_ref: _text(200) | None = Field(  # type: ignore[valid-type]
        None, description="the insurer's reference for the claimant: a signed token's `sub`"
    )


class ClaimIn(ClaimBody):
    claim_id: Identifier


class StatusIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: ClaimStatus


class IntakeRefused(ValueError):
    """A request that is valid on its own but not against what is stored; names the field."""

    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


class ClaimMissing(LookupError):
    pass


T = TypeVar("T")


def in_transaction(sessions: sessionmaker, work: Callable[[Session], T]) -> T:
    """Run an upsert in a transaction of its own. When a concurrent request created the same
    policy or claim first, the primary key refuses this insert (IntegrityError); run once more,
    the work finds that row and answers as a request sent after it would (a repeat, or a
    refusal naming the stored term), never a 500."""
    try:
        with sessions.begin() as session:
            return work(session)
    except IntegrityError:
        log.info("intake: a concurrent request stored the same record first; running again")
        with sessions.begin() as session:
            return work(session)


@dataclass(frozen=True)
class Outcome:
    subject: str
    created: bool
    changes: dict[str, list[Any]] = field(default_factory=dict)
    # A claim's access code, returned once when this call made it; never stored in clear.
    access_code: str | None = None

    @property
    def changed(self) -> bool:
        return bool(self.changes)


# Policies ---------------------------------------------------------------------------------------


def upsert_policy(session: Session, data: PolicyIn, actor: str) -> Outcome:
    """Call through `in_transaction`: two requests creating one policy at once meet at its
    primary key, and the one refused runs again against the stored policy."""
    number = data.policy_number
    policy = lock_policy(session, number)
    before = _policy_state(session, number) if policy is not None else {}
    stored = {t.term_start: t for t in terms_of(session, number)}
    incoming = {t.term_start for t in data.terms}
    kept = [t for start, t in stored.items() if start not in incoming]
    for i, term in enumerate(data.terms):
        for other in kept:
            if term.term_start < other.term_end and other.term_start < term.term_end:
                raise IntakeRefused(
                    f"terms.{i}",
                    f"{term.term_start} to {term.term_end} overlaps the stored term {other.term_start} "
                    f"to {other.term_end}; send that term with its corrected dates in the same request",
                )
    if policy is None:
        policy = Policy(policy_number=number)
        session.add(policy)
    policy.family, policy.policyholder = data.family, data.policyholder
    rows = list(kept)
    for term in data.terms:
        row = stored.get(term.term_start) or PolicyTerm(policy_number=number, term_start=term.term_start)
        row.term_end, row.plan = term.term_end, term.plan
        row.schedule = term.schedule.model_dump() if term.schedule is not None else None
        rows.append(row)
    _mirror_latest_term(session, policy, max(rows, key=lambda t: t.term_start))
    session.add_all(rows)
    session.flush()
    changes = _diff(before, _policy_state(session, number))
    return _audited(session, actor, "policy_created" if not before else "policy_updated", number, changes)


def lock_policy(session: Session, number: str) -> Policy | None:
    """The policy, locked for the rest of the caller's transaction before its terms are read:
    the serialisation point that keeps two terms of one policy from overlapping, across
    processes. The overlap is a property of several rows, so no unique key can hold it, and a
    check before the write alone lets two requests each see the other's term missing.

    PostgreSQL: a row lock on the policy (FOR NO KEY UPDATE: it waits for another writer of
    the policy, yet lets claims referencing it be inserted meanwhile); a concurrent request
    waits here and then, in READ COMMITTED, reads the terms the first one committed. An
    exclusion constraint on the date ranges would need the btree_gist extension, which the
    application's role may not be allowed to create.
    SQLite: a write to the policy row takes the database's write lock now, held to commit, so
    the reads that follow see every committed term and no other writer can add one. SQLite has
    no FOR UPDATE (SQLAlchemy leaves it out), and pysqlite would otherwise start the
    transaction only at the first write, after the terms were read.

    A policy not stored yet has no row to lock: two creators race to insert it, and the
    primary key refuses one (see `in_transaction`)."""
    if session.get_bind().dialect.name == "sqlite":
        session.execute(
            update(Policy).where(Policy.policy_number == number).values(family=Policy.family),
            execution_options={"synchronize_session": False},
        )
        return session.get(Policy, number, populate_existing=True)
    return session.get(Policy, number, with_for_update={"key_share": True}, populate_existing=True)


def _mirror_latest_term(session: Session, policy: Policy, latest: PolicyTerm) -> None:
    """`policies.term_start/term_end/plan` and `schedules` keep showing the latest term for
    readers that have not moved to terms (the benchmark, staff pages)."""
    policy.term_start, policy.term_end, policy.plan = latest.term_start, latest.term_end, latest.plan
    schedule = session.get(Schedule, policy.policy_number)
    raw = latest.schedule
    if raw is None:
        if schedule is not None:
            session.delete(schedule)
        return
    schedule = schedule or Schedule(policy_number=policy.policy_number)
    schedule.sections = list(dict.fromkeys([*raw.get("sections", []), *raw.get("endorsements", [])]))
    schedule.excess, schedule.sums_insured = dict(raw.get("excess", {})), dict(raw.get("sums_insured", {}))
    schedule.details, schedule.labels = dict(raw.get("details", {})), dict(raw.get("labels", {}))
    session.add(schedule)


def _policy_state(session: Session, number: str) -> dict[str, Any]:
    policy = session.get(Policy, number)
    state: dict[str, Any] = {"family": policy.family, "policyholder": policy.policyholder}
    for term in terms_of(session, number):
        state[f"terms.{term.term_start.isoformat()}"] = {
            "term_end": term.term_end.isoformat(),
            "plan": term.plan,
            "schedule": term.schedule,
        }
    return state


def check_plans(library: ClauseLibrary, data: PolicyBody) -> list[str]:
    """Each term's plan against the wording that governs the term's start: a plan that wording
    names none of is refused (when it names plans; case aside, as the runtime reads them).
    With no approved wording yet the term is accepted, and the warning says it was not checked."""
    warnings = []
    for i, term in enumerate(data.terms):
        try:
            entry = library.governing(data.family, term.term_start)
            directory = library.directory(entry)
        except NoGoverningVersion:
            warnings.append(
                f"terms.{i}.plan: no approved {data.family} wording governs {term.term_start} yet, so "
                f"{term.plan!r} was not checked against one"
            )
            continue
        named = {p.lower(): p for p in directory.plans_named}
        if named and term.plan.lower() not in named:
            raise IntakeRefused(
                f"terms.{i}.plan",
                f"{term.plan!r} is not a plan the {data.family} wording {entry.version} governing "
                f"{term.term_start} names; it names {', '.join(sorted(named.values()))}",
            )
        warnings += _unknown_sections(i, term, directory, f"{data.family} wording {entry.version}")
    return warnings


def _unknown_sections(i: int, term: TermIn, directory: Directory, wording: str) -> list[str]:
    """Sections and endorsements no clause of the governing wording names: accepted (a schedule
    may list what the wording does not price), but said, as the runtime applies them to nothing."""
    if term.schedule is None:
        return []
    found = []
    for field_name in ("sections", "endorsements"):
        unknown, known = unnamed_sections(directory, getattr(term.schedule, field_name))
        if unknown:
            one = len(unknown) == 1
            names = f"it names {', '.join(known)}" if known else "it names none"
            found.append(
                f"terms.{i}.schedule.{field_name}: {', '.join(unknown)} {'is' if one else 'are'} named by "
                f"no clause of the {wording}, so no clause is added, removed or changed by "
                f"{'it' if one else 'them'} ({names})"
            )
    return found


# Claims -----------------------------------------------------------------------------------------


def upsert_claim(session: Session, data: ClaimIn, actor: str, *, access_code: str | None = None) -> Outcome:
    """A new claim gets an access code (returned once) unless one is given (the seed's)."""
    if session.get(Policy, data.policy_number) is None:
        raise IntakeRefused("policy_number", f"no policy {data.policy_number}; upsert the policy first")
    claim = session.get(Claim, data.claim_id)
    before = _claim_state(claim) if claim is not None else {}
    issued = None
    if claim is None:
        issued = access_code or new_token()
        claim = Claim(claim_id=data.claim_id, token_hash=hash_token(issued))
        session.add(claim)
    elif access_code is not None and not token_matches(access_code, claim.token_hash):
        claim.token_hash = hash_token(access_code)
        before["access_code"] = "replaced"
    claim.policy_number, claim.incident_date, claim.incident = (
        data.policy_number,
        data.incident_date,
        data.incident,
    )
    claim.status, claim.claimant_ref = data.status, data.claimant_ref
    session.flush()
    after = _claim_state(claim)
    if "access_code" in before:
        after["access_code"] = "new"
    changes = _diff(before, after)
    action = "claim_created" if not before else "claim_updated"
    outcome = _audited(session, actor, action, data.claim_id, changes)
    return Outcome(outcome.subject, outcome.created, outcome.changes, issued)


def set_status(session: Session, claim_id: str, status: ClaimStatus, actor: str) -> Outcome:
    claim = session.get(Claim, claim_id)
    if claim is None:
        raise ClaimMissing(claim_id)
    changes = _diff({"status": claim.status}, {"status": status})
    claim.status = status
    session.flush()
    return _audited(session, actor, "claim_status", claim_id, changes, created=False)


def claim_term_dates(session: Session, claim: Claim) -> tuple[date, date] | None:
    term = term_on(session, claim.policy_number, claim.incident_date)
    return (term.term_start, term.term_end) if term else None


def claim_warnings(data: ClaimIn, dates: tuple[date, date] | None) -> list[str]:
    """What a stored claim still lacks for its questions to be answered from a wording."""
    if dates is not None:
        return []
    if data.incident_date:
        return ["no term of the policy holds the incident date"]
    return ["no incident date: questions are routed to staff until it is known"]


def _claim_state(claim: Claim) -> dict[str, Any]:
    return {
        "policy_number": claim.policy_number,
        "incident_date": claim.incident_date.isoformat() if claim.incident_date else None,
        "incident": claim.incident,
        "status": claim.status,
        "claimant_ref": claim.claimant_ref,
    }


# Audit ------------------------------------------------------------------------------------------


def _diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    return {
        key: [before.get(key), after.get(key)]
        for key in dict.fromkeys([*before, *after])
        if before.get(key) != after.get(key)
    }


def _audited(
    session: Session,
    actor: str,
    action: str,
    subject: str,
    changes: dict[str, list[Any]],
    *,
    created: bool | None = None,
) -> Outcome:
    created = action.endswith("_created") if created is None else created
    if changes:
        session.add(IntakeAudit(actor=actor, action=action, subject=subject, changes=changes))
        log.info("intake %s %s by %s: %s", action, subject, actor, sorted(changes))
    return Outcome(subject, created, changes)


# Who may call the intake API -------------------------------------------------------------------


def add_client(session: Session, name: str) -> str:
    """A new integration client; its token is returned once and stored only as a hash."""
    if session.get(IntegrationClient, name) is not None:
        raise IntakeRefused("name", f"an integration client {name!r} exists already")
    token = new_token()
    session.add(IntegrationClient(name=name, token_hash=hash_token(token)))
    session.flush()
    return token


def client_by_token(session: Session, token: str) -> IntegrationClient | None:
    return session.scalar(
        select(IntegrationClient).where(
            IntegrationClient.token_hash == hash_token(token), IntegrationClient.active.is_(True)
        )
    )
