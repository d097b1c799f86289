"""The bar is a statistical statement: the one-sided 95 % Clopper–Pearson upper bound of the
served-wrong share, checked against closed forms and published values."""

from __future__ import annotations

import math

import pytest

from agent.answering.bar import Bar, Figures, Scored, all_figures, upper_bound


@pytest.mark.parametrize("served", [1, 5, 21, 59, 200])
def test_with_nothing_wrong_the_bound_is_the_closed_form(served: int) -> None:
    assert upper_bound(0, served) == pytest.approx(1 - 0.05 ** (1 / served), abs=1e-9)


@pytest.mark.parametrize(
    ("wrong", "served", "published"),
    # The 0.95 quantile of Beta(wrong + 1, served - wrong), from mpmath's regularized incomplete beta.
    [(1, 10, 0.3942), (2, 20, 0.2826), (5, 50, 0.1988), (1, 93, 0.0500)],
)
def test_with_wrong_answers_the_bound_matches_published_values(
    wrong: int, served: int, published: float
) -> None:
    assert upper_bound(wrong, served) == pytest.approx(published, abs=1e-4)


def test_nothing_served_or_everything_wrong_knows_nothing() -> None:
    assert upper_bound(0, 0) == 1.0
    assert upper_bound(3, 3) == 1.0


def test_five_right_answers_say_little_and_the_bar_says_how_many_more_would_do() -> None:
    bar = Bar(5.0)
    assert not bar.met(0, 21) and upper_bound(0, 21) == pytest.approx(0.1329, abs=1e-4)
    assert bar.more_needed(0, 21) == 38  # 59 right answers and none wrong meet 5 %
    assert bar.met(0, 59) and not bar.met(0, 58)
    assert bar.more_needed(1, 21) == 72  # one wrong answer: 93 served
    assert bar.more_needed(3, 3) is not None and Bar(0.0).more_needed(0, 10) is None


def test_figures_count_wrong_and_irrelevant_against_every_subject_they_served() -> None:
    rows = [
        Scored("q1", ("MTR-BEN-03", "#model"), "right"),
        Scored("q2", ("MTR-BEN-03", "#model"), "wrong"),
        Scored("q3", ("#schedule", "#model"), "irrelevant"),
        Scored("q4", ("MTR-COV-01", "#model"), "routed"),  # not served: counts for nothing
    ]
    found = all_figures(Bar(50.0), rows)
    assert (found["MTR-BEN-03"].served, found["MTR-BEN-03"].wrong) == (2, 1)
    assert (found["#model"].served, found["#model"].wrong) == (3, 2)
    assert found["MTR-COV-01"].served == 0 and found["MTR-COV-01"].misses(Bar(50.0)) == [
        "no served answer measured"
    ]
    [why] = Figures.of(Bar(5.0), "MTR-BEN-03", 21, 0).misses(Bar(5.0))
    assert why == (
        "0 of 21 served answers wrong or irrelevant, upper bound 13.3% at 95%, above the bar's 5%; "
        "38 more right answers would meet it"
    )
    assert math.isclose(Figures.of(Bar(5.0), "x", 59, 0).upper, 0.0495, abs_tol=1e-4)


def test_the_pooled_rules_never_count_the_part_they_were_calibrated_on() -> None:
    from agent.answering.check_report import Asked, QuestionRow
    from agent.answering.measured import scored_rows

    def row(key: str, part: str) -> QuestionRow:
        subjects = ("MTR-BEN-03", "#near", "#model")
        return QuestionRow(
            id=key, part=part, candidate=Asked(outcome="answered", right=True, subjects=subjects)
        )

    dev, staff = scored_rows([row("q1", "dev"), row("q2", "staff")])
    assert dev.subjects == ("MTR-BEN-03",) and staff.subjects == ("MTR-BEN-03", "#near", "#model")
    # A model not tuned on the dev part (any but the offline one) counts it for #model, never for #near.
    dev, _ = scored_rows([row("q1", "dev"), row("q2", "staff")], model_tuned=False)
    assert dev.subjects == ("MTR-BEN-03", "#model") and staff.subjects == ("MTR-BEN-03", "#near", "#model")


def test_answers_a_rule_was_tuned_on_are_counted_apart_and_said() -> None:
    rows = [
        Scored("q1", ("MTR-BEN-03",), "right", uncounted=("#model",)),
        Scored("q2", ("MTR-BEN-03",), "wrong", uncounted=("#model",)),
        Scored("q3", (), "routed", uncounted=("#model",)),  # not served: nothing left out
    ]
    found = all_figures(Bar(5.0), rows)
    assert (found["#model"].served, found["#model"].not_counted) == (0, 2)
    assert (found["MTR-BEN-03"].served, found["MTR-BEN-03"].not_counted) == (2, 0)
    assert found["#model"].misses(Bar(5.0)) == [
        "no served answer measured (2 served answers to questions it was tuned on are not counted)"
    ]
    [why] = Figures.of(Bar(5.0), "#model", 21, 0, not_counted=30).misses(Bar(5.0))
    assert why.endswith(
        "38 more right answers would meet it (30 served answers to questions it was tuned on are not counted)"
    )
