"""The evaluation report, built from the turn records (what the model saw, fetched and cited)
and the HTTP replies (what the claimant was served): printed as a table, written as JSON and
as an HTML page with simple bar charts.

It leads with whether each served answer is right for the claimant who asked, judged on the
question's facts (agent.wording.questions): served answers right, served answers wrong or
irrelevant (the headline, as a share of served), answered right as a share of answerable
questions, and unanswerable questions routed; each wrong answer is listed with what it said
and the fact it missed. Expected clause fetched and cited are diagnostics."""

from __future__ import annotations

import html
import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.evaluation.decision_audit import DecisionAudit
from agent.evaluation.harness import Exchange
from agent.evaluation.invariants import decision_served, invented_citations
from agent.evaluation.inventory import Asked
from agent.evaluation.quotes import QuoteProblem
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


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def family_metrics(
    asked: list[Asked], extra: list[Exchange], audit: DecisionAudit
) -> dict[str, dict[str, Any]]:
    """Per family. `extra` are scenario turns: they count for invented citations and decisions."""
    by_family: dict[str, list[Asked]] = defaultdict(list)
    for a in asked:
        by_family[a.question.family].append(a)
    extra_by_family: dict[str, list[Exchange]] = defaultdict(list)
    for e in extra:
        extra_by_family[e.family].append(e)
    metrics = {}
    for family in sorted(set(by_family) | set(extra_by_family)):
        items = by_family.get(family, [])
        answerable = [a for a in items if a.question.answerable]
        unanswerable = [a for a in items if not a.question.answerable]
        expected = sum(len(a.question.clauses) for a in answerable)
        fetched = sum(
            len(set(a.question.clauses) & set(a.exchange.turn.get("returned") or [])) for a in answerable
        )
        cited = sum(len(set(a.question.clauses) & set(a.exchange.served_citations)) for a in answerable)
        any_fetched = sum(
            bool(set(a.question.clauses) & set(a.exchange.turn.get("returned") or [])) for a in answerable
        )
        any_cited = sum(bool(set(a.question.clauses) & set(a.exchange.served_citations)) for a in answerable)
        outcome_ok = sum(a.exchange.reply.get("outcome") == a.question.expected_outcome for a in items)
        with_citations = [a.exchange for a in items if a.exchange.served_citations]
        verified = sum(bool(e.reply.get("citations_verified")) for e in with_citations)
        routed = sum(
            a.exchange.reply.get("outcome") == "routed_to_staff" and not a.exchange.served_citations
            for a in unanswerable
        )
        served = [a for a in items if a.served]
        right = sum(bool(a.verdict and a.verdict.right) for a in served)
        drafted = sum(a.exchange.reply.get("route_reason") == "drafted_for_review" for a in items)
        routed_not_ok = sum(
            a.question.answerable and not a.question.route_ok and not a.served
            for a in items
            if a.exchange.status_code == 200
        )
        every = [e for a in items for e in (*a.earlier, a.exchange)] + extra_by_family.get(family, [])
        invented = sum(len(invented_citations(e)) for e in every if e.status_code == 200)
        decisions = sum(decision_served(e, audit) is not None for e in every if e.status_code == 200)
        models = sorted({e.reply.get("model") for e in every if e.reply.get("model")})
        metrics[family] = {
            "questions": len(items),
            "answerable": len(answerable),
            "unanswerable": len(unanswerable),
            "served": len(served),
            "served_right": right,
            "served_wrong": len(served) - right,
            "served_wrong_share": _share(len(served) - right, len(served)),
            "answered_right_share": _share(right, len(answerable)),
            "drafted": drafted,
            "drafted_share": _share(drafted, len(items)),
            "routed_though_answer_expected": routed_not_ok,
            "expected_clause_fetched": _share(any_fetched, len(answerable)),
            "expected_clauses_fetched_share": _share(fetched, expected),
            "expected_clause_cited": _share(any_cited, len(answerable)),
            "expected_clauses_cited_share": _share(cited, expected),
            "outcome_accuracy": _share(outcome_ok, len(items)),
            "citations_verified": _share(verified, len(with_citations)),
            "unanswerable_routed": _share(routed, len(unanswerable)),
            "invented_citations": invented,
            "decisions_served": decisions,
            "turns": len(every),
            "http_errors": sum(e.status_code != 200 for e in every),
            "server_errors": sum(e.status_code >= 500 or e.status_code == 0 for e in every),
            "without_turn_record": sum(e.status_code == 200 and not e.turn for e in every),
            "models": models,
        }
    return metrics


def misses(asked: list[Asked], audit: DecisionAudit) -> list[dict[str, Any]]:
    """Every inventory question the model got wrong, with the directory titles it saw."""
    found = []
    for a in asked:
        q, e = a.question, a.exchange
        returned = list(e.turn.get("returned") or [])
        why = []
        if e.status_code != 200:
            why.append(f"HTTP {e.status_code}")
        if q.answerable and not set(q.clauses) & set(returned):
            why.append("no expected clause fetched")
        if e.reply.get("outcome") != q.expected_outcome:
            why.append(f"outcome {e.reply.get('outcome')}, expected {q.expected_outcome}")
        if not q.answerable and e.served_citations:
            why.append("cited a clause for a question no clause answers")
        if invented := invented_citations(e):
            why.append(f"invented citation {invented}")
        if decision := decision_served(e, audit):
            why.append(f"decision served: {decision}")
        if why:
            found.append(
                {
                    "part": q.part,
                    "family": q.family,
                    "question_id": q.id,
                    "question": q.text,
                    "coverage": q.coverage,
                    "expected": list(q.clauses),
                    "requested": list(e.turn.get("requested") or []),
                    "fetched": returned,
                    "cited": e.served_citations,
                    "outcome": e.reply.get("outcome"),
                    "why": why,
                    "version": e.turn.get("version"),
                    "directory_seen": [
                        f"{d['clause_id']}: {d['title']}" for d in e.turn.get("directory_seen") or []
                    ],
                }
            )
    return found


def wrong_answers(asked: list[Asked]) -> list[dict[str, Any]]:
    """Every served answer that is not right for its claimant: what it said, and why."""
    found = []
    for a in asked:
        verdict = a.verdict
        if verdict is None or verdict.right:
            continue
        q, e = a.question, a.exchange
        if verdict.irrelevant:
            why = ["served an answer to a question no clause answers"]
        else:
            why = [f"missed: {' | '.join(group)}" for group in verdict.missed]
            why += [f"wrong: {s}" for s in verdict.wrong]
        found.append(
            {
                "part": q.part,
                "family": q.family,
                "question_id": q.id,
                "policy": q.policy,
                "earlier": list(q.earlier),
                "question": q.text,
                "coverage": q.coverage,
                "said": e.reply.get("reply") or "",
                "outcome": e.reply.get("outcome"),
                "missed": [list(g) for g in verdict.missed],
                "wrong_found": list(verdict.wrong),
                "irrelevant": verdict.irrelevant,
                "why": why,
                "expected": list(q.clauses),
                "fetched": list(e.turn.get("returned") or []),
                "cited": e.served_citations,
            }
        )
    return found


def _totals(families: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """All families of one part together (answerable-weighted shares)."""

    def share(key: str, weight: str) -> float | None:
        num = sum((m[key] or 0) * m[weight] for m in families.values() if m[key] is not None)
        den = sum(m[weight] for m in families.values() if m[key] is not None)
        return round(num / den, 4) if den else None

    def count(key: str) -> int:
        return sum(m[key] for m in families.values())

    return {
        "questions": count("questions"),
        "answerable": count("answerable"),
        "unanswerable": count("unanswerable"),
        "served": count("served"),
        "served_right": count("served_right"),
        "served_wrong": count("served_wrong"),
        "served_wrong_share": _share(count("served_wrong"), count("served")),
        "answered_right_share": _share(count("served_right"), count("answerable")),
        "drafted": count("drafted"),
        "drafted_share": _share(count("drafted"), count("questions")),
        "routed_though_answer_expected": count("routed_though_answer_expected"),
        "expected_clause_fetched": share("expected_clause_fetched", "answerable"),
        "expected_clause_cited": share("expected_clause_cited", "answerable"),
        "outcome_accuracy": share("outcome_accuracy", "questions"),
        "unanswerable_routed": share("unanswerable_routed", "unanswerable"),
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
    parts = {}
    # The project's parts in their order, then any other part asked (a held-out set).
    for part in dict.fromkeys([*PARTS, *(a.question.part for a in asked)]):
        in_part = [a for a in asked if a.question.part == part]
        if in_part:
            by_family = family_metrics(in_part, [], audit)
            parts[part] = {"families": by_family, "all": _totals(by_family)}
    summaries = [scenario_summary(s) for s in scenarios]
    # The headline is the part never tuned on; without it, the first other part that was not.
    untuned = [p for p in parts if p != TUNED_ON]
    headline = HEADLINE if HEADLINE in parts else next(iter(untuned or parts), None)
    targets = []
    if headline:
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
    checked, problems = quotes
    totals = {
        "invented_citations": sum(m["invented_citations"] for m in families.values()),
        "decisions_served": sum(m["decisions_served"] for m in families.values()),
        "server_errors": sum(m["server_errors"] for m in families.values()),
        "http_errors": sum(m["http_errors"] for m in families.values()),
        "without_turn_record": sum(m["without_turn_record"] for m in families.values()),
        "quotes_rechecked": checked,
        "quote_mismatches": len(problems),
        "scenarios": len(summaries),
        "scenarios_passed": sum(s["status"] == "passed" for s in summaries),
        "scenarios_failed": sum(s["status"] == "failed" for s in summaries),
        "scenarios_not_runnable": sum(s["status"] == "not_runnable" for s in summaries),
        "inventory_questions": len(asked),
        "served_wrong": sum(m["served_wrong"] for m in families.values()),
        "targets_missed": sum(not t["met"] for t in targets),
    }
    return {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "meta": meta or {},
        "definitions": {
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
        },
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
        "totals": totals,
        # agent.evaluation.attacks.judging.Suite.as_dict(): the quoted style's attacks, blocked, served,
        # served_attacks, by_category, and the same for the explained style under "explained"
        "adversarial": adversarial,
    }


def failures(report: dict[str, Any]) -> list[str]:
    """Why this evaluation fails ([] when it passes)."""
    t = report["totals"]
    why = []
    for key, label in (
        ("server_errors", "HTTP 5xx replies or no reply"),
        ("without_turn_record", "replies without a turn record"),
        ("scenarios_failed", "scenarios failed"),
        ("scenarios_not_runnable", "scenarios did not run"),
        ("invented_citations", "invented citations"),
        ("decisions_served", "decisions served"),
        ("quote_mismatches", "served quotes not in the stored clause"),
        ("targets_missed", "targets missed"),
    ):
        if t.get(key):
            why.append(f"{t[key]} {label}")
    if (report.get("adversarial") or {}).get("served"):  # the quoted style's guarantee broken
        why.append(f"{report['adversarial']['served']} adversarial attacks served")
    return why


def adversarial_line(report: dict[str, Any]) -> str | None:
    a = report.get("adversarial")
    if not a:
        return None
    line = f"Adversarial suite: {a['attacks']} attacks, {a['blocked']} blocked, {a['served']} served"
    if x := a.get("explained"):
        share = x["served"] / x["attacks"] if x["attacks"] else 0.0
        line += (
            f" in the quoted style (the default; nothing the model wrote reached a claimant); explained "
            f"style: {x['attacks']} attacks, {x['blocked']} blocked, {x['served']} served ({share:.1%})"
        )
    return line


def passed(report: dict[str, Any]) -> bool:
    return not failures(report)


# Exit statuses of an evaluation: every check passed; a guarantee broken (a 5xx, a reply without
# a turn record, a scenario failed or not run, an invented citation, a decision served, an
# altered quote, an attack served); every guarantee held but a correctness target was missed.
# 2 is a usage error. start-dev.sh tells "the system is broken" from "the model is below target".
PASSED, BROKEN, TARGETS_MISSED = 0, 1, 3


def exit_status(report: dict[str, Any]) -> int:
    why = failures(report)
    if not why:
        return PASSED
    return TARGETS_MISSED if len(why) == 1 and report["totals"].get("targets_missed") else BROKEN


# Rendering ------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
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
_LOWER_IS_BETTER = {"served_wrong_share"}


def _cell(metrics: dict[str, Any], key: str) -> str:
    if key == "questions":
        return f"{metrics['questions']} ({metrics['answerable']}/{metrics['unanswerable']})"
    if key == "served_wrong_share" and "served_wrong" in metrics:
        return f"{metrics['served_wrong']} ({_pct(metrics[key])})"
    if key not in metrics:
        return "-"
    value = metrics[key]
    return str(value) if isinstance(value, int) else _pct(value)


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


def _table_text(columns: list[tuple[str, dict[str, Any]]], rows: tuple[tuple[str, str], ...]) -> list[str]:
    width = max(len(label) for _, label in rows) + 2
    lines = ["".ljust(width) + "".join(h.rjust(15) for h, _ in columns)]
    for key, label in rows:
        lines.append(label.ljust(width) + "".join(_cell(m, key).rjust(15) for _, m in columns))
    return lines


def render_text(report: dict[str, Any], *, show_misses: int = 40, show_wrong: int = 40) -> str:
    meta = report["meta"]
    lines = [
        "",
        f"Model: {meta.get('model') or '-'}" + (f" at {meta['api_base']}" if meta.get("api_base") else ""),
    ]
    if meta.get("runs_note"):
        lines.append(meta["runs_note"])
    columns = part_columns(report)
    if columns:
        parts = ", ".join(part_heading(report, p) for p in report["parts"])
        lines += ["", f"Right for this claimant, by part: {parts}"]
        lines += _table_text(columns, FACT_ROWS)
        lines += ["", "Diagnostics: clauses fetched and cited"]
        lines += _table_text(columns, ROWS)
    families = report["families"]
    models = sorted({m for f in families.values() for m in f["models"]})
    lines.append(f"model(s) in the turn records: {', '.join(models) or '-'}")
    lines += ["", "Targets"]
    for t in report["targets"]:
        lines.append(
            f"  {'met   ' if t['met'] else 'MISSED'} {t['target']}: {_pct(t['value'])} "
            f"({t['margin'] * 100:+.1f} points)"
        )
    wrong = report.get("wrong_answers", [])
    lines += ["", f"Served answers wrong or irrelevant ({len(wrong)})"]
    for w in wrong[:show_wrong]:
        lines.append(f"  {w['part']:<5} {w['question_id']:<8} {w['policy']}: “{w['question'][:90]}”")
        lines.append(f"           {'; '.join(w['why'])[:160]}")
        lines.append(f"           said: {' '.join(w['said'].split())[:160]}")
    if len(wrong) > show_wrong:
        lines.append(f"  … and {len(wrong) - show_wrong} more")
    lines += ["", "Scenarios (pass^k: every run must pass)"]
    for s in report["scenarios"]:
        state = {"passed": "pass", "failed": "FAIL", "not_runnable": "NOT RUNNABLE"}[s["status"]]
        lines.append(f"  {state:<12} {s['runs_passed']}/{s['runs_wanted']}  {s['id']}: {s['title']}")
        if s["not_runnable"]:
            lines.append(f"               {s['not_runnable']}")
        for f in s["failures"][:4]:
            lines.append(f"               run {f['run']} '{f['turn'][:50]}': {f['failure'][:160]}")
    for q in report.get("quote_problems", [])[:10]:
        lines.append(f"  QUOTE {q['clause_id']} {q['version']} (claim {q['claim_id']}): {q['detail']}")
    miss = report["misses"]
    lines += ["", f"Clause and outcome misses ({len(miss)}; the directory titles seen: JSON and HTML report)"]
    for m in miss[:show_misses]:
        lines.append(
            f"  {m['part']:<5} {m['question_id']:<8} {'; '.join(m['why'])}: expected {m['expected']} "
            f"fetched {m['fetched']}"
        )
        lines.append(f"           “{m['question'][:100]}”")
    if len(miss) > show_misses:
        lines.append(f"  … and {len(miss) - show_misses} more")
    if adversarial_line(report):
        lines += ["", str(adversarial_line(report))]
        for served in report["adversarial"]["served_attacks"]:
            lines.append(f"  SERVED {served['attack']}: {served['why']}")
        for served in (report["adversarial"].get("explained") or {}).get("served_attacks", []):
            lines.append(f"  served in the explained style {served['attack']}: {served['why']}")
    t = report["totals"]
    lines += [
        "",
        f"Scenarios passed {t['scenarios_passed']}/{t['scenarios']} (failed {t['scenarios_failed']}, "
        f"not runnable {t['scenarios_not_runnable']}); invented citations {t['invented_citations']}; "
        f"decisions served {t['decisions_served']}; HTTP 5xx {t['server_errors']}; replies without a "
        f"turn record {t['without_turn_record']}; quotes re-read from the store {t['quotes_rechecked']}, "
        f"mismatched {t['quote_mismatches']}",
    ]
    lines.append(outcome_line(report))
    return "\n".join(lines)


def outcome_line(report: dict[str, Any]) -> str:
    """The evaluation's last word, as its exit status has it."""
    why = "; ".join(failures(report))
    status = exit_status(report)
    if status == PASSED:
        return "PASSED"
    if status == TARGETS_MISSED:
        return f"TARGETS MISSED (every guarantee held): {why}"
    return f"FAILED: {why}"


def _bar(value: float | None, *, good: float = 0.85, lower_is_better: bool = False) -> str:
    if value is None:
        return "-"
    ok = value <= good if lower_is_better else value >= good
    colour = "#2f855a" if ok else "#c05621"
    width = max(0.0, min(1.0, value)) * 100
    return (
        f'<div class="bar"><div style="width:{width:.1f}%;background:{colour}"></div>'
        f"<span>{value:.0%}</span></div>"
    )


_GOOD = {"served_wrong_share": 0.02, "answered_right_share": 0.60, "unanswerable_routed": 0.90}


def _table_html(columns: list[tuple[str, dict[str, Any]]], rows: tuple[tuple[str, str], ...]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(h)}</th>" for h, _ in columns)
    body = []
    for key, label in rows:
        cells = []
        for _, m in columns:
            value = m.get(key)
            if isinstance(value, float):
                bar = _bar(value, good=_GOOD.get(key, 0.85), lower_is_better=key in _LOWER_IS_BETTER)
                count = ""
                if key == "served_wrong_share":
                    count = f"<small>{m['served_wrong']} of {m['served']}</small>"
                cells.append(f"<td>{bar}{count}</td>")
            else:
                cells.append(f"<td>{e(_cell(m, key))}</td>")
        body.append(f"<tr><th>{e(label)}</th>{''.join(cells)}</tr>")
    return f"<table><tr><th></th>{head}</tr>{''.join(body)}</table>"


def _run_line(report: dict[str, Any], json_name: str) -> str:
    """When, against what and how the run was made, in words; every figure is in the JSON."""
    meta, e = report["meta"], html.escape
    said = [e(report["generated_at"])]
    if meta.get("base_url"):
        said.append(f"against {e(str(meta['base_url']))}")
    if meta.get("only") not in (None, "all"):
        said.append(f"only {e(str(meta['only']))}")
    said.append(f'<a href="{e(json_name)}">every figure as JSON</a>')
    return " · ".join(said)


def render_html(report: dict[str, Any], json_name: str = "latest.json") -> str:
    """The page, readable at 1,280 px: each table scrolls within its own box when it is wider
    than the page, and the run's settings and figures are behind the link to `json_name`."""
    e = html.escape
    columns = part_columns(report)
    targets = "".join(
        f"<li class={'met' if t['met'] else 'missed'}>{'met' if t['met'] else 'missed'}: {e(t['target'])}"
        f" — {_pct(t['value'])} ({t['margin'] * 100:+.1f} points)</li>"
        for t in report["targets"]
    )
    wrong = "".join(
        f"<tr id=wrong-{e(w['question_id'])}><td>{e(w['part'])} {e(w['question_id'])}<br>"
        f"<small>{e(w['policy'])}</small></td>"
        f"<td>{''.join(f'<div class=earlier>{e(x)}</div>' for x in w['earlier'])}{e(w['question'])}</td>"
        f"<td class=said>{e(w['said'])}</td>"
        f"<td>{''.join(f'<div class=fail>{e(y)}</div>' for y in w['why'])}</td>"
        f"<td>{e(', '.join(dict.fromkeys(w['cited'])) or '-')}</td></tr>"
        for w in report.get("wrong_answers", [])
    )
    scen = "".join(
        f"<tr><td class={s['status']}>{e(s['status'])}</td><td>{s['runs_passed']}/{s['runs_wanted']}</td>"
        f"<td>{e(s['id'])}</td><td>{e(s['title'])}"
        + "".join(
            f"<div class=fail>run {f['run']} · {e(f['turn'])}: {e(f['failure'])}</div>" for f in s["failures"]
        )
        + (f"<div class=fail>{e(s['not_runnable'])}</div>" if s["not_runnable"] else "")
        + "</td></tr>"
        for s in report["scenarios"]
    )
    miss = "".join(
        f"<tr><td>{e(m['part'])} {e(m['question_id'])}</td><td>{e(m['question'])}</td>"
        f"<td>{e(', '.join(m['expected']))}</td>"
        f"<td>{e(', '.join(m['fetched']) or '-')}</td><td>{e('; '.join(m['why']))}</td>"
        f"<td><details><summary>{len(m['directory_seen'])} titles ({e(str(m['version']))})</summary>"
        f"<ul>{''.join(f'<li>{e(d)}</li>' for d in m['directory_seen'])}</ul></details></td></tr>"
        for m in report["misses"]
    )
    t = report["totals"]
    last_word = outcome_line(report)
    parts = " · ".join(part_heading(report, p) for p in report["parts"])
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>clausedesk evaluation</title>
<style>
body{{font:14px/1.4 system-ui,sans-serif;margin:2em auto;padding:0 1em;max-width:1200px}}
table{{border-collapse:collapse;margin:1em 0;display:block;max-width:100%;overflow-x:auto}}
td,th{{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top;overflow-wrap:break-word}}
th{{min-width:6em}} td.said{{min-width:20em}} tr>th:first-child{{position:sticky;left:0;background:#fff}}
.bar{{position:relative;width:80px;height:18px;background:#eee}} .bar div{{height:100%}}
.bar span{{position:absolute;left:6px;top:0;font-size:12px}}
.passed,.met{{color:#2f855a}} .failed,.missed,.not_runnable,.fail{{color:#c53030}}
.said{{max-width:420px;white-space:pre-wrap;font-size:13px}} .earlier{{color:#666;font-style:italic}}
</style></head><body>
<h1>clausedesk evaluation</h1>
<p>{_run_line(report, json_name)}</p>
<p>Model <b>{e(str(report["meta"].get("model")))}</b> · {e(report["meta"].get("runs_note", ""))}</p>
<p>Scenarios passed {t["scenarios_passed"]}/{t["scenarios"]} · invented citations {t["invented_citations"]}
· decisions served {t["decisions_served"]} · HTTP 5xx {t["server_errors"]} · without turn record
{t["without_turn_record"]} · quotes re-read {t["quotes_rechecked"]}, mismatched {t["quote_mismatches"]}
· inventory questions {t["inventory_questions"]} · <b>{e(last_word)}</b></p>
{f"<p>{e(adversarial_line(report) or '')}</p>" if report.get("adversarial") else ""}
<h2 id=facts>Right for this claimant</h2>
<p>Parts: {e(parts)}. A served answer is right when it holds every fact of the question and none
of its wrong strings, in the text the claimant reads.</p>
{_table_html(columns, FACT_ROWS)}
<h2>Targets</h2><ul>{targets}</ul>
<h2 id=wrong>Served answers wrong or irrelevant ({len(report.get("wrong_answers", []))})</h2>
<table><tr><th>id</th><th>question</th><th>what it said</th><th>why wrong</th><th>cited</th></tr>
{wrong}</table>
<h2>Diagnostics: clauses fetched and cited</h2>
{_table_html(columns, ROWS)}
<h2>Scenarios (pass^k)</h2><table><tr><th>status</th><th>runs</th><th>id</th><th>title</th></tr>{scen}</table>
<h2>Clause and outcome misses</h2><table><tr><th>id</th><th>question</th><th>expected</th><th>fetched</th>
<th>why</th><th>directory seen</th></tr>{miss}</table>
</body></html>
"""


def write_report(report: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    json_path, html_path = folder / "latest.json", folder / "latest.html"
    json_path.write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    html_path.write_text(render_html(report, json_path.name), encoding="utf-8")
    return json_path, html_path
