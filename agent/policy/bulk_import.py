"""The first load from the insurer's systems (go-live): one policy, claim or claim status per
JSON line, through the same intake code as the API (agent.policy.intake). Bad lines are
reported (line number, field, problem) and skipped; every good line is loaded in its own
transaction, in file order (a claim after its policy).

What a line is, by its keys:
- with no `claim_id`: a policy, as `PUT /integration/api/policies/{policy_number}` takes it,
  with its `policy_number`;
- with `claim_id` and `status` alone: a claim's status, as `PUT …/claims/{claim_id}/status`;
- otherwise a claim, as `PUT …/claims/{claim_id}` takes it, with its `claim_id`.
A new claim's access code is returned once, as the API returns it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy.orm import Session, sessionmaker

from agent.db.tables import Claim
from agent.policy import intake


@dataclass(frozen=True)
class BadLine:
    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.field}: {self.problem}"


@dataclass
class ImportReport:
    # Policy numbers and claim IDs, by what the line did.
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)
    # New claims' access codes, by claim ID (returned once, stored only hashed).
    access_codes: dict[str, str] = field(default_factory=dict)
    # Loaded lines the API would answer with a warning (a claim no term holds yet).
    warnings: list[BadLine] = field(default_factory=list)


class StatusLine(intake.StatusIn):
    claim_id: intake.Identifier  # type: ignore[valid-type]


def problems(line: int, exc: ValidationError) -> list[BadLine]:
    return [
        BadLine(
            line, ".".join(str(p) for p in err["loc"]) or "line", err["msg"].removeprefix("Value error, ")
        )
        for err in exc.errors()
    ]


def kind_of(raw: Any) -> type[BaseModel]:
    if not isinstance(raw, dict) or "claim_id" not in raw:
        return intake.PolicyIn
    return StatusLine if set(raw) == {"claim_id", "status"} else intake.ClaimIn


def import_policies(sessions: sessionmaker, lines: Iterable[str], actor: str) -> ImportReport:
    report = ImportReport()
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
            data = kind_of(raw).model_validate(raw)
        except json.JSONDecodeError as exc:
            report.bad.append(BadLine(number, "line", f"not JSON ({exc.msg} at column {exc.colno})"))
            continue
        except ValidationError as exc:
            report.bad.extend(problems(number, exc))
            continue
        try:
            outcome = _load(sessions, data, actor, number, report)
        except intake.IntakeRefused as exc:
            report.bad.append(BadLine(number, exc.field, exc.problem))
            continue
        except intake.ClaimMissing as exc:
            report.bad.append(BadLine(number, "claim_id", f"no claim {exc}; load the claim first"))
            continue
        bucket = (
            report.created if outcome.created else report.updated if outcome.changed else report.unchanged
        )
        bucket.append(outcome.subject)
    return report


def _load(
    sessions: sessionmaker, data: BaseModel, actor: str, number: int, report: ImportReport
) -> intake.Outcome:
    if isinstance(data, intake.PolicyIn):
        return intake.in_transaction(sessions, lambda s: intake.upsert_policy(s, data, actor))
    if isinstance(data, StatusLine):
        return intake.in_transaction(
            sessions, lambda s: intake.set_status(s, data.claim_id, data.status, actor)
        )
    assert isinstance(data, intake.ClaimIn)

    def claim(session: Session) -> tuple[intake.Outcome, list[str]]:
        outcome = intake.upsert_claim(session, data, actor)
        return outcome, intake.claim_warnings(
            data, intake.claim_term_dates(session, session.get(Claim, data.claim_id))
        )

    outcome, warnings = intake.in_transaction(sessions, claim)
    report.warnings += [BadLine(number, "incident_date", w) for w in warnings]
    if outcome.access_code is not None:
        report.access_codes[outcome.subject] = outcome.access_code
    return outcome
