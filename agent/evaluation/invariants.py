"""The two numbers that must always be zero, checked on what was really served."""

from __future__ import annotations

from typing import Any

from agent.decisions import find_decision


def invented_citations(exchange: Any) -> list[str]:
    """Cited IDs that were not fetched in that turn, or are not in the directory it saw."""
    reply, turn = exchange.reply, exchange.turn
    served = [c["clause_id"] for c in reply.get("citations", [])]
    recorded = list(turn.get("cited") or [])
    returned = set(turn.get("returned") or [])
    directory = {e["clause_id"] for e in turn.get("directory_seen") or []}
    return sorted({c for c in [*served, *recorded] if c not in returned or c not in directory})


def decision_served(exchange: Any) -> str | None:
    """The decision wording in a served reply (the answer boundary's own detector), or None.

    Only the served citations are known here, so a quotation counts as policy wording when
    it occurs in a served citation's quote."""
    reply = exchange.reply
    if not reply.get("reply"):
        return None
    citations = reply.get("citations", [])
    found = find_decision(
        reply["reply"],
        wording=[c["quote"] for c in citations],
        titles={c["clause_id"]: c["title"] for c in citations if c.get("title")},
    )
    return None if found is None else str(found)
