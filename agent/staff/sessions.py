"""Server-side staff sessions: one row per login (browser or API), so logout, expiry and
revocation take effect whatever cookie or token the client still holds."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from agent.db.tables import StaffSession, StaffUser, utcnow
from agent.security import hash_password, hash_token, new_token, verify_password
from agent.settings import Settings
from agent.throttle import Throttle

# last_seen_at is written at most this often, so reading pages is not a write each time;
# never less often than a quarter of the idle timeout, or a short one would not slide.
TOUCH_EVERY = timedelta(seconds=30)


def touch_every(settings: Settings) -> timedelta:
    return min(TOUCH_EVERY, timedelta(seconds=settings.session_idle_s / 4))


def open_session(
    db: Session, staff: StaffUser, kind: str, client: str | None, settings: Settings
) -> tuple[StaffSession, str]:
    """A new session and the token its holder presents (returned once, stored hashed)."""
    token = new_token()
    now = utcnow()
    row = StaffSession(
        token_hash=hash_token(token),
        username=staff.username,
        kind=kind,
        client=(client or "")[:64] or None,
        created_at=now,
        last_seen_at=now,
        expires_at=now + timedelta(seconds=settings.session_absolute_s),
    )
    db.add(row)
    db.commit()
    return row, token


def is_live(row: StaffSession, settings: Settings, now: datetime | None = None) -> bool:
    now = now or utcnow()
    return (
        row.revoked_at is None
        and now < row.expires_at
        and now < row.last_seen_at + timedelta(seconds=settings.session_idle_s)
    )


def session_user(db: Session, token: str, settings: Settings) -> tuple[StaffSession, StaffUser] | None:
    """The live session this token opens and its active user, touching its idle clock."""
    row = db.scalar(select(StaffSession).where(StaffSession.token_hash == hash_token(token)))
    if row is None or not is_live(row, settings):
        return None
    staff = db.get(StaffUser, row.username)
    if staff is None or not staff.active:
        return None
    now = utcnow()
    if now - row.last_seen_at >= touch_every(settings):
        row.last_seen_at = now
        db.commit()
    return row, staff


def sessions_of(
    db: Session, username: str, settings: Settings, *, live_only: bool = True
) -> list[StaffSession]:
    rows = db.scalars(
        select(StaffSession).where(StaffSession.username == username).order_by(StaffSession.created_at)
    ).all()
    return [r for r in rows if is_live(r, settings)] if live_only else list(rows)


def revoke(db: Session, session_id: str, username: str | None = None) -> bool:
    """Revoke one session (only the given user's, when a username is given)."""
    where = [StaffSession.id == session_id, StaffSession.revoked_at.is_(None)]
    if username is not None:
        where.append(StaffSession.username == username)
    done = db.execute(update(StaffSession).where(*where).values(revoked_at=utcnow())).rowcount
    db.commit()
    return done == 1


def revoke_all(db: Session, username: str) -> int:
    done = db.execute(
        update(StaffSession)
        .where(StaffSession.username == username, StaffSession.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    ).rowcount
    db.commit()
    return done


# Compared against when the username is unknown, so a wrong name costs the same as a wrong password.
_DUMMY_HASH = hash_password(secrets.token_urlsafe(16))


def authenticate(
    db: Session, limits: Throttle, username: str, password: str, address: str
) -> StaffUser | None:
    """The active staff user with this password, or None. Wrong passwords are counted per
    client address, per user and address, and per user, as claimants' wrong access codes are
    (agent.throttle.Guard): from an address past its limits even the right password raises
    Throttled until the window passes, while a stranger guessing from many addresses cannot
    lock the user out of an address that sent no wrong password."""
    username = username.strip()
    account = username.lower()
    limits.admit(limits.login, account, address)
    staff = db.scalar(select(StaffUser).where(StaffUser.username == username, StaffUser.active.is_(True)))
    if not verify_password(password, staff.password_hash if staff else _DUMMY_HASH) or staff is None:
        limits.wrong(limits.login, account, address)
        return None
    return staff
