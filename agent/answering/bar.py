"""The bar a clause's evidence must meet to answer claimants: at least N evidence questions on
the clause and M on its wording, and of the answers served for them, wrong or irrelevant at most
X % (agent.settings: bar_questions_per_clause, bar_questions_per_wording, bar_wrong_percent).

A served answer counts for every clause it quoted; a question counts for every clause it names
(what a right answer cites, and what was served). With no served answer measured, a clause has
no precision to show, so it does not meet the bar either.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agent.answering.evidence import SERVED
from agent.settings import Settings


@dataclass(frozen=True)
class Bar:
    per_clause: int
    per_wording: int
    wrong_percent: float

    @classmethod
    def of(cls, settings: Settings) -> Bar:
        return cls(
            settings.bar_questions_per_clause, settings.bar_questions_per_wording, settings.bar_wrong_percent
        )

    def describe(self) -> str:
        return (
            f"at least {self.per_clause} evidence questions on the clause and {self.per_wording} on the "
            f"wording, served answers wrong or irrelevant at most {self.wrong_percent:g}%"
        )


@dataclass(frozen=True)
class Scored:
    """One evidence question as the bar weighs it."""

    key: str
    clauses: tuple[str, ...]  # what a right answer cites
    served: tuple[str, ...]  # the clauses what was served (or drafted) for it quoted
    outcome: str | None  # right | wrong | irrelevant | routed | None (not scored)

    @property
    def named(self) -> set[str]:
        return {*self.clauses, *self.served}


@dataclass(frozen=True)
class Figures:
    clause_id: str
    questions: int
    served: int
    wrong: int  # wrong or irrelevant

    @property
    def wrong_share(self) -> float | None:
        return self.wrong / self.served if self.served else None

    def line(self) -> str:
        share = "none served" if self.wrong_share is None else f"{self.wrong_share:.0%} wrong or irrelevant"
        return f"{self.questions} questions, {self.served} served, {self.wrong} wrong or irrelevant ({share})"


def figures(rows: Iterable[Scored], clause_id: str) -> Figures:
    rows = list(rows)
    questions = sum(clause_id in r.named for r in rows)
    served = [r for r in rows if r.outcome in SERVED and clause_id in r.served]
    wrong = sum(r.outcome != "right" for r in served)
    return Figures(clause_id, questions, len(served), wrong)


def over_threshold(bar: Bar, f: Figures) -> bool:
    return f.wrong_share is not None and f.wrong_share * 100 > bar.wrong_percent


def misses(bar: Bar, f: Figures, wording_questions: int) -> list[str]:
    """What keeps a clause under the bar, each in plain words with the figures; empty: it meets it."""
    found = []
    if f.questions < bar.per_clause:
        found.append(f"{f.questions} evidence questions on the clause, {bar.per_clause} needed")
    if wording_questions < bar.per_wording:
        found.append(f"{wording_questions} evidence questions on the wording, {bar.per_wording} needed")
    if f.served == 0:
        found.append("no served answer measured")
    elif over_threshold(bar, f):
        found.append(
            f"{f.wrong} of {f.served} served answers wrong or irrelevant ({f.wrong_share:.1%}), "
            f"at most {bar.wrong_percent:g}% allowed"
        )
    return found
