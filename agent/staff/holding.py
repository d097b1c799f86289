"""Evidence bound to a waiting-list item is recorded only by the handler holding it: the one who
took it, or, once it is answered, the one who answered it. A supervisor may record it in their
place (an override, logged with both names and kept on the evidence row's author). Evidence on
a turn with no item (a flag on a served answer) is open to any handler."""

from __future__ import annotations

import logging

from agent.db.tables import StaffUser, WaitingItem
from agent.staff.waiting_list import ItemConflict

log = logging.getLogger(__name__)
SUPERVISOR = "supervisor"


class NotHolder(ItemConflict):
    """The item is held by someone else (or by nobody), and no supervisor overrides."""


def holder_of(item: WaitingItem) -> str | None:
    if item.status == "answered":
        return item.answered_by
    return item.taken_by if item.status == "taken" else None


def evidence_author(item: WaitingItem, staff: StaffUser, *, override: bool = False) -> str:
    """Who the evidence is recorded by: the holder, or a supervisor overriding them (NotHolder
    otherwise)."""
    holder = holder_of(item)
    if holder == staff.username:
        return staff.username
    if not override:
        held = f"held by {holder}" if holder else "held by nobody (take it first)"
        raise NotHolder(
            f"{item.reference} is {held}: only the handler holding it records evidence on it, "
            "or a supervisor with override"
        )
    if SUPERVISOR not in (staff.roles or []):
        raise NotHolder(f"only a supervisor may record evidence on {item.reference} in its holder's place")
    log.warning(
        "item %s evidence recorded by %s overriding holder %s (supervisor override)",
        item.reference,
        staff.username,
        holder,
    )
    return f"{staff.username} (supervisor override of {holder or 'nobody'})"
