"""The wording lifecycle as the database keeps it: an audit record of every manifest change,
the release checks an approval cites, and the follow-ups a withdrawal puts on the waiting
list (one per conversation that relied on the withdrawn version, with a notice to the
claimant). Used by the staff routes and, imported lazily, by `python -m knowledge`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from agent.answering.carry import carry_into
from agent.answering.check_report import CheckReport
from agent.boundary import replies as notices
from agent.boundary.citation import Citation
from agent.db.tables import (
    Message,
    ReleaseCheck,
    Turn,
    WaitingItem,
    WithdrawalFollowUp,
    WordingAudit,
    utcnow,
)
from agent.events import outbox
from agent.staff.waiting_list import create_item
from agent.wording.affected import Counts, counts, staff_answers_from
from knowledge.manifest import Manifest, Registry, VersionEntry
from knowledge.manifest import approve as approve_entry
from knowledge.source import version_key

log = logging.getLogger(__name__)

HANDLER, POLICY_OWNER = "handler", "policy_owner"
ROLES = (HANDLER, POLICY_OWNER)


class ApprovalRefused(Exception):
    """An approval that is missing what it needs (a release check of this content)."""


# Audit ----------------------------------------------------------------------------------------


# Which earlier rows an action is compared with: a re-ingest with the ingest before it, an
# approval with the last approval or withdrawal of the version.
_COMPARABLE = {"ingest": ("ingest",), "approve": ("approve", "withdraw")}


def already_recorded(
    session: Session,
    *,
    actor: str,
    action: str,
    family: str,
    version: str,
    detail: dict[str, Any],
    same: tuple[str, ...],
) -> bool:
    """Whether the trail's latest comparable row of this version says the same (same actor,
    same `same` keys of the detail): restoring a manifest that a fresh in-memory store lost,
    as every start of the development system does, is not a change of wording."""
    latest = session.scalar(
        select(WordingAudit)
        .where(
            WordingAudit.family == family,
            WordingAudit.version == version,
            WordingAudit.action.in_(_COMPARABLE.get(action, (action,))),
        )
        .order_by(WordingAudit.at.desc(), WordingAudit.id.desc())
        .limit(1)
    )
    return (
        latest is not None
        and latest.action == action
        and latest.actor == actor
        and all(k in detail and latest.detail.get(k) == detail[k] for k in same)
    )


def record_change(
    session: Session,
    *,
    actor: str,
    action: str,
    family: str,
    version: str,
    reason: str | None = None,
    detail: dict[str, Any] | None = None,
    unless_recorded: tuple[str, ...] = (),
) -> WordingAudit | None:
    """One manifest change: who, when, what and why. With `unless_recorded` (detail keys),
    nothing is written when the trail already records the same (see already_recorded)."""
    if unless_recorded and already_recorded(
        session,
        actor=actor,
        action=action,
        family=family,
        version=version,
        detail=detail or {},
        same=unless_recorded,
    ):
        log.info("wording audit %s %s %s by %s: already recorded", action, family, version, actor)
        return None
    row = WordingAudit(
        actor=actor, action=action, family=family, version=version, reason=reason, detail=detail or {}
    )
    session.add(row)
    session.flush()
    log.info("wording audit %s %s %s %s by %s", row.id, action, family, version, actor)
    return row


# Release checks --------------------------------------------------------------------------------


def store_check(session: Session, report: CheckReport) -> ReleaseCheck:
    """Keep a release check's report under its ID, with the action in the audit trail."""
    row = ReleaseCheck(
        id=report.check_id,
        family=report.family,
        version=report.candidate.version,
        content_hash=report.candidate.content_hash,
        baseline_version=report.baseline.version if report.baseline else None,
        model_name=report.model,
        created_by=report.created_by or "unknown",
        summary=report.summary.as_dict(),
        report=report.as_dict(),
    )
    session.add(row)
    record_change(
        session,
        actor=row.created_by,
        action="check",
        family=row.family,
        version=row.version,
        detail={"check_id": row.id, "baseline": row.baseline_version},
    )
    return row


def latest_check(
    session: Session, entry: VersionEntry, *, created_by: str | None = None
) -> ReleaseCheck | None:
    """The newest release check of exactly this content (a re-ingested draft needs a new one),
    with `created_by` only one that actor ran."""
    query = select(ReleaseCheck).where(
        ReleaseCheck.family == entry.family,
        ReleaseCheck.version == entry.version,
        ReleaseCheck.content_hash == entry.content_hash,
    )
    if created_by is not None:
        query = query.where(ReleaseCheck.created_by == created_by)
    return session.scalar(query.order_by(ReleaseCheck.created_at.desc()).limit(1))


def check_for_approval(session: Session, entry: VersionEntry, check_id: str | None) -> ReleaseCheck:
    """The check an approval cites: the one named, or the latest; it must be of this content."""
    check = session.get(ReleaseCheck, check_id) if check_id else latest_check(session, entry)
    if check is None:
        named = f"release check {check_id} does not exist" if check_id else "no release check on record"
        raise ApprovalRefused(
            f"{named} for {entry.family} {entry.version}; run "
            f"`python -m knowledge check-release {entry.family} {entry.version}` first"
        )
    if (check.family, check.version, check.content_hash) != (entry.family, entry.version, entry.content_hash):
        raise ApprovalRefused(
            f"release check {check.id} is of {check.family} {check.version} with other content; "
            f"run a release check of {entry.family} {entry.version} as ingested now"
        )
    return check


def approve(
    registry: Registry,
    sessions: sessionmaker,
    family: str,
    version: str,
    *,
    effective_from: date,
    effective_to: date | None,
    approved_by: str,
    check_id: str | None,
    via: str,
    unless_recorded: tuple[str, ...] = (),
) -> tuple[bool, ReleaseCheck]:
    """Approve with a release check of this content; the check's ID goes into the manifest
    entry and the audit record (not written again where the trail already says the same,
    given `unless_recorded`: see already_recorded), and the evidence of the version before
    carries over (verified where a clause kept its text, awaiting review where it changed)."""
    manifest, _ = registry.read()
    entry = manifest.entry(family, version)
    with sessions() as session:
        check = check_for_approval(session, entry, check_id)
    changed = registry.approve(family, version, effective_from, effective_to, approved_by, check.id)
    if changed:
        with sessions.begin() as session:
            carry_into(session, registry.store, family, version, by=approved_by)
            record_change(
                session,
                actor=approved_by,
                action="approve",
                family=family,
                version=version,
                detail={
                    "effective_from": str(effective_from),
                    "effective_to": str(effective_to) if effective_to else None,
                    "check_id": check.id,
                    "via": via,
                },
                unless_recorded=unless_recorded,
            )
    return changed, check


def would_approve(
    manifest: Manifest, family: str, version: str, effective_from: date, effective_to: date | None, by: str
) -> bool:
    """Whether approving would change anything; raises the manifest's own refusal
    (overlap, withdrawn, bad interval) without writing."""
    copy = manifest.model_copy(deep=True)
    return approve_entry(copy, family, version, effective_from, effective_to, by, utcnow())


# Withdrawal ------------------------------------------------------------------------------------


@dataclass
class Withdrawal:
    family: str
    version: str
    changed: bool
    created: list[str] = field(default_factory=list)  # references of new follow-up items
    existing: list[str] = field(default_factory=list)  # already followed up earlier


def _quotes(cited: list[Citation]) -> list[dict[str, str]]:
    """What a follow-up keeps of a reply's citations: each clause ID and the words quoted (the
    version is the follow-up's own)."""
    return [{"clause_id": c.clause_id, "quote": c.quote} for c in cited]


def replies_relying_on(session: Session, family: str, version: str) -> dict[str, list[dict[str, Any]]]:
    """claim ID -> the replies that cited this version: agent turns (from the turn records)
    and staff answers (from their verified citations), each with the quotes shown."""
    found: dict[str, list[dict[str, Any]]] = {}
    turns = session.execute(
        select(Turn, Message.body)
        .outerjoin(Message, (Message.turn_id == Turn.id) & (Message.role == "agent"))
        .where(Turn.family == family, Turn.version == version)
        .order_by(Turn.started_at)
    ).all()
    for turn, body in turns:
        if not turn.cited:
            continue
        found.setdefault(turn.claim_id, []).append(
            {
                "kind": "agent",
                "turn_id": turn.id,
                "at": turn.started_at.isoformat(timespec="seconds"),
                "outcome": turn.outcome,
                "reply": body or "",
                "citations": _quotes(Citation.all_of(turn.citations)),
            }
        )
    for item, body in staff_answers_from(session, family, version):
        cited = [c for c in Citation.all_of(item.answer_citations) if c.version == version]
        found.setdefault(item.claim_id, []).append(
            {
                "kind": "staff",
                "item": item.reference,
                "at": item.answered_at.isoformat(timespec="seconds") if item.answered_at else None,
                "reply": body,
                "citations": _quotes(cited),
            }
        )
    return found


@dataclass(frozen=True)
class WithdrawalPlan:
    """What withdrawing a version will do, shown before it is done."""

    family: str
    version: str
    affected: dict[str, list[dict[str, Any]]]  # claim ID -> the replies that relied on it
    followed_up: dict[str, str]  # claim ID -> reference of the item a withdrawal made earlier

    @property
    def replies(self) -> int:
        return sum(len(r) for r in self.affected.values())

    @property
    def to_follow_up(self) -> list[str]:
        """Conversations that get a new waiting item and a notice."""
        return [c for c in self.affected if c not in self.followed_up]


def withdrawal_plan(session: Session, family: str, version: str) -> WithdrawalPlan:
    affected = replies_relying_on(session, family, version)
    done = dict(
        session.execute(
            select(WithdrawalFollowUp.claim_id, WaitingItem.reference)
            .join(WaitingItem, WaitingItem.id == WithdrawalFollowUp.item_id)
            .where(WithdrawalFollowUp.family == family, WithdrawalFollowUp.version == version)
        ).all()
    )
    return WithdrawalPlan(family, version, affected, {c: r for c, r in done.items() if c in affected})


def follow_up(
    sessions: sessionmaker, family: str, version: str, *, withdrawn_by: str, reason: str
) -> Withdrawal:
    """One waiting-list item per conversation that relied on the version, and a notice in
    that conversation. Idempotent: a conversation already followed up gets nothing new."""
    outcome = Withdrawal(family, version, changed=False)
    with sessions() as session:
        plan = withdrawal_plan(session, family, version)
    for claim_id, replies in plan.affected.items():
        if claim_id in plan.followed_up:
            outcome.existing.append(plan.followed_up[claim_id])
            continue
        try:
            with sessions.begin() as session:
                n = len(replies)
                item = create_item(
                    session,
                    claim_id=claim_id,
                    turn_id=next((r["turn_id"] for r in reversed(replies) if r["kind"] == "agent"), None),
                    family=family,
                    question=(
                        f"{n} {'reply' if n == 1 else 'replies'} in this conversation relied on {family} "
                        f"wording {version}, withdrawn by {withdrawn_by}: {reason}. Check them with the "
                        "claimant and answer from the wording that governs now."
                    ),
                    reason="wording_withdrawn",
                )
                session.add(
                    WithdrawalFollowUp(
                        family=family, version=version, claim_id=claim_id, item_id=item.id, replies=replies
                    )
                )
                body = notices.withdrawn(family, version, item.reference)
                session.add(
                    Message(
                        claim_id=claim_id, role="notice", body=body, waiting_list_reference=item.reference
                    )
                )
                outbox.add(
                    session,
                    "withdrawal_notice",
                    {
                        "claim_id": claim_id,
                        "reference": item.reference,
                        "family": family,
                        "version": version,
                        "body": body,
                    },
                )
                reference = item.reference
        except IntegrityError:  # a concurrent withdrawal followed this conversation up first
            with sessions() as session:
                outcome.existing.append(
                    session.scalar(
                        select(WaitingItem.reference)
                        .join(WithdrawalFollowUp, WithdrawalFollowUp.item_id == WaitingItem.id)
                        .where(
                            WithdrawalFollowUp.family == family,
                            WithdrawalFollowUp.version == version,
                            WithdrawalFollowUp.claim_id == claim_id,
                        )
                    )
                    or claim_id
                )
            continue
        log.info("withdrawal %s %s: follow-up %s for claim %s", family, version, reference, claim_id)
        outcome.created.append(reference)
    return outcome


def withdraw(
    registry: Registry,
    sessions: sessionmaker,
    family: str,
    version: str,
    *,
    withdrawn_by: str,
    reason: str,
    via: str,
) -> Withdrawal:
    """Withdraw in the manifest (first: from now on nothing is answered from it), keep the
    audit record, then follow up every conversation that relied on it. Running it again
    on a withdrawn version only adds follow-ups that are still missing."""
    changed = registry.withdraw(family, version, withdrawn_by, reason)
    if changed:
        with sessions.begin() as session:
            record_change(
                session,
                actor=withdrawn_by,
                action="withdraw",
                family=family,
                version=version,
                reason=reason,
                detail={"via": via},
            )
    else:
        manifest, _ = registry.read()
        entry = manifest.entry(family, version)
        withdrawn_by, reason = entry.withdrawn_by or withdrawn_by, entry.withdraw_reason or reason
    outcome = follow_up(sessions, family, version, withdrawn_by=withdrawn_by, reason=reason)
    outcome.changed = changed
    return outcome


def discard(registry: Registry, sessions: sessionmaker | None, family: str, version: str, *, by: str) -> bool:
    """Discard a draft from the manifest, with its audit record when there is a database.
    Returns whether the record was kept."""
    entry = registry.discard(family, version)
    if sessions is None:
        return False
    with sessions.begin() as session:
        record_change(
            session,
            actor=by,
            action="discard",
            family=family,
            version=version,
            detail={"content_hash": entry.content_hash, "via": "command line"},
        )
    return True


# The wording page ------------------------------------------------------------------------------


@dataclass(frozen=True)
class VersionView:
    entry: VersionEntry
    agent_replies: int
    staff_answers: int
    drafts: int
    checks: list[ReleaseCheck]


@dataclass(frozen=True)
class FamilyView:
    family: str
    versions: list[VersionView]
    audit: list[WordingAudit]


def overview(session: Session, manifest: Manifest) -> list[FamilyView]:
    """Per family: each version with its status, interval, approval or withdrawal, how many
    agent replies, staff answers and drafts stood on it, its release checks; and the family's
    audit trail, newest first."""
    families = []
    stood_on = counts(session)
    for family in sorted(manifest.families):
        checks = session.scalars(
            select(ReleaseCheck).where(ReleaseCheck.family == family).order_by(ReleaseCheck.created_at.desc())
        ).all()
        entries = sorted(
            manifest.families[family].values(), key=lambda e: version_key(e.version), reverse=True
        )
        stood = stood_on.get(family, {})
        versions = []
        for e in entries:
            n = stood.get(e.version, Counts())
            versions.append(
                VersionView(e, n.agent, n.staff, n.drafts, [c for c in checks if c.version == e.version])
            )
        audit = session.scalars(
            select(WordingAudit)
            .where(WordingAudit.family == family)
            .order_by(WordingAudit.at.desc(), WordingAudit.id.desc())
            .limit(100)
        ).all()
        families.append(FamilyView(family, versions, list(audit)))
    return families
