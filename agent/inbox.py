"""Claimant messages before they are answered: stored first, deduplicated, answered in order.

- A message is committed before anything else happens, with its Idempotency-Key (if sent)
  and the SHA-256 of its text. The same key and text return the stored reply; the same key
  with another text is refused. Without a key, the same text while the first copy is still
  waiting for its turn is taken as a retry of it.
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

from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from agent.db import Claim, Message, Turn, utcnow

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
    # True when this request is a retry of a message already stored.
    retry: bool = False


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def store_message(
    sessions: sessionmaker,
    claim_id: str,
    text: str,
    *,
    idempotency_key: str | None,
    duplicate_window: timedelta,
) -> StoredMessage:
    """Commit the claimant's message, or find the one this request repeats."""
    digest = sha256(text)
    now = utcnow()
    with sessions.begin() as session:
        if session.get(Claim, claim_id) is None:
            raise ClaimNotFound(claim_id)
        earlier = _earlier_copy(session, claim_id, digest, idempotency_key, now, duplicate_window)
        if earlier is not None:
            return StoredMessage(earlier.id, claim_id, earlier.body, retry=True)
        message = Message(
            claim_id=claim_id, role="claimant", body=text, idempotency_key=idempotency_key, body_sha256=digest
        )
        session.add(message)
        try:
            session.flush()
        except IntegrityError:
            # The same key stored by a concurrent request a moment ago: that one is the message.
            session.rollback()
            return store_message(
                sessions, claim_id, text, idempotency_key=idempotency_key, duplicate_window=duplicate_window
            )
        return StoredMessage(message.id, claim_id, text)


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
    # that gave up waiting): once answered, the same words again are a new question.
    return session.scalars(
        _unanswered()
        .where(
            Message.claim_id == claim_id,
            Message.body_sha256 == digest,
            Message.created_at >= now - window,
        )
        .order_by(Message.id.desc())
    ).first()


def oldest_unanswered(session: Session, claim_id: str) -> Message | None:
    return session.scalars(_unanswered().where(Message.claim_id == claim_id).order_by(Message.id)).first()


def interrupted_claims(session: Session, older_than: datetime) -> list[str]:
    """Claims with a message that has waited past the grace period while nobody holds the claim."""
    now = utcnow()
    rows = session.scalars(
        _unanswered()
        .join(Claim, Claim.claim_id == Message.claim_id)
        .where(
            Message.created_at < older_than,
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


class ClaimLease:
    """One turn at a time per claim: an asyncio lock inside this process, a lease row across
    processes. The lease is renewed every third of its time to live while held."""

    def __init__(self, sessions: sessionmaker, ttl_s: float):
        self.sessions = sessions
        self.ttl = timedelta(seconds=ttl_s)
        self.owner = uuid.uuid4().hex  # this process; the asyncio lock orders its own tasks
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    @contextlib.asynccontextmanager
    async def hold(self, claim_id: str) -> AsyncIterator[None]:
        lock = self._locks.get(claim_id)
        if lock is None:
            lock = self._locks[claim_id] = asyncio.Lock()
        async with lock:
            delay = 0.01
            while not await asyncio.to_thread(self.try_take, claim_id):
                await asyncio.sleep(delay)  # another process is answering this claim
                delay = min(delay * 2, 0.25)
            renewer = asyncio.create_task(self._renew(claim_id))
            try:
                yield
            finally:
                renewer.cancel()
                await asyncio.to_thread(self.give_back, claim_id)

    def try_take(self, claim_id: str) -> bool:
        now = utcnow()
        with self.sessions.begin() as session:
            taken = session.execute(
                update(Claim)
                .where(
                    Claim.claim_id == claim_id,
                    or_(
                        Claim.turn_lease_owner.is_(None),
                        Claim.turn_lease_owner == self.owner,
                        Claim.turn_lease_until < now,
                    ),
                )
                .values(turn_lease_owner=self.owner, turn_lease_until=now + self.ttl)
            )
            return taken.rowcount == 1

    def give_back(self, claim_id: str) -> None:
        with self.sessions.begin() as session:
            session.execute(
                update(Claim)
                .where(and_(Claim.claim_id == claim_id, Claim.turn_lease_owner == self.owner))
                .values(turn_lease_owner=None, turn_lease_until=None)
            )

    async def _renew(self, claim_id: str) -> None:
        while True:
            await asyncio.sleep(self.ttl.total_seconds() / 3)
            await asyncio.to_thread(self.try_take, claim_id)
