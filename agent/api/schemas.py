"""Request and response types shared by the claimant and staff routes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from agent.db import Message


def non_blank(message: str, max_length: int, description: str) -> object:
    """Text that must say something: stripped, and refused with `message` when blank."""

    def check(value: str) -> str:
        if not value.strip():
            raise ValueError(message)
        return value.strip()

    return Annotated[str, Field(max_length=max_length, description=description), AfterValidator(check)]


class CitationOut(BaseModel):
    clause_id: str
    title: str
    version: str
    quote: str


class MessageOut(BaseModel):
    """One message of a claim's conversation."""

    id: int
    role: str
    body: str
    created_at: datetime
    turn_id: str | None
    waiting_list_reference: str | None
    author: str | None

    @classmethod
    def fields_of(cls, message: Message) -> dict:
        return {
            "id": message.id,
            "role": message.role,
            "body": message.body,
            "created_at": message.created_at,
            "turn_id": message.turn_id,
            "waiting_list_reference": message.waiting_reference,
            "author": message.author,
        }
