"""What a handler answers from: the clauses of an item, read whole from the wording that governs
the claim now (through the clause library, like a turn), shown beside the answer form."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.db.tables import Policy, Turn, WithdrawalFollowUp
from knowledge.clauses import MAX_CLAUSES_PER_FETCH, ClauseLibrary, FetchedClause
from knowledge.errors import KnowledgeError, NoGoverningVersion


@dataclass(frozen=True)
class ItemClauses:
    family: str
    version: str | None  # the governing version they were read from; None when none could be
    clauses: list[FetchedClause] = field(default_factory=list)
    # Clause IDs of the item that the governing wording does not hold (a retired or new ID).
    not_in_wording: list[str] = field(default_factory=list)
    problem: str | None = None  # why nothing could be read


def clause_ids_of(turn: Turn | None, withdrawn: WithdrawalFollowUp | None) -> list[str]:
    """The clauses the item is about: those the turn fetched, or for a withdrawal follow-up
    those the replies cited; at most one fetch's worth."""
    ids = list(turn.returned or []) if turn is not None else []
    if not ids and withdrawn is not None:
        ids = [c["clause_id"] for r in withdrawn.replies for c in r.get("citations", [])]
    return list(dict.fromkeys(ids))[:MAX_CLAUSES_PER_FETCH]


def read_clauses(library: ClauseLibrary, policy: Policy, clause_ids: list[str]) -> ItemClauses:
    """The clauses whole, from the wording governing the policy term now."""
    try:
        entry = library.governing(policy.family, policy.term_start)
    except NoGoverningVersion as exc:
        return ItemClauses(policy.family, None, problem=str(exc))
    except KnowledgeError as exc:
        return ItemClauses(
            policy.family, None, problem=f"the policy wording store cannot be read ({type(exc).__name__})"
        )
    if not clause_ids:
        return ItemClauses(policy.family, entry.version)
    try:
        fetched = library.fetch(library.directory(entry), clause_ids)
    except KnowledgeError as exc:
        return ItemClauses(
            policy.family,
            entry.version,
            problem=f"the clauses cannot be read from the store ({type(exc).__name__})",
        )
    return ItemClauses(policy.family, entry.version, fetched.clauses, fetched.not_found)
