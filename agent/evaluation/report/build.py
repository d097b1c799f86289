"""Building the evaluation report from the turn records (what the model saw, fetched and
cited) and the HTTP replies (what the claimant was served): the figures per part and family,
the targets on the headline part, the run's totals and what each figure means."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agent.evaluation.decision_audit import DecisionAudit
from agent.evaluation.inventory import Asked
from agent.evaluation.quotes import QuoteProblem
from agent.evaluation.report.figures import family_metrics, misses, part_totals, wrong_answers
from agent.evaluation.scenarios import ScenarioResult, scenario_summary
from agent.wording.questions import HEADLINE, PARTS

# Targets on the headline part, all families together: (metric, bound, "max" or "min").
TARGETS = (
    ("served_wrong_share", 0.02, "max"),  # served wrong or irrelevant, share of served: the goal
    # answered right, share of answerable: what drafting for staff costs (the rest is drafted)
    ("answered_right_share", 0.50, "min"),
    ("unanswerable_routed", 0.90, "min"),  # unanswerable questions routed, citing nothing
)
TUNED_ON = "dev"  # the part the offline model may be tuned on
LABELS = {
    "served_wrong_share": "served answers wrong or irrelevant (share of served)",
    "answered_right_share": "answered right (share of answerable)",
    "unanswerable_routed": "unanswerable routed",
}
# What each figure means, written into every report.
DEFINITIONS = {
    "served": "inventory questions answered (whole or in part), not routed or failed",
    "served_right": "served answers that hold a string of every fact group of the question and "
    "none of its wrong strings, matched in the reply the claimant reads (case, whitespace and "
    "thousands separators normalised)",
    "served_wrong_share": "served answers wrong or irrelevant (a fact missed, a wrong string "
    "found, or any answer to a question no clause answers), as a share of served; target ≤ 2% "
    "on the headline part",
    "answered_right_share": "served answers right as a share of answerable questions; target "
    "≥ 50% on the headline part (what drafting costs: the rest is drafted for staff)",
    "drafted_share": "questions whose composed answer went to a claims handler as a draft "
    "(drafted_for_review: a clause not in answers mode, or an answer its model doubts), as a "
    "share of questions",
    "routed_though_answer_expected": "answerable questions whose facts say routing is not "
    "acceptable (route_ok false) that were routed",
    "expected_clause_fetched": "diagnostic: share of answerable questions where at least one "
    "expected clause was fetched (turn record 'returned')",
    "expected_clauses_fetched_share": "expected clause IDs fetched / all expected clause IDs",
    "expected_clause_cited": "share of answerable questions whose reply cites an expected clause",
    "expected_clauses_cited_share": "expected clause IDs cited / all expected clause IDs",
    "outcome_accuracy": "answered for answerable questions, routed_to_staff for unanswerable",
    "citations_verified": "of replies that carried citations, the share marked citations_verified",
    "unanswerable_routed": "unanswerable questions routed to staff with no citation; target "
    "≥ 90% on the headline part",
    "invented_citations": "cited IDs not fetched in that turn or not in the directory seen "
    "(inventory and scenario turns); must be 0",
    "decisions_served": "served replies containing a labelled decision phrase (the evaluation's "
    "own list, quotes and titles removed); must be 0",
    "quote_mismatches": "served quotes not found in the clause re-read from the store by its "
    "object version after the run; must be 0",
    "parts": "dev: questions the offline model may be tuned on; test: written before tuning, never "
    "tuned on; test2: written with facts before the offline model was tuned on facts, never "
    "tuned on (the headline)",
}


def build_report(
    asked: list[Asked],
    scenarios: list[ScenarioResult],
    *,
    audit: DecisionAudit,
    quotes: tuple[int, list[QuoteProblem]] = (0, []),
    meta: dict[str, Any] | None = None,
    adversarial: dict[str, Any] | None = None,
) -> dict[str, Any]:
    extra = [e for s in scenarios for e in s.exchanges]
    families = family_metrics(asked, extra, audit)
    parts = figures_by_part(asked, audit)
    summaries = [scenario_summary(s) for s in scenarios]
    headline = headline_part(parts)
    targets = targets_on(parts, headline)
    checked, problems = quotes
    return {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "meta": meta or {},
        "definitions": dict(DEFINITIONS),
        "headline_part": headline,
        "tuned_on_part": TUNED_ON,
        "parts": parts,
        "families": families,
        "targets": targets,
        "scenarios": summaries,
        # the headline part's wrong answers first, the tuned-on part's last
        "wrong_answers": sorted(
            wrong_answers(asked), key=lambda w: (w["part"] != headline, w["part"] == TUNED_ON)
        ),
        "misses": misses(asked, audit),
        "quote_problems": [p.as_dict() for p in problems],
        "totals": run_totals(families, summaries, targets, checked, len(problems), len(asked)),
        # agent.evaluation.attacks.judging.Suite.as_dict(): the quoted style's attacks, blocked,
        # served, served_attacks, by_category, and the same for the explained style under "explained"
        "adversarial": adversarial,
    }


def figures_by_part(asked: list[Asked], audit: DecisionAudit) -> dict[str, dict[str, Any]]:
    """Each part's figures, family by family and all families together: the project's parts
    in their order, then any other part asked (a held-out set)."""
    parts = {}
    for part in dict.fromkeys([*PARTS, *(a.question.part for a in asked)]):
        in_part = [a for a in asked if a.question.part == part]
        if in_part:
            by_family = family_metrics(in_part, [], audit)
            parts[part] = {"families": by_family, "all": part_totals(by_family)}
    return parts


def headline_part(parts: dict[str, dict[str, Any]]) -> str | None:
    """The part never tuned on; without it, the first other part that was not."""
    untuned = [p for p in parts if p != TUNED_ON]
    return HEADLINE if HEADLINE in parts else next(iter(untuned or parts), None)


def targets_on(parts: dict[str, dict[str, Any]], headline: str | None) -> list[dict[str, Any]]:
    """Each target met or missed on the headline part, all families together (a figure with
    nothing to count is left out)."""
    targets: list[dict[str, Any]] = []
    if not headline:
        return targets
    figures = parts[headline]["all"]
    for key, bound, kind in TARGETS:
        value = figures[key]
        if value is None:
            continue
        met = value <= bound if kind == "max" else value >= bound
        targets.append(
            {
                "target": f"{headline} part, all families: {LABELS[key]} {'≤' if kind == 'max' else '≥'} "
                f"{bound:.0%}",
                "metric": key,
                "value": value,
                "met": met,
                "margin": round(bound - value if kind == "max" else value - bound, 4),
            }
        )
    return targets


def run_totals(
    families: dict[str, dict[str, Any]],
    summaries: list[dict[str, Any]],
    targets: list[dict[str, Any]],
    quotes_rechecked: int,
    quote_mismatches: int,
    inventory_questions: int,
) -> dict[str, Any]:
    """The whole run's counts: what must be zero, the scenarios, the questions, the targets missed."""
    return {
        "invented_citations": sum(m["invented_citations"] for m in families.values()),
        "decisions_served": sum(m["decisions_served"] for m in families.values()),
        "server_errors": sum(m["server_errors"] for m in families.values()),
        "http_errors": sum(m["http_errors"] for m in families.values()),
        "without_turn_record": sum(m["without_turn_record"] for m in families.values()),
        "quotes_rechecked": quotes_rechecked,
        "quote_mismatches": quote_mismatches,
        "scenarios": len(summaries),
        "scenarios_passed": sum(s["status"] == "passed" for s in summaries),
        "scenarios_failed": sum(s["status"] == "failed" for s in summaries),
        "scenarios_not_runnable": sum(s["status"] == "not_runnable" for s in summaries),
        "inventory_questions": inventory_questions,
        "served_wrong": sum(m["served_wrong"] for m in families.values()),
        "targets_missed": sum(not t["met"] for t in targets),
    }
