"""The bar what is served must meet: a statistical statement, not a count.

A subject (a clause, or a pooled rule: agent.answering.gate) meets the bar when the one-sided
95 % Clopper–Pearson upper bound of its served-wrong share (wrong and irrelevant both count),
over the answers it was measured on, is at most X % (agent.settings: bar_wrong_percent, 5 by
default). The bound says what the evidence supports: 0 wrong of 21 still allows about 13 %, so
at 5 % a subject needs 59 right served answers and none wrong, or 93 with one wrong.

This replaces the earlier counts (5 questions per clause, 20 per wording): the bound already
demands more than they did, and it grows with every wrong answer where a count would not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from agent.answering.evidence import SERVED
from agent.settings import Settings

CONFIDENCE = 0.95


def _log_binom_cdf(k: int, n: int, p: float) -> float:
    """log P(X <= k) for X ~ Binomial(n, p), summed in log space (n is at most thousands)."""
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 0.0 if k >= n else -math.inf
    terms = [
        math.lgamma(n + 1)
        - math.lgamma(i + 1)
        - math.lgamma(n - i + 1)
        + i * math.log(p)
        + (n - i) * math.log1p(-p)
        for i in range(k + 1)
    ]
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def upper_bound(wrong: int, served: int, confidence: float = CONFIDENCE) -> float:
    """One-sided Clopper–Pearson upper bound of the wrong share: the p at which seeing `wrong` or
    fewer of `served` has probability 1 - confidence. Nothing served: 1 (nothing is known)."""
    if served <= 0 or wrong >= served:
        return 1.0
    if wrong < 0:
        raise ValueError("wrong must be 0 or more")
    target = math.log(1.0 - confidence)
    low, high = wrong / served, 1.0
    for _ in range(60):  # bisection: the CDF falls as p grows
        mid = (low + high) / 2
        if _log_binom_cdf(wrong, served, mid) > target:
            low = mid
        else:
            high = mid
    return high


@dataclass(frozen=True)
class Bar:
    wrong_percent: float

    @classmethod
    def of(cls, settings: Settings) -> Bar:
        return cls(settings.bar_wrong_percent)

    @property
    def limit(self) -> float:
        return self.wrong_percent / 100

    def describe(self) -> str:
        return (
            f"served answers wrong or irrelevant at most {self.wrong_percent:g}% at "
            f"{CONFIDENCE:.0%} confidence (one-sided Clopper–Pearson upper bound)"
        )

    def met(self, wrong: int, served: int) -> bool:
        return served > 0 and upper_bound(wrong, served) <= self.limit

    def more_needed(self, wrong: int, served: int, *, most: int = 5000) -> int | None:
        """How many more right served answers would let `wrong` of `served` meet the bar; None
        when even `most` more would not (or the bar is 0 %)."""
        if self.met(wrong, served):
            return 0
        if self.limit <= 0 or not self.met(wrong, served + most):
            return None
        low, high = 0, most
        while low < high:  # the bound falls as right answers are added
            mid = (low + high) // 2
            if self.met(wrong, served + mid):
                high = mid
            else:
                low = mid + 1
        return low


@dataclass(frozen=True)
class Figures:
    """A subject's served answers on the evidence measured, and what the bar makes of them."""

    subject: str
    served: int
    wrong: int  # wrong or irrelevant
    upper: float
    meets: bool
    more_needed: int | None
    # Served answers to questions the rule was tuned on, left out of its figures (a pooled rule
    # on the part its model or its closeness was tuned on: agent.answering.measured).
    not_counted: int = 0

    @classmethod
    def of(cls, bar: Bar, subject: str, served: int, wrong: int, not_counted: int = 0) -> Figures:
        return cls(
            subject,
            served,
            wrong,
            upper_bound(wrong, served),
            bar.met(wrong, served),
            bar.more_needed(wrong, served),
            not_counted,
        )

    def line(self) -> str:
        if not self.served:
            return "no served answer measured"
        return (
            f"{self.wrong} of {self.served} served answers wrong or irrelevant, upper bound "
            f"{self.upper:.1%} at {CONFIDENCE:.0%}"
        )

    def misses(self, bar: Bar) -> list[str]:
        """What keeps the subject under the bar, in plain words with the figures; empty: it meets it."""
        if self.meets:
            return []
        left_out = (
            f" ({self.not_counted} served answers to questions it was tuned on are not counted)"
            if self.not_counted
            else ""
        )
        if not self.served:
            return [f"no served answer measured{left_out}"]
        more = (
            f"; {self.more_needed} more right answers would meet it"
            if self.more_needed
            else "; no number of right answers would meet it"
        )
        return [f"{self.line()}, above the bar's {bar.wrong_percent:g}%{more}{left_out}"]


@dataclass(frozen=True)
class Scored:
    """One measured answer: the subjects it counts for and how it scored."""

    key: str
    subjects: tuple[str, ...]
    outcome: str | None  # right | wrong | irrelevant | routed | None (not scored)
    uncounted: tuple[str, ...] = ()  # subjects it would count for but that were tuned on it


def figures(bar: Bar, rows: Iterable[Scored], subject: str) -> Figures:
    rows = [r for r in rows if r.outcome in SERVED]
    served = [r for r in rows if subject in r.subjects]
    left_out = sum(subject in r.uncounted for r in rows)
    return Figures.of(bar, subject, len(served), sum(r.outcome != "right" for r in served), left_out)


def all_figures(bar: Bar, rows: Iterable[Scored]) -> dict[str, Figures]:
    """Every subject the rows name (counted or not), with its figures."""
    rows = list(rows)
    subjects = dict.fromkeys(s for r in rows for s in (*r.subjects, *r.uncounted))
    return {s: figures(bar, rows, s) for s in subjects}
