"""The claimant's schedule as the runtime, the model and people see it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agent.db.tables import Policy, Schedule
from knowledge.clauses import Directory


@dataclass(frozen=True)
class ScheduleView:
    """The schedule of one policy: listed optional sections, excesses, sums insured, details,
    and the human labels of their keys (kept with the schedule, see agent.seed)."""

    plan: str
    sections: list[str]
    excess: dict[str, Any]
    sums_insured: dict[str, Any]
    details: dict[str, Any]
    labels: dict[str, str] = field(default_factory=dict)
    # The governing wording's currency (its header): schedule amounts are in it.
    currency: str = "NZD"

    @classmethod
    def of(cls, policy: Policy, schedule: Schedule) -> ScheduleView:
        return cls(
            policy.plan,
            list(schedule.sections),
            dict(schedule.excess),
            dict(schedule.sums_insured),
            dict(schedule.details),
            dict(schedule.labels or {}),
        )

    def on_plan(self, plans: tuple[str, ...] | list[str]) -> bool:
        """Whether this schedule's plan is one of `plans`. Plan names as a wording prints them
        ("Third Party only") and as the insurer's system sends them ("Third Party Only")
        differ in case only."""
        return self.plan.casefold() in {p.casefold() for p in plans}

    def holds(self, plans: tuple[str, ...] | list[str]) -> bool:
        """Whether a clause of these plans is on this schedule's plan: one that names no plan
        is on every plan."""
        return not plans or self.on_plan(plans)

    def label(self, key: str) -> str:
        """The schedule's own label for a key; a key without one is still shown as words."""
        return self.labels.get(key) or key.replace("_", " ").capitalize()

    def optional_sections(self) -> list[str]:
        """Listed sections, and the labelled ones this schedule could list but does not."""
        keyed = {*self.excess, *self.sums_insured, *self.details}
        return list(dict.fromkeys([*self.sections, *(k for k in self.labels if k not in keyed)]))

    def keys(self) -> list[str]:
        """What a selection may name as a schedule fact. Details (address, registration) are
        not facts an answer rests on, so no figure can be borrowed from them."""
        return ["plan", *self.optional_sections(), *self.excess, *self.sums_insured]

    def fact(self, key: str) -> tuple[str, str] | None:
        """One schedule fact as (label, value) the way a person reads it; None for no such key."""
        if key == "plan":
            return ("Plan", self.plan)
        if key in self.excess:
            return (self.label(key), amount(self.excess[key], self.currency))
        if key in self.sums_insured:
            return (self.label(key), amount(self.sums_insured[key], self.currency))
        if key in self.optional_sections():
            return (self.label(key), "included" if key in self.sections else "not included")
        return None

    def facts(self) -> list[str]:
        """The schedule the way a person reads it: "Alternative transport: included"."""
        keyed = [self.fact(k) for k in self.keys()]
        lines = [f"{label}: {value}" for label, value in (f for f in keyed if f)]
        return lines + [f"{self.label(k)}: {v}" for k, v in self.details.items()]

    def summary(self) -> str:
        """What the model is told: keys as the clauses name them, values as the schedule holds them."""
        sections = ", ".join(self.sections) or "none"
        money = self.currency
        excess = ", ".join(f"{k} {amount(v, money)}" for k, v in self.excess.items()) or "none shown"
        sums = ", ".join(f"{k} {amount(v, money)}" for k, v in self.sums_insured.items()) or "none shown"
        details = "; ".join(f"{k}: {v}" for k, v in self.details.items())
        return (
            f"plan {self.plan}; optional sections listed: {sections}; excess: {excess}; "
            f"sums insured: {sums}" + (f"; {details}" if details else "")
        )


def amount(value: Any, currency: str = "NZD") -> str:
    """The one place amounts are formatted for people: the currency's code and the figure (the
    figure alone where the currency is not known)."""
    if not isinstance(value, int | float):
        return str(value)
    return f"{currency} {value:,}" if currency else f"{value:,}"


def unnamed_sections(directory: Directory, sections: Iterable[str]) -> tuple[list[str], list[str]]:
    """The schedule's sections or endorsements no clause of the wording names (the runtime adds,
    removes or changes nothing by them), and the ones the wording does name."""
    known = sorted({s for e in directory.entries for s in (*e.added_by, *e.removed_by, *e.changed_by)})
    return [s for s in sections if s not in known], known
