"""The figures of a set of inventory questions, family by family and all families of a
part together, and the questions behind them: the misses (clause or outcome) and the served
answers wrong for their claimant."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agent.evaluation.decision_audit import DecisionAudit
from agent.evaluation.harness import Exchange
from agent.evaluation.invariants import decision_served, invented_citations
from agent.evaluation.inventory import Asked


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


def part_totals(families: dict[str, dict[str, Any]]) -> dict[str, Any]:
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
