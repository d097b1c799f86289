"""The two numbers that must always be zero, checked on what was really served."""

from __future__ import annotations

from typing import Any

from agent.boundary import no_claim_decision
from agent.reply import Citation, ClaimantReply


def invented_citations(exchange: Any) -> list[str]:
    """Cited IDs that were not fetched in that turn, or are not in the directory it saw."""
    reply, turn = exchange.reply, exchange.turn
    served = [c["clause_id"] for c in reply.get("citations", [])]
    recorded = list(turn.get("cited") or [])
    returned = set(turn.get("returned") or [])
    directory = {e["clause_id"] for e in turn.get("directory_seen") or []}
    return sorted({c for c in [*served, *recorded] if c not in returned or c not in directory})


def decision_served(exchange: Any) -> str | None:
    """The decision wording in a served reply (the answer boundary's own check), or None."""
    reply = exchange.reply
    if not reply.get("reply"):
        return None
    check = no_claim_decision(
        ClaimantReply(
            text=reply["reply"],
            outcome="answered" if reply.get("outcome") == "answered" else "routed_to_staff",
            citations=[
                Citation(clause_id=c["clause_id"], quote=c["quote"]) for c in reply.get("citations", [])
            ],
        ),
        [c["title"] for c in reply.get("citations", []) if c.get("title")],
    )
    return None if check.passed else check.detail
