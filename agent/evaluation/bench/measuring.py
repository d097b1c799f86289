"""What every measurement of the bench shares: the turn it asks (QUESTION, and RATE, the
span its answer quotes) and the percentile its figures are read at."""

from __future__ import annotations

RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
QUESTION = "Can I get a rental car while mine is being repaired?"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]
