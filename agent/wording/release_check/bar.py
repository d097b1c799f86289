"""The bar: per clause and pooled rule evidence weighed as approval weighs it, the served
answers wrong or irrelevant, the verdict, and the summary that leads with them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent.answering import bar as evidence_bar
from agent.answering.bar import Bar, Scored
from agent.answering.evidence import SERVED
from agent.answering.gate import POOLED_TITLES, is_pooled
from agent.answering.measured import scored_rows
from agent.wording.release_check.questions import ANSWERED
from knowledge.clauses import Directory


def clause_evidence(
    rows: list[dict[str, Any]],
    directory: Directory,
    bar: Bar,
    fixed: Iterable[Scored] = (),
    *,
    model_tuned: bool = True,
) -> list[dict[str, Any]]:
    """Per subject (each clause of the candidate an answer counted for, then the pooled rules:
    agent.answering.gate), weighed as approval, promotion and the fall back weigh it
    (agent.answering.bar): its served answers (a wrong one counts against every subject it
    counted for; a served answer flagged wrong counts as it happened), the upper bound of their
    wrong share, answered right (of the questions whose right answer cites it), and whether it
    meets the bar, with what it lacks."""
    scored = [*scored_rows(rows, model_tuned=model_tuned), *fixed]
    titles = {e.clause_id: e.title for e in directory.entries}
    subjects = [*(c for c in titles), *POOLED_TITLES]
    named = {s for r in scored for s in r.subjects} | {c for r in rows for c in r.get("expected") or ()}
    out = []
    for subject in subjects:
        if subject not in named:
            continue
        f = evidence_bar.figures(bar, scored, subject)
        expecting = [r for r in rows if subject in (r.get("expected") or ())]
        right = sum(bool((r.get("candidate") or {}).get("right")) for r in expecting)
        wrong = [
            s.key for s in scored if s.outcome in SERVED and subject in s.subjects and s.outcome != "right"
        ]
        out.append(
            {
                "clause_id": subject,
                "pooled": is_pooled(subject),
                "title": titles.get(subject) or POOLED_TITLES.get(subject, subject),
                "questions": len(expecting),
                "expecting": len(expecting),
                "served": f.served,
                "served_wrong": wrong,
                "served_wrong_share": round(f.wrong / f.served, 4) if f.served else None,
                "upper_bound": round(f.upper, 4),
                "more_needed": f.more_needed,
                "answered_right": right,
                "answered_right_share": round(right / len(expecting), 4) if expecting else None,
                "meets_bar": f.meets,
                "short_of_bar": f.misses(bar),
            }
        )
    return out


def wrong_answers(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every served answer that is wrong or irrelevant: the question, what the claimant was
    served, and the facts it missed or the strings that made it wrong."""
    out = []
    for r in rows:
        a = r["candidate"]
        if a is None or not a["outcome"].startswith(ANSWERED) or a["right"]:
            continue
        out.append(
            {
                "id": r["id"],
                "policy": r["policy"],
                "text": r["text"],
                "earlier": r["earlier"],
                "expected": r["expected"],
                "cited": a["cited"],
                "served": a["reply"],
                "missed": a["missed"],
                "wrong": a["wrong"],
                "irrelevant": not r["answerable"],
            }
        )
    return out


def verdict(report: dict[str, Any]) -> dict[str, Any]:
    """Pass or fail against the bar, with every reason it fails. No questions: no evidence."""
    bar = Bar(report["bar"]["wrong_percent"])
    asked = report["evidence"]["asked"]
    if asked == 0:
        why = "no evidence: the check asked no questions"
        if report["evidence"]["available"]:
            why += f" (a limit of 0 of {report['evidence']['available']})"
        else:
            why += f" ({report['family']} {report['candidate']['version']} has no inventory questions yet)"
        return {"passed": False, "reasons": [why]}
    reasons = []
    right = correctness(report["questions"], "candidate") or {}
    if not right.get("served"):
        reasons.append("nothing was served, so nothing shows an answer right")
    else:
        served, wrong = right["served"], len(right["served_wrong"])
        bound = evidence_bar.upper_bound(wrong, served)
        if bound > bar.limit:
            reasons.append(
                f"{wrong} of {served} served answers wrong or irrelevant, upper bound {_pct(bound)} "
                f"at 95% confidence, the bar allows {bar.wrong_percent:g}%"
            )
    if not any(c["meets_bar"] for c in report["clause_evidence"]):
        reasons.append("no clause or rule meets the bar")
    return {"passed": not reasons, "reasons": reasons}


def correctness(rows: list[dict[str, Any]], side: str) -> dict[str, Any] | None:
    """The evaluation's figures for one side of the check ("candidate" or "baseline")."""
    asked = [(r, r[side]) for r in rows if r[side] is not None]
    if not asked:
        return None
    served = [(r, a) for r, a in asked if a["outcome"].startswith(ANSWERED)]
    right = [r["id"] for r, a in served if a["right"]]
    wrong = [r["id"] for r, a in served if not a["right"]]
    answerable = sum(r["answerable"] for r, _ in asked)
    unanswerable = [(r, a) for r, a in asked if not r["answerable"]]
    routed = sum(a["outcome"] == "routed_to_staff" and not a["cited"] for _, a in unanswerable)

    def share(part: int, whole: int) -> float | None:
        return round(part / whole, 4) if whole else None

    return {
        "served": len(served),
        "served_right": len(right),
        "served_wrong": wrong,
        "served_wrong_share": share(len(wrong), len(served)),
        "answered_right_share": share(len(right), answerable),
        "unanswerable_routed": share(routed, len(unanswerable)),
    }


def summarise(report: dict[str, Any]) -> dict[str, Any]:
    rows = report["questions"]
    clauses = report["clauses"]
    changed = [r["id"] for r in rows if r["changes"]]
    to_routed = [r["id"] for r in rows if "answered → routed" in r["changes"]]
    to_answered = [r["id"] for r in rows if "routed → answered" in r["changes"]]
    selection = [r["id"] for r in rows if {"selected clauses", "cited clauses"} & set(r["changes"])]
    figures_changed = [
        c["clause_id"] for c in clauses["reworded"] if c["figures_removed"] or c["figures_added"]
    ]
    tokens = report["directory_tokens"]
    summary = {
        "check_id": report["check_id"],
        "family": report["family"],
        "version": report["candidate"]["version"],
        "baseline": report["baseline"]["version"] if report["baseline"] else None,
        "model": report["model"],
        "questions": len(rows),
        "answers_changed": changed,
        "selection_changed": selection,
        "answered_to_routed": to_routed,
        "routed_to_answered": to_answered,
        "clauses_added": [c["clause_id"] for c in clauses["added"]],
        "clauses_removed": [c["clause_id"] for c in clauses["removed"]],
        "clauses_reworded": [c["clause_id"] for c in clauses["reworded"]],
        "figures_changed": figures_changed,
        "directory_tokens": tokens,
        "right": {"candidate": correctness(rows, "candidate"), "baseline": correctness(rows, "baseline")},
        "right_to_wrong": [r["id"] for r in rows if "right → wrong" in r["changes"]],
        "wrong_to_right": [r["id"] for r in rows if "wrong → right" in r["changes"]],
        "verdict": verdict(report),
        "bar": report["bar"],
        "evidence": report["evidence"],
        "clauses_meeting_bar": [c["clause_id"] for c in report["clause_evidence"] if c["meets_bar"]],
        "clauses_with_evidence": len(report["clause_evidence"]),
        "wrong_answers": [w["id"] for w in report["wrong_answers"]],
        "applicability_changed": [c["clause_id"] for c in report["applicability"]["changed"]],
        "applicability_wording": report["applicability"]["wording"],
    }
    summary["lines"] = summary_lines(summary)
    return summary


def summary_lines(s: dict[str, Any]) -> list[str]:
    """The summary as sentences: what the approval prompt and the wording page show."""
    against = f"against {s['baseline']}" if s["baseline"] else "with no earlier approved version"
    tokens = s["directory_tokens"]
    size = f"{tokens['candidate']} tokens" + (
        f" (was {tokens['baseline']})" if tokens.get("baseline") is not None else ""
    )
    return [
        verdict_line(s),
        f"Release check {s['check_id']}: {s['family']} {s['version']} {against}, "
        f"{s['questions']} inventory questions"
        + (f" (parts {', '.join(s['evidence']['parts'])})" if s["evidence"]["parts"] else "")
        + f", model {s['model']}.",
        *right_lines(s),
        bar_line(s),
        *applicability_lines(s),
        f"Answers that change: {len(s['answers_changed'])}"
        + (f" ({', '.join(s['answers_changed'])})" if s["answers_changed"] else "")
        + f"; selected or cited clauses change for {len(s['selection_changed'])}.",
        f"Answered → routed: {len(s['answered_to_routed'])}"
        + (f" ({', '.join(s['answered_to_routed'])})" if s["answered_to_routed"] else "")
        + f"; routed → answered: {len(s['routed_to_answered'])}"
        + (f" ({', '.join(s['routed_to_answered'])})" if s["routed_to_answered"] else "")
        + ".",
        f"Clauses added {len(s['clauses_added'])}, removed {len(s['clauses_removed'])}, "
        f"reworded {len(s['clauses_reworded'])}"
        + (f" ({', '.join(s['clauses_reworded'])})" if s["clauses_reworded"] else "")
        + "; figures change in "
        + (", ".join(s["figures_changed"]) or "no clause")
        + ".",
        f"Directory size: {size}.",
    ]


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def verdict_line(s: dict[str, Any]) -> str:
    v = s["verdict"]
    if v["passed"]:
        return f"PASSED the bar ({Bar(s['bar']['wrong_percent']).describe()})."
    return f"FAILED: {'; '.join(v['reasons'])}. Bar: {Bar(s['bar']['wrong_percent']).describe()}."


def bar_line(s: dict[str, Any]) -> str:
    meeting = s["clauses_meeting_bar"]
    return (
        f"Clauses meeting the bar: {len(meeting)} of {s['clauses_with_evidence']} with evidence"
        + (f" ({', '.join(meeting)})" if meeting else "")
        + f"; wrong or irrelevant answers listed: {len(s['wrong_answers'])}."
    )


_SCHEDULE_WORDS = {"added_by": "adding", "removed_by": "removing", "changed_by": "changing"}


def applicability_lines(s: dict[str, Any]) -> list[str]:
    """What applies to whom changes: plans or cover levels, schedule entries, clauses."""
    if not s["baseline"]:
        return []
    w = s["applicability_wording"]
    parts = []
    labels = [("plans", "plans or cover levels")]
    labels += [(k, f"schedule entries {v} clauses") for k, v in _SCHEDULE_WORDS.items()]
    for key, label in labels:
        if w[key]["added"]:
            parts.append(f"{label} added: {', '.join(w[key]['added'])}")
        if w[key]["removed"]:
            parts.append(f"{label} removed: {', '.join(w[key]['removed'])}")
    changed = s["applicability_changed"]
    return [
        "Applicability: "
        + ("; ".join(parts) if parts else "the same plans, cover levels and schedule entries")
        + f"; clauses whose applicability changes: {len(changed)}"
        + (f" ({', '.join(changed)})" if changed else "")
        + "."
    ]


def right_lines(s: dict[str, Any]) -> list[str]:
    """Right for the claimant, on the question facts: the figures the summary leads with."""
    lines = []
    for side, version in (("candidate", s["version"]), ("baseline", s["baseline"])):
        c = (s.get("right") or {}).get(side)
        if c is None:
            continue
        wrong = c["served_wrong"]
        lines.append(
            f"Under {version}: served answers right {c['served_right']} of {c['served']}; wrong or "
            f"irrelevant {len(wrong)} ({_pct(c['served_wrong_share'])} of served)"
            + (f" ({', '.join(wrong)})" if wrong and side == "candidate" else "")
            + f"; answered right {_pct(c['answered_right_share'])} of answerable; unanswerable routed "
            f"{_pct(c['unanswerable_routed'])}."
        )
    if s.get("baseline") and "right_to_wrong" in s:
        lines.append(
            f"Right under {s['baseline']}, wrong under {s['version']}: {len(s['right_to_wrong'])}"
            + (f" ({', '.join(s['right_to_wrong'])})" if s["right_to_wrong"] else "")
            + f"; wrong → right: {len(s['wrong_to_right'])}"
            + (f" ({', '.join(s['wrong_to_right'])})" if s["wrong_to_right"] else "")
            + "."
        )
    return lines
