"""A claim's earlier turns as the model's history: stored with each record, replayed to the next.

What is sent again is decided by the claimant agent's history processor
(agent.claimant.agent.only_what_answering_needs); this module only stores and reads back.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelRequest
from sqlalchemy import select
from sqlalchemy.orm import Session

from agent.claimant.agent import only_what_answering_needs
from agent.db.tables import Turn

HISTORY_TURNS = 6


def stored_history(session: Session, claim_id: str) -> list[Any]:
    """Earlier turns' model messages as stored, oldest first."""
    rows = session.scalars(
        select(Turn.model_messages)
        .where(Turn.claim_id == claim_id)
        .order_by(Turn.started_at.desc())
        .limit(HISTORY_TURNS)
    ).all()
    return [stored for stored in reversed(rows) if stored]


def replayable(messages: list[ModelMessage]) -> list[Any]:
    """This turn's messages as stored for later turns. Clause texts and part listings are left
    out (the record keeps the IDs and version, and a later turn must fetch again to cite), and
    so are the tool's metadata and the instructions each request carried: a later turn is sent
    its own, with the claim's context as it is then (they were also nine tenths of every
    stored turn)."""
    stored = ModelMessagesTypeAdapter.dump_python(only_what_answering_needs([*messages, _NEXT]), mode="json")
    stored = stored[:-1]
    for message in stored:
        if message.get("kind") == "request":
            message["instructions"] = None
    return stored


# A stand-in for the next turn's question: everything before it is an earlier turn's.
_NEXT = ModelRequest.user_text_prompt("")


def replay(stored: list[Any]) -> list[ModelMessage]:
    """Earlier turns' messages for the model, as stored (the history processor keeps their
    clause texts out whatever an older record holds)."""
    messages: list[ModelMessage] = []
    for turn_messages in stored:
        messages.extend(ModelMessagesTypeAdapter.validate_python(turn_messages))
    return messages
