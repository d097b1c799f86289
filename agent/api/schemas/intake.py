"""Shapes of the intake API for the insurer's policy and claims systems."""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent.policy import intake


class TermDates(BaseModel):
    term_start: date
    term_end: date


class IntakeResult(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    subject: str = Field(description="the policy number or claim ID")
    created: bool
    changed: bool = Field(description="false: the stored record already said exactly this")
    changes: dict[str, list[Any]] = Field(description="field by field: [before, after]")
    access_code: str | None = Field(
        None, description="a new claim's access code, returned once (insurer-signed tokens need none)"
    )
    term: TermDates | None = Field(
        None, description="for a claim: the term in force on its incident date; null when none holds it"
    )
    warnings: list[str] = []


class TermOut(intake.TermIn):
    model_config = ConfigDict(from_attributes=True)


class PolicyOut(BaseModel):
    policy_number: str
    family: str
    policyholder: str
    terms: list[TermOut]
