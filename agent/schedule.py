"""The claimant's schedule as the runtime and the model see it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.db import Policy, Schedule


@dataclass
class ScheduleView:
    """What the model is told about the claimant's schedule."""

    plan: str
    sections: list[str]
    excess: dict[str, Any]
    sums_insured: dict[str, Any]
    details: dict[str, Any]

    @classmethod
    def of(cls, policy: Policy, schedule: Schedule) -> ScheduleView:
        return cls(
            policy.plan,
            list(schedule.sections),
            dict(schedule.excess),
            dict(schedule.sums_insured),
            dict(schedule.details),
        )

    def summary(self) -> str:
        sections = ", ".join(self.sections) or "none"
        excess = ", ".join(f"{k} {_nzd(v)}" for k, v in self.excess.items()) or "none shown"
        sums = ", ".join(f"{k} {_nzd(v)}" for k, v in self.sums_insured.items()) or "none shown"
        details = "; ".join(f"{k}: {v}" for k, v in self.details.items())
        return (
            f"plan {self.plan}; optional sections listed: {sections}; excess: {excess}; "
            f"sums insured: {sums}" + (f"; {details}" if details else "")
        )

    def as_tool_data(self) -> dict[str, Any]:
        return {"plan": self.plan, "sections_listed": self.sections, "summary": self.summary()}


def _nzd(value: Any) -> str:
    return f"NZD {value:,}" if isinstance(value, int | float) else str(value)
