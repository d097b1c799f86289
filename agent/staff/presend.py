"""The pre-send check: a draft or an answer is bound to what the handler saw (the conversation's
last message, the governing release, the claim's status); before it is sent, each of those
that changed is a reason, in plain words, that it is stale.

The check reads the manifest from the store. When it cannot (store down), the send is
allowed with a warning that is recorded on the item and counted on the gaps page: a handler's
answer is never held back by the check's own failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from agent.db.tables import Claim, Message, Policy, WaitingItem, utcnow
from agent.policy.terms import TermInForce, claim_term
from knowledge.clauses import ClauseLibrary
from knowledge.errors import KnowledgeError, NoGoverningVersion
from knowledge.manifest import Manifest, VersionEntry, governing_version

CHECKED, UNAVAILABLE = "passed", "unavailable"


@dataclass(frozen=True)
class Basis:
    """What a draft or an answer was made from."""

    last_message_id: int | None
    family: str | None
    version: str | None  # None: no wording governed (or the store could not say)
    content_hash: str | None
    claim_status: str


@dataclass(frozen=True)
class Governing:
    """The release governing a claim now, or why none can be named."""

    entry: VersionEntry | None
    manifest: Manifest | None
    unavailable: str | None = None  # the check cannot run: the store could not be read


@dataclass(frozen=True)
class SendCheck:
    stale: list[str]  # each reason, in plain words; empty: fresh
    unavailable: str | None  # why the check could not run (the send is allowed, with this warning)
    now: Basis

    @property
    def status(self) -> str:
        return UNAVAILABLE if self.unavailable else CHECKED


def governing_now(library: ClauseLibrary, family: str, term: TermInForce | None) -> Governing:
    """The release governing the claim's term (the one holding its incident date) now."""
    try:
        manifest, _ = library.registry.read()
    except KnowledgeError as exc:
        return Governing(None, None, f"the policy wording store cannot be read ({type(exc).__name__})")
    if term is None:  # no term holds the incident date: no wording governs the claim yet
        return Governing(None, manifest)
    try:
        return Governing(governing_version(manifest, family, term.term_start), manifest)
    except NoGoverningVersion:
        return Governing(None, manifest)


def last_message_id(session: Session, claim_id: str) -> int | None:
    return session.scalar(select(func.max(Message.id)).where(Message.claim_id == claim_id))


def basis_now(session: Session, library: ClauseLibrary, item: WaitingItem) -> tuple[Basis, Governing]:
    """What a handler opening the item now sees."""
    claim = session.get(Claim, item.claim_id)
    policy = session.get(Policy, claim.policy_number)
    governing = governing_now(library, policy.family, claim_term(session, claim))
    entry = governing.entry
    basis = Basis(
        last_message_id(session, claim.claim_id),
        policy.family,
        entry.version if entry else None,
        entry.content_hash if entry else None,
        claim.status,
    )
    return basis, governing


def check(session: Session, library: ClauseLibrary, item: WaitingItem, basis: Basis) -> SendCheck:
    """Compare what the handler saw with what holds now."""
    now, governing = basis_now(session, library, item)
    reasons = _unknown_message(session, item.claim_id, basis.last_message_id) or _claimant_wrote(
        session, item.claim_id, basis.last_message_id
    )
    if governing.unavailable is None:
        reasons += _wording_changed(basis, now, governing.manifest)
    if now.claim_status != basis.claim_status:
        reasons.append(f"The claim's status changed from {basis.claim_status} to {now.claim_status}")
    warning = None
    if governing.unavailable:
        warning = (
            f"The pre-send check could not confirm the governing wording: {governing.unavailable}. "
            "The answer was sent without that check."
        )
    return SendCheck(reasons, warning, now)


# messages.id is a 32-bit integer on PostgreSQL: a larger id names no message (and is not bound).
MAX_MESSAGE_ID = 2**31 - 1


def _unknown_message(session: Session, claim_id: str, since: int | None) -> list[str]:
    """The basis comes back from the client (an API body, the page's hidden fields), so what it
    says the handler saw is checked against the claim's own messages: an id that is not one of
    them (a forged 2**62 or another claim's newer message, which would hide what the claimant
    wrote since) is stale, never taken on trust."""
    if since is None:  # written before the claim had any message: every claimant message is new
        return []
    if 0 < since <= MAX_MESSAGE_ID and session.scalar(
        select(Message.id).where(Message.id == since, Message.claim_id == claim_id)
    ):
        return []
    return [
        f"The answer names message {since}, which is not in this claim's conversation: open the item again"
    ]


# How much of each new claimant message the notice quotes: enough to act on, short enough to scan.
QUOTED_CHARS = 300


def _claimant_wrote(session: Session, claim_id: str, since: int | None) -> list[str]:
    """What the claimant wrote since, quoted (the page escapes it), newest last, so the handler
    sees what changed without opening the conversation."""
    written = session.execute(
        select(Message.created_at, Message.body)
        .where(Message.claim_id == claim_id, Message.role == "claimant", Message.id > (since or 0))
        .order_by(Message.id)
    ).all()
    if not written:
        return []
    quotes = " · ".join(f"“{_shortened(body)}”" for _, body in written[-3:])
    earlier = f" ({len(written) - 3} earlier not shown)" if len(written) > 3 else ""
    count = "" if len(written) == 1 else f" {len(written)} messages"
    return [f"The claimant wrote again{count} at {when(written[-1].created_at)}{earlier}: {quotes}"]


def _shortened(body: str) -> str:
    text = " ".join(body.split())
    return text if len(text) <= QUOTED_CHARS else text[: QUOTED_CHARS - 1].rstrip() + "…"


def _wording_changed(basis: Basis, now: Basis, manifest: Manifest | None) -> list[str]:
    if (basis.version, basis.content_hash) == (now.version, now.content_hash):
        return []
    family = now.family or basis.family
    entries = manifest.families.get(family or "", {}) if manifest else {}
    reasons = []
    seen = entries.get(basis.version or "")
    if seen is not None and seen.status == "withdrawn" and seen.withdrawn_at:
        reasons.append(f"Wording {family} {seen.version} was withdrawn at {when(seen.withdrawn_at)}")
    current = entries.get(now.version or "")
    if current is None:
        reasons.append(f"No approved {family} wording governs this claim now")
    elif current.version != basis.version:
        at = f" at {when(current.approved_at)}" if current.approved_at else ""
        reasons.append(f"Wording {family} {current.version} was approved{at}")
    else:
        reasons.append(f"Wording {family} {current.version} was ingested again with other content")
    return reasons


def when(at: datetime) -> str:
    """09:13 UTC today, or with its date on another day."""
    return f"{at:%H:%M} UTC" if at.date() == utcnow().date() else f"{at:%H:%M} UTC on {at:%Y-%m-%d}"
