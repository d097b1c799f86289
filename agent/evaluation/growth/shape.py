"""What the grown data is made of: its sizes at full scale (`--scale` shrinks them), the
claim of the long conversation, the questions asked, the route reasons and the families
with their plans."""

from __future__ import annotations

from dataclasses import dataclass

FULL = {"claims": 10_000, "turns": 1_000_000, "waiting": 100_000, "conversation": 200}
LONG_CLAIM = "CLM-204518"
QUESTIONS = (
    "Can I get a rental car while mine is being repaired?",
    "What is my excess for a driver under 25?",
    "Does my policy cover windscreen damage?",
    "How long can I keep the hire car?",
    "Is my jewellery covered away from home?",
)
REASONS = (
    ("no_clause_selected", 30),
    ("clauses_do_not_answer", 25),
    ("needs_decision", 15),
    ("failed_check", 8),
    ("knowledge_unavailable", 7),
    ("model_timeout", 6),
    ("interrupted", 5),
    ("model_server_error", 4),
)


FAMILY_PLAN = {"motor": "Comprehensive", "home": "Home Replacement", "contents": "Standard"}


@dataclass(frozen=True)
class Sizes:
    claims: int
    turns: int
    waiting: int
    conversation: int

    @classmethod
    def at(cls, scale: float) -> Sizes:
        n = {k: max(1, round(v * scale)) for k, v in FULL.items()}
        # At least a few messages of conversation, and never more items than routed turns.
        return cls(n["claims"], n["turns"], min(n["waiting"], n["turns"]), max(n["conversation"], 10))
