"""The runtime's own statements about this claimant's cover: whether a clause applies to them,
decided from data (the clause's plans and the schedule entries that add, remove or change it)
and their schedule, said in one plain line that opens the reply.

The one place that says "included". A statement names the clause by its title and gives the
reason from the schedule; it never says what will happen to the claim. Where the wording
offers cover levels and nothing records which of them a clause belongs to (an imported
wording whose table did not reach the clause), the runtime says it does not know, never
"included" or "not included", and the turn drafts for a claims handler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent.policy.schedule import ScheduleView
from knowledge.clauses import DirectoryEntry, FetchedClause

Status = Literal["included", "not_included", "excluded", "changed", "unknown"]
# What a clause is, from the kind its ID names (knowledge.rules.KINDS).
Kind = Literal["cover", "exclusion", "condition", "definition", "process", "general"]
_KINDS: dict[str, Kind] = {
    "COV": "cover",
    "BEN": "cover",
    "LIM": "cover",
    "END": "cover",
    "EXC": "exclusion",
    "CON": "condition",
    "DEF": "definition",
    "CLM": "process",
    "EXS": "general",
    "GEN": "general",
}


def kind_of(clause_id: str) -> Kind:
    parts = clause_id.split("-")
    return _KINDS.get(parts[1], "general") if len(parts) == 3 else "general"


@dataclass(frozen=True)
class Applicability:
    """Whether a clause applies to this claimant, and why, from their schedule. `reason` is
    None when nothing in the schedule decides the clause (it applies as written)."""

    status: Status
    reason: str | None = None


def applicability(
    plans: tuple[str, ...],
    added_by: tuple[str, ...],
    removed_by: tuple[str, ...],
    changed_by: tuple[str, ...],
    schedule: ScheduleView,
    levels: tuple[str, ...] = (),
) -> Applicability:
    """The clause's plans (empty: every plan) and the schedule entries that add, remove or
    change it, read against this claimant's schedule. `levels` are the cover levels the
    wording offers: where there are several and the clause records none of this, which of
    them it belongs to is unknown."""
    listed = set(schedule.sections)
    if len(levels) > 1 and not (plans or added_by or removed_by or changed_by):
        return Applicability(
            "unknown",
            f"your policy wording does not record which of its cover levels it belongs to "
            f"({_names(levels)}), so a claims handler will check it against your {schedule.plan} cover",
        )
    if not schedule.holds(plans):
        return Applicability(
            "not_included",
            f"it is only in the {_names(plans)} plan, and your schedule shows the {schedule.plan} plan",
        )
    if removed := [s for s in removed_by if s in listed]:
        removes = f"your schedule lists {_labels(removed, schedule)}, which removes it"
        return Applicability("excluded", removes)
    if added_by:
        present = [s for s in added_by if s in listed]
        if not present:
            return Applicability("not_included", f"your schedule does not list {_labels(added_by, schedule)}")
        return Applicability(
            "included",
            f"your schedule lists {_labels(present, schedule)}, subject to the claim being accepted",
        )
    if changed := [s for s in changed_by if s in listed]:
        return Applicability(
            "changed", f"your schedule lists {_labels(changed, schedule)}, which sets out the change"
        )
    if plans:
        return Applicability("included", f"it is in the {schedule.plan} plan, which your schedule shows")
    return Applicability("included")


def clause_applicability(
    clause: FetchedClause | DirectoryEntry, schedule: ScheduleView, levels: tuple[str, ...] = ()
) -> Applicability:
    """A clause's applies line (carried by the directory) read against this claimant's schedule.
    Only cover and exclusions differ by level: a definition or a general condition with no
    applies line applies to every level, as written."""
    if kind_of(clause.clause_id) not in ("cover", "exclusion"):
        levels = ()
    return applicability(
        clause.plans, clause.added_by, clause.removed_by, clause.changed_by, schedule, levels
    )


def statement(kind: Kind, title: str, applies: Applicability, *, called: str | None = None) -> str:
    """The runtime's line about one cited clause, as the reply opens with it; `called`, the
    clause's ID where quoted words name it by ID (the claimant reads its title first)."""
    named = f"“{title}”" + (f" (which the words above call {called})" if called else "")
    reason = f": {applies.reason}." if applies.reason else "."
    if applies.status == "unknown":
        return f"I can't tell from your policy records whether {named} is part of your cover{reason}"
    if applies.status == "not_included":
        return f"Your policy does not include {named}{reason}"
    if applies.status == "excluded":
        return f"{named} is removed from your policy{reason}"
    if applies.status == "changed":
        return f"{named} is changed for you{reason}"
    if kind == "exclusion":
        return f"This exclusion is part of your policy: {named}{reason}"
    if kind == "condition":
        return f"This condition is part of your policy: {named}{reason}"
    if kind == "definition":
        return f"Your policy defines words it uses in {named}; a definition is not cover by itself."
    if kind == "cover":
        return f"Your policy includes {named}{reason}"
    return f"This part of your policy applies to you: {named}{reason}"


def reference_statement(
    clause_id: str, entry: DirectoryEntry | None, schedule: ScheduleView, levels: tuple[str, ...] = ()
) -> str:
    """What a served sentence's reference to another clause means for this claimant: the
    clause by its title (the ID only to tie it to the words that use it)."""
    if entry is None:
        return f"The words above name {clause_id}, which is not part of your policy wording."
    applies = clause_applicability(entry, schedule, levels)
    return statement(kind_of(clause_id), entry.title, applies, called=clause_id)


def _labels(keys: tuple[str, ...] | list[str], schedule: ScheduleView) -> str:
    return _names([schedule.label(k).lower() for k in keys])


def _names(names: tuple[str, ...] | list[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
