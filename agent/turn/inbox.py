"""Claimant messages before they are answered: stored first, deduplicated, answered in order.

- A message is committed before anything else happens, with its Idempotency-Key (if sent)
  and the SHA-256 of its text. The same key and text return the stored reply; the same key
  with another text is refused. Without a key, the same text while the first copy is still
  waiting for its turn is taken as a retry of it; the database holds that rule (a unique
  index on the claim and `waiting_sha256`), so two identical requests at once store one.
- One turn at a time per claim, oldest message first, across processes: a lease on the claim
  row (a conditional UPDATE, atomic on SQLite and PostgreSQL), renewed while held, expiring
  if its holder dies.
- A message with no turn whose claim nobody holds was interrupted (a killed process); it is
  found at start-up and on a schedule and put on the waiting list (see TurnRunner.recover).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import uuid
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Update, and_, or_, select, update
from sqlalchemy import exc as sql_errors
from sqlalchemy.orm import Session, sessionmaker

from agent.db.tables import Claim, Message, Turn, utcnow

IDEMPOTENCY_KEY_TTL = timedelta(hours=24)


class ClaimNotFound(LookupError):
    pass


class IdempotencyConflict(ValueError):
    """The Idempotency-Key was already used on this claim for a different message."""


@dataclass(frozen=True)
class StoredMessage:
    id: int
    claim_id: str
    text: str
    # When the message was stored: the moment the claimant's turn starts (Turn.started_at).
    received_at: datetime

    @classmethod
    def of(cls, message: Message) -> StoredMessage:
        return cls(message.id, message.claim_id, message.body, message.created_at)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def store_message(
    session: Session,
    claim_id: str,
    text: str,
    *,
    idempotency_key: str | None,
    duplicate_window: timedelta,
) -> StoredMessage:
    """Add the claimant's message to the caller's transaction, or find the one this request
    repeats. A concurrent request storing the same key (or the same waiting text) first makes
    the flush raise
    IntegrityError: the caller runs its transaction again and then finds that copy."""
    digest = sha256(text)
    now = utcnow()
    if session.get(Claim, claim_id) is None:
        raise ClaimNotFound(claim_id)
    earlier = _earlier_copy(session, claim_id, digest, idempotency_key, now, duplicate_window)
    if earlier is not None:
        return StoredMessage.of(earlier)
    message = Message(
        claim_id=claim_id,
        role="claimant",
        body=text,
        idempotency_key=idempotency_key,
        body_sha256=digest,
        waiting_sha256=None if idempotency_key is not None else digest,
    )
    session.add(message)
    session.flush()
    return StoredMessage.of(message)


def _earlier_copy(
    session: Session,
    claim_id: str,
    digest: str,
    key: str | None,
    now: datetime,
    window: timedelta,
) -> Message | None:
    if key is not None:
        keyed = session.scalars(
            select(Message).where(Message.claim_id == claim_id, Message.idempotency_key == key)
        ).first()
        if keyed is None:
            return None
        if keyed.created_at < now - IDEMPOTENCY_KEY_TTL:
            keyed.idempotency_key = None  # expired: the key may name a new message
            session.flush()
            return None
        if keyed.body_sha256 != digest:
            raise IdempotencyConflict(
                f"Idempotency-Key {key!r} was already used on claim {claim_id} for a different message"
            )
        return keyed
    # Without a key, only a copy still waiting for its turn is a retry (a double click, a client
    # that gave up waiting): once answered, the same words again are a new question. The copy
    # holding this text's waiting_sha256 is the one to look at (the unique index makes it at
    # most one); answered or past the window, it lets go of the text so a new copy can take it.
    copy = session.scalars(
        select(Message).where(Message.claim_id == claim_id, Message.waiting_sha256 == digest)
    ).first()
    if copy is None:
        return None
    answered = session.scalar(select(Turn.id).where(Turn.message_id == copy.id)) is not None
    if not answered and copy.created_at >= now - window:
        return copy
    copy.waiting_sha256 = None
    session.flush()
    return None


def repeats_stored_message(session: Session, claim_id: str, key: str) -> bool:
    """Whether a request with this Idempotency-Key repeats a message already stored on the
    claim (a retry: it gets the stored reply, or a 422 for other text; never a new turn)."""
    stored = session.scalar(
        select(Message.id).where(
            Message.claim_id == claim_id,
            Message.idempotency_key == key,
            Message.created_at >= utcnow() - IDEMPOTENCY_KEY_TTL,
        )
    )
    return stored is not None


def oldest_unanswered(session: Session, claim_id: str) -> Message | None:
    return session.scalars(_unanswered().where(Message.claim_id == claim_id).order_by(Message.id)).first()


def interrupted_claims(
    session: Session, older_than: datetime, newer_than: datetime | None = None
) -> list[str]:
    """Claims with a message that has waited past the grace period while nobody holds the claim
    (only messages stored since `newer_than` when given: the index on created_at then reads
    those alone, not every message ever stored)."""
    now = utcnow()
    since = [Message.created_at >= newer_than] if newer_than is not None else []
    rows = session.scalars(
        _unanswered()
        .join(Claim, Claim.claim_id == Message.claim_id)
        .where(
            Message.created_at < older_than,
            *since,
            or_(Claim.turn_lease_owner.is_(None), Claim.turn_lease_until < now),
        )
        .order_by(Message.id)
    ).all()
    return list(dict.fromkeys(m.claim_id for m in rows))


def _unanswered():  # type: ignore[no-untyped-def]
    return (
        select(Message)
        .outerjoin(Turn, Turn.message_id == Message.id)
        .where(Message.role == "claimant", Turn.id.is_(None))
    )


# The lease statements go to the table, not through the ORM: no loaded Claim is read for its
# lease, so the ORM's work of bringing loaded objects up to date after an UPDATE is skipped.
_CLAIMS = Claim.__table__


class ClaimLease:
    """One turn at a time per claim: an asyncio lock inside this process, a lease on the claim
    row across processes. Taking and giving back the lease are statements in the caller's
    transaction (the turn takes it with the message it stores and gives it back with the
    reply it saves); while held it is extended every third of its time to live."""

    def __init__(self, sessions: sessionmaker, ttl_s: float):
        self.sessions = sessions
        self.ttl = timedelta(seconds=ttl_s)
        self.owner = uuid.uuid4().hex  # this process; the asyncio lock orders its own tasks
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, claim_id: str) -> asyncio.Lock:
        lock = self._locks.get(claim_id)
        if lock is None:
            lock = self._locks[claim_id] = asyncio.Lock()
        return lock

    def take(self, session: Session, claim_id: str) -> bool:
        """Take the lease when it is free, ours already, or expired."""
        now = utcnow()
        taken = session.execute(
            update(_CLAIMS)
            .where(
                _CLAIMS.c.claim_id == claim_id,
                or_(
                    _CLAIMS.c.turn_lease_owner.is_(None),
                    _CLAIMS.c.turn_lease_owner == self.owner,
                    _CLAIMS.c.turn_lease_until < now,
                ),
            )
            .values(turn_lease_owner=self.owner, turn_lease_until=now + self.ttl)
        )
        return taken.rowcount == 1

    def give_back(self, session: Session, claim_id: str) -> None:
        session.execute(self._ours(claim_id).values(turn_lease_owner=None, turn_lease_until=None))

    def give_back_now(self, claim_id: str) -> None:
        with self.sessions.begin() as session:
            self.give_back(session, claim_id)

    def _extend(self, claim_id: str) -> None:
        # Only a lease still ours: one given back with a saved reply stays given back.
        with self.sessions.begin() as session:
            session.execute(self._ours(claim_id).values(turn_lease_until=utcnow() + self.ttl))

    def _ours(self, claim_id: str) -> Update:
        return update(_CLAIMS).where(
            and_(_CLAIMS.c.claim_id == claim_id, _CLAIMS.c.turn_lease_owner == self.owner)
        )

    @contextlib.asynccontextmanager
    async def extended(self, claim_id: str) -> AsyncIterator[None]:
        """Keep the lease alive while the block runs (a model can take a while)."""
        renewer = asyncio.create_task(self._renew(claim_id))
        try:
            yield
        finally:
            renewer.cancel()

    async def _renew(self, claim_id: str) -> None:
        while True:
            await asyncio.sleep(self.ttl.total_seconds() / 3)
            await asyncio.to_thread(self._extend, claim_id)


def store_incoming(
    session: Session,
    lease: ClaimLease,
    incoming: tuple[str, str, str | None],
    message: StoredMessage | None,
    take_lease: bool,
    duplicate_window: timedelta,
) -> tuple[StoredMessage, bool]:
    """The message (claim ID, text, Idempotency-Key) stored unless it already is, with the
    claim's lease taken, committed in one transaction of `session` (which the caller may go on
    reading with): (the message, whether the lease was taken)."""
    claim_id, text, key = incoming

    def once(stored: StoredMessage | None) -> tuple[StoredMessage, bool]:
        with session.begin():
            if stored is None:
                stored = store_message(
                    session, claim_id, text, idempotency_key=key, duplicate_window=duplicate_window
                )
            return stored, take_lease and lease.take(session, claim_id)

    try:
        return once(message)
    except sql_errors.IntegrityError:
        # The same Idempotency-Key stored by a concurrent request a moment ago: that copy is
        # this message, found on the second try.
        return once(None)
