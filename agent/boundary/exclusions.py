"""The wording's exclusion clauses, which the runtime brings beside a cited cover that they
limit whether or not the model fetched them (agent.boundary.compose). Read whole from the
store once per wording version (clause objects are immutable under their content hash)."""

from __future__ import annotations

from agent.boundary.statements import kind_of
from knowledge.clauses import ClauseLibrary, Directory, FetchedClause

# Clauses fetched per call (the store's own per-fetch bound).
_CHUNK = 3
_READ: dict[tuple[str, str, str], dict[str, FetchedClause]] = {}


def exclusions_of(library: ClauseLibrary, directory: Directory) -> dict[str, FetchedClause]:
    """Every exclusion clause of the wording, by ID. Raises what the store raises (the turn
    treats it as the wording being unavailable)."""
    key = (directory.family, directory.version, directory.content_hash)
    if key not in _READ:
        ids = [e.clause_id for e in directory.entries if kind_of(e.clause_id) == "exclusion" and e.citable]
        found: dict[str, FetchedClause] = {}
        for at in range(0, len(ids), _CHUNK):
            found.update((c.clause_id, c) for c in library.fetch(directory, ids[at : at + _CHUNK]).clauses)
        _READ[key] = found
    return _READ[key]
