"""A fetched clause comes with what it depends on: the definitions it uses and the clauses it
refers to (its links), outside the three-clause cap, within one token budget for the turn.

The clauses the model named are always whole; links follow, nearest first (each clause's own
links in their order, the first clause's before the second's), each whole or not at all,
while the fetch as a whole stays within FETCH_TOKENS. A link outside the claimant's
directory (another plan, an unlisted endorsement) is not fetched.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent.claimant.directory import tokens
from knowledge.clauses import ClauseLibrary, Directory, FetchedClause

# Clause texts one turn may bring in, named and linked (3 × 1,500 characters was about 1,050).
FETCH_TOKENS = 1200


def with_links(
    library: ClauseLibrary, directory: Directory, named: Iterable[FetchedClause], budget: int = FETCH_TOKENS
) -> list[FetchedClause]:
    """The linked clauses to add to `named` (every clause fetched this turn so far)."""
    named = list(named)
    spent = sum(tokens(c.text) for c in named)
    seen = {c.clause_id for c in named}
    wanted = [cid for c in named for cid in c.links if directory.get(cid) is not None]
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
        cost = tokens(clause.text)
        if spent + cost <= budget:
            added.append(clause)
            spent += cost
    return added
