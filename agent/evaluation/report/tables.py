"""The report's tables, shared by the text and the page: their rows (what is right for the
claimant first, then the diagnostics), columns (a part's families and all of them, the
headline part first) and cells."""

from __future__ import annotations

from typing import Any


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


# Right for this claimant: what the report leads with.
FACT_ROWS = (
    ("questions", "questions (answerable / unanswerable)"),
    ("served", "served (answered, whole or in part)"),
    ("served_right", "served answers right"),
    ("served_wrong_share", "served answers wrong or irrelevant (% of served; ≤ 2%)"),
    ("answered_right_share", "answered right (% of answerable; ≥ 50%)"),
    ("unanswerable_routed", "unanswerable routed (≥ 90%)"),
    ("drafted_share", "drafted for a claims handler (% of questions)"),
    ("routed_though_answer_expected", "routed though an answer was expected"),
)


# Diagnostics: which clauses the model fetched and cited, and what must be zero.
ROWS = (
    ("expected_clause_fetched", "expected clause fetched (≥1 per question)"),
    ("expected_clauses_fetched_share", "expected clauses fetched (share of IDs)"),
    ("expected_clause_cited", "expected clause cited (≥1 per question)"),
    ("expected_clauses_cited_share", "expected clauses cited (share of IDs)"),
    ("outcome_accuracy", "outcome accuracy"),
    ("citations_verified", "citations verified"),
    ("invented_citations", "invented citations (must be 0)"),
    ("decisions_served", "decisions served (must be 0)"),
)


def cell(metrics: dict[str, Any], key: str) -> str:
    if key == "questions":
        return f"{metrics['questions']} ({metrics['answerable']}/{metrics['unanswerable']})"
    if key == "served_wrong_share" and "served_wrong" in metrics:
        return f"{metrics['served_wrong']} ({pct(metrics[key])})"
    if key not in metrics:
        return "-"
    value = metrics[key]
    return str(value) if isinstance(value, int) else pct(value)


def part_heading(report: dict[str, Any], part: str) -> str:
    if part == report.get("headline_part"):
        return f"{part} (headline, never tuned on)"
    if part == report.get("tuned_on_part"):
        return f"{part} (tuned on)"
    return f"{part} (never tuned on)"


def part_columns(report: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(heading, metrics) per column: the headline part's families and 'all' first, then the
    other parts, the tuned-on part last."""
    order = sorted(
        report["parts"],
        key=lambda p: (p != report.get("headline_part"), p == report.get("tuned_on_part"), p),
    )
    columns = []
    for part in order:
        for family, m in report["parts"][part]["families"].items():
            columns.append((f"{part} {family}", m))
        columns.append((f"{part} all", report["parts"][part]["all"]))
    return columns
