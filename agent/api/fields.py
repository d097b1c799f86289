"""Request field types shared by the routes."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field


def non_blank(message: str, max_length: int, description: str) -> object:
    """Text that must say something: stripped, and refused with `message` when blank."""

    def check(value: str) -> str:
        if not value.strip():
            raise ValueError(message)
        return value.strip()

    return Annotated[str, Field(max_length=max_length, description=description), AfterValidator(check)]
