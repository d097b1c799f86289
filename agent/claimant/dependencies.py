"""What a fetch sends the model: each clause as data, and what the fetched clauses depend on
(their links), outside the three-clause cap, within one token budget for the turn.

The clauses the model named are always whole; links follow, nearest first (each clause's own
links in their order, the first clause's before the second's), each whole or not at all,
while the fetch as a whole stays within FETCH_TOKENS, counted as the model is sent it. A link
outside the claimant's directory (an unlisted endorsement) or to a clause of other cover levels
only is not fetched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agent.boundary.statements import clause_applicability
from agent.claimant.directory import token_count
from agent.policy.schedule import ScheduleView
from knowledge.clauses import ClauseLibrary, Directory, DirectoryEntry, FetchedClause

# The clauses one turn may bring in, named and linked, as sent: it keeps the answering
# request within 2,000 tokens with the instructions and the output schema (3 × 1,500
# characters of text, the old cap, was about 1,050 tokens).
FETCH_TOKENS = 950


def clause_data(c: FetchedClause, schedule: ScheduleView, levels: tuple[str, ...] = ()) -> dict[str, Any]:
    """One fetched clause as the model is sent it: its text (whose heading line gives its ID
    and title) and whether it applies to this claimant (included, not_included, excluded or
    changed by their schedule, or unknown where the wording's cover levels do not record it);
    the optional section that adds it, where one does."""
    data: dict[str, Any] = {
        "clause_id": c.clause_id,
        "text": c.text,
        "applies_to_claimant": clause_applicability(c, schedule, levels).status,
    }
    if c.added_by:
        data["optional_section"] = c.added_by[0]
    return data


def cost(c: FetchedClause, schedule: ScheduleView) -> int:
    """A clause's tokens as the model is sent it."""
    return token_count(json.dumps(clause_data(c, schedule), ensure_ascii=False))


def _held(entry: DirectoryEntry | None, schedule: ScheduleView) -> bool:
    return entry is not None and schedule.holds(entry.plans)


def with_links(
    library: ClauseLibrary,
    directory: Directory,
    named: Iterable[FetchedClause],
    schedule: ScheduleView,
    budget: int = FETCH_TOKENS,
) -> list[FetchedClause]:
    """The linked clauses to add to `named` (every clause fetched this turn so far)."""
    named = list(named)
    spent = sum(cost(c, schedule) for c in named)
    seen = {c.clause_id for c in named}
    # A link to a clause of other cover levels only is not followed: the claimant's own clause
    # brings what qualifies it, never another level's text.
    wanted = [cid for c in named for cid in c.links if _held(directory.get(cid), schedule)]
    added: list[FetchedClause] = []
    # One read at a time, nearest first: a link's size is known only once it is read (the
    # directory holds none), so reading them all at once would read links that cannot fit.
    for cid in dict.fromkeys(wanted):
        if spent >= budget:
            break  # no room left: read no more links from the store
        if cid in seen:
            continue
        seen.add(cid)
        found = library.fetch(directory, [cid]).clauses
        if not found:
            continue
        clause = found[0]
        price = cost(clause, schedule)
        if spent + price <= budget:
            added.append(clause)
            spent += price
    return added
