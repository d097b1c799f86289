"""The first load from the insurer's policy system: one policy with its terms per JSON line,
through the same intake code as the API. Bad lines are reported (line number, field,
problem) and skipped; every good line is loaded in its own transaction."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import ValidationError
from sqlalchemy.orm import sessionmaker

from agent.policy.intake import IntakeRefused, PolicyIn, upsert_policy


@dataclass(frozen=True)
class BadLine:
    line: int
    field: str
    problem: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.field}: {self.problem}"


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)


def problems(line: int, exc: ValidationError) -> list[BadLine]:
    return [
        BadLine(
            line, ".".join(str(p) for p in err["loc"]) or "line", err["msg"].removeprefix("Value error, ")
        )
        for err in exc.errors()
    ]


def import_policies(sessions: sessionmaker, lines: Iterable[str], actor: str) -> ImportReport:
    report = ImportReport()
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            data = PolicyIn.model_validate(json.loads(text))
        except json.JSONDecodeError as exc:
            report.bad.append(BadLine(number, "line", f"not JSON ({exc.msg} at column {exc.colno})"))
            continue
        except ValidationError as exc:
            report.bad.extend(problems(number, exc))
            continue
        try:
            with sessions.begin() as session:
                outcome = upsert_policy(session, data, actor)
        except IntakeRefused as exc:
            report.bad.append(BadLine(number, exc.field, exc.problem))
            continue
        bucket = (
            report.created if outcome.created else report.updated if outcome.changed else report.unchanged
        )
        bucket.append(data.policy_number)
    return report
