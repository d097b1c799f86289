"""The numbers that must always be zero, checked on what was really served."""

from __future__ import annotations

from typing import Any

from agent.evaluation.decision_audit import DecisionAudit


def invented_citations(exchange: Any) -> list[str]:
    """Cited IDs that were not fetched in that turn, or are not in the directory it saw."""
    reply, turn = exchange.reply, exchange.turn
    served = [c["clause_id"] for c in reply.get("citations", [])]
    recorded = list(turn.get("cited") or [])
    returned = set(turn.get("returned") or []) | runtime_added(turn)
    directory = {e["clause_id"] for e in turn.get("directory_seen") or []}
    return sorted({c for c in [*served, *recorded] if c not in returned or c not in directory})


def runtime_added(turn: dict[str, Any]) -> set[str]:
    """The exclusion clauses the runtime itself read and served after a cover they limit (the
    composed answer's blocks marked `added`): fetched by the runtime, not invented."""
    return {b["clause_id"] for b in (turn.get("composed") or {}).get("blocks", []) if b.get("added")}


def decision_served(exchange: Any, audit: DecisionAudit) -> str | None:
    """The labelled decision phrase a served reply contains (outside quoted wording and
    clause titles), by the evaluation's own list; None when there is none."""
    reply = exchange.reply
    if not reply.get("reply"):
        return None
    citations = reply.get("citations", [])
    quoted = [c.get("quote", "") for c in citations] + [c["title"] for c in citations if c.get("title")]
    return audit.find(reply["reply"], quoted)
