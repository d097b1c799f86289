"""The bar's arithmetic, without a server (the verdict on a draft: test_verdicts.py)."""

from __future__ import annotations

from agent.answering.bar import Bar, Scored, figures, misses

BAR = Bar(per_clause=5, per_wording=20, wrong_percent=5.0)


def rows(right: int, wrong: int, unscored: int = 0) -> list[Scored]:
    made = [Scored(f"r{i}", ("A",), ("A",), "right") for i in range(right)]
    made += [Scored(f"w{i}", ("A",), ("A",), "wrong") for i in range(wrong)]
    return made + [Scored(f"u{i}", ("A",), (), None) for i in range(unscored)]


def test_a_clause_meets_the_bar_at_the_threshold_and_misses_it_just_above() -> None:
    assert misses(BAR, figures(rows(19, 1), "A"), 20) == []  # 5 % exactly
    assert misses(BAR, figures(rows(18, 1), "A"), 20) == [
        "1 of 19 served answers wrong or irrelevant (5.3%), at most 5% allowed"
    ]


def test_too_few_questions_or_nothing_served_is_below_the_bar() -> None:
    assert misses(BAR, figures(rows(0, 0, unscored=7), "A"), 7) == [
        "7 evidence questions on the wording, 20 needed",
        "no served answer measured",
    ]
    assert misses(BAR, figures(rows(4, 0), "A"), 30) == ["4 evidence questions on the clause, 5 needed"]
    # A question about another clause counts for the wording, not for this clause.
    other = [Scored("o", ("B",), ("B",), "right")]
    assert figures(rows(5, 0) + other, "A").questions == 5
