"""An evidence example: one labelled question of a wording version, as the selector reads it.

The evidence store (policy owner's inventories and staff answers) hands these out; the offline
model's memory looks among them for questions that mean the same as a new one. Kept apart from
the store so the selector does not depend on the database.

An example keeps the claimant's cover when it was asked (plan or cover level, the schedule's
optional sections and endorsements): the same words answer differently for a Comprehensive
and a Third Party claimant, so recall weighs whose question it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cover:
    """A claimant's plan or cover level and the sections their schedule lists (optional
    sections and endorsements alike); plan None where it was not recorded."""

    plan: str | None = None
    sections: frozenset[str] = frozenset()

    @classmethod
    def of(cls, context: Mapping[str, Any] | None) -> Cover:
        """From an evidence row's `context` (`plan`, `sections`, `endorsements`)."""
        context = context or {}
        plan = context.get("plan")
        listed = [*(context.get("sections") or ()), *(context.get("endorsements") or ())]
        return cls(str(plan) if plan else None, frozenset(str(s) for s in listed))

    def same_plan(self, other: Cover) -> bool:
        """Both plans known and the same (a wording prints "Third Party only", an insurer's
        system sends "Third Party Only": case does not count)."""
        if not self.plan or not other.plan:
            return False
        return self.plan.casefold() == other.plan.casefold()

    def unknown_against(self, other: Cover) -> bool:
        """Either plan unrecorded: nothing to compare."""
        return not self.plan or not other.plan


@dataclass(frozen=True)
class Example:
    """A verified question: what a right answer cites, or that it must be routed to staff."""

    key: str  # stable ID (an inventory question ID or `evidence-<row id>`), for leave-one-out
    family: str
    version: str
    question: str
    clause_ids: tuple[str, ...]  # what a right answer cites; empty when routed
    routed: bool = False  # a right answer is a route to staff
    source: str = "inventory"  # inventory | staff
    cover: Cover = Cover()  # the claimant's when it was asked
    # The sentences that decide it (clause ID, sentence): what the handler or the inventory quoted.
    deciding: tuple[tuple[str, str], ...] = ()


# Where the runtime gets a wording version's verified examples: (family, version) -> examples.
ExampleSource = Callable[[str, str], Sequence[Example]]
