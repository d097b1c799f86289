"""An evidence example: one labelled question of a wording version, as the selector reads it.

The evidence store (policy owner's inventories and staff answers) hands these out; the offline
model's memory looks among them for questions that mean the same as a new one. Kept apart from
the store so the selector does not depend on the database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


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


# Where the runtime gets a wording version's verified examples: (family, version) -> examples.
ExampleSource = Callable[[str, str], Sequence[Example]]
