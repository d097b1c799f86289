"""Taking, releasing and closing a waiting-list item: the one way an item changes state, a
conditional UPDATE that applies only from an allowed state."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import ColumnElement, update
from sqlalchemy.orm import Session

from agent.db.tables import StaffUser, WaitingItem, utcnow
from agent.staff.waiting_list import ItemConflict, ItemNotFound, staff_names

log = logging.getLogger(__name__)


def transition(session: Session, item_id: int, allowed: ColumnElement[bool], **values: Any) -> bool:
    """The one way an item changes state: a conditional UPDATE that applies only from an
    allowed state, so of any number of concurrent requests exactly one sees it apply
    (atomic on SQLite and PostgreSQL). Whether it applied; the caller commits."""
    done = session.execute(
        update(WaitingItem)
        .where(WaitingItem.id == item_id, allowed)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    return done.rowcount == 1


def _settle(
    session: Session,
    item_id: int,
    staff: StaffUser,
    action: str,
    applied: bool,
    refusal: Callable[[WaitingItem], str],
) -> WaitingItem:
    """Commit a transition and return the item, or say why it was refused (ItemConflict)."""
    session.commit()
    item = reload_item(session, item_id)
    if not applied:
        log.info("%s item %s by %s refused: status %s", action, item_id, staff.username, item.status)
        raise ItemConflict(refusal(item))
    log.info("item %s %s %s by %s", item.id, item.reference, action, staff.username)
    return item


def taken_by(staff: StaffUser | str) -> ColumnElement[bool]:
    username = staff if isinstance(staff, str) else staff.username
    return (WaitingItem.status == "taken") & (WaitingItem.taken_by == username)


def hold_to_draft(session: Session, item_id: int, username: str) -> None:
    """A draft is replaced under the rule of closing: on an open item, or one this staff user
    has taken. A no-op conditional UPDATE of the item, in the caller's transaction: it locks
    the row until the caller commits the draft (a take by another handler waits for it, and a
    draft waits for a take in flight), and it applies only from an allowed state; else the
    transaction is rolled back and ItemConflict says who holds the item."""
    allowed = (WaitingItem.status == "open") | taken_by(username)
    if not transition(session, item_id, allowed, status=WaitingItem.status):
        session.rollback()
        item = reload_item(session, item_id)
        log.info("draft of item %s by %s refused: status %s", item_id, username, item.status)
        raise ItemConflict(
            f"{item.reference} is {state_of(item, session)}; "
            "only the handler holding it can replace its draft"
        )


def take(session: Session, item_id: int, staff: StaffUser) -> WaitingItem:
    """Atomic on SQLite and PostgreSQL: the conditional UPDATE locks the row, and of any
    number of concurrent takers exactly one sees rowcount 1. Commits."""
    taken = transition(
        session,
        item_id,
        WaitingItem.status == "open",
        status="taken",
        taken_by=staff.username,
        taken_at=utcnow(),
    )
    return _settle(session, item_id, staff, "take", taken, lambda item: _not_open(item, session))


def release(session: Session, item_id: int, staff: StaffUser) -> WaitingItem:
    """Only the staff user who took an item can put it back on the list. Commits."""
    released = transition(session, item_id, taken_by(staff), status="open", taken_by=None, taken_at=None)
    return _settle(
        session,
        item_id,
        staff,
        "release",
        released,
        lambda item: f"{item.reference} is not taken by you ({state_of(item, session)})",
    )


def close(session: Session, item_id: int, staff: StaffUser, reason: str) -> WaitingItem:
    """Close without an answer: an open item, or one this staff user has taken. Commits."""
    closed = transition(
        session,
        item_id,
        (WaitingItem.status == "open") | taken_by(staff),
        status="closed",
        closed_at=utcnow(),
        closed_by=staff.username,
        close_reason=reason,
    )
    return _settle(
        session,
        item_id,
        staff,
        "close",
        closed,
        lambda item: f"{item.reference} cannot be closed by you ({state_of(item, session)})",
    )


def reload_item(session: Session, item_id: int) -> WaitingItem:
    item = session.get(WaitingItem, item_id, populate_existing=True)
    if item is None:
        raise ItemNotFound(f"no waiting-list item {item_id}")
    return item


def state_of(item: WaitingItem, session: Session) -> str:
    if item.status == "taken":
        return f"taken by {staff_names(session).get(item.taken_by or '', item.taken_by)}"
    return item.status


def _not_open(item: WaitingItem, session: Session) -> str:
    return f"{item.reference} is already {state_of(item, session)}"


def require_taken_by(item: WaitingItem, staff: StaffUser, session: Session, action: str) -> None:
    if item.status != "taken" or item.taken_by != staff.username:
        raise ItemConflict(f"take {item.reference} before you {action} it ({state_of(item, session)})")
