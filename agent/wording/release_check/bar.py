"""The bar: per clause and pooled rule evidence weighed as approval weighs it, the served
answers wrong or irrelevant, the verdict, and the summary that leads with them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from agent.answering import bar as evidence_bar
from agent.answering.bar import Bar, Scored
from agent.answering.check_report import (
    CheckReport,
    Correctness,
    QuestionRow,
    RightBySide,
    SubjectEvidence,
    Summary,
    Verdict,
    WrongAnswer,
)
from agent.answering.evidence import SERVED
from agent.answering.gate import POOLED_TITLES, is_pooled
from agent.answering.measured import scored_rows
from knowledge.clauses import Directory


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def clause_evidence(
    rows: Sequence[QuestionRow],
    directory: Directory,
    bar: Bar,
    fixed: Iterable[Scored] = (),
    *,
    model_tuned: bool = True,
) -> tuple[SubjectEvidence, ...]:
    """Per subject (each clause of the candidate an answer counted for, then the pooled rules:
    agent.answering.gate), weighed as approval, promotion and the fall back weigh it
    (agent.answering.bar): its served answers (a wrong one counts against every subject it
    counted for; a served answer flagged wrong counts as it happened), the upper bound of their
    wrong share, answered right (of the questions whose right answer cites it), and whether it
    meets the bar, with what it lacks."""
    scored = [*scored_rows(rows, model_tuned=model_tuned), *fixed]
    titles = {e.clause_id: e.title for e in directory.entries}
    subjects = [*(c for c in titles), *POOLED_TITLES]
    named = {s for r in scored for s in (*r.subjects, *r.uncounted)} | {c for r in rows for c in r.expected}
    out = []
    for subject in subjects:
        if subject not in named:
            continue
        f = evidence_bar.figures(bar, scored, subject)
        expecting = [r for r in rows if subject in r.expected]
        right = sum(bool(r.candidate and r.candidate.right) for r in expecting)
        wrong = tuple(
            s.key for s in scored if s.outcome in SERVED and subject in s.subjects and s.outcome != "right"
        )
        out.append(
            SubjectEvidence(
                clause_id=subject,
                pooled=is_pooled(subject),
                title=titles.get(subject) or POOLED_TITLES.get(subject, subject),
                questions=len(expecting),
                expecting=len(expecting),
                served=f.served,
                served_wrong=wrong,
                served_wrong_share=round(f.wrong / f.served, 4) if f.served else None,
                upper_bound=round(f.upper, 4),
                more_needed=f.more_needed,
                answered_right=right,
                answered_right_share=_share(right, len(expecting)),
                meets_bar=f.meets,
                short_of_bar=tuple(f.misses(bar)),
            )
        )
    return tuple(out)


def wrong_answers(rows: Sequence[QuestionRow]) -> tuple[WrongAnswer, ...]:
    """Every served answer that is wrong or irrelevant: the question, what the claimant was
    served, and the facts it missed or the strings that made it wrong."""
    return tuple(
        WrongAnswer(
            id=r.id,
            policy=r.policy,
            text=r.text,
            earlier=r.earlier,
            expected=r.expected,
            cited=a.cited,
            served=a.reply,
            missed=a.missed,
            wrong=a.wrong,
            irrelevant=not r.answerable,
        )
        for r in rows
        if (a := r.candidate) is not None and a.served and not a.right
    )


def verdict(report: CheckReport, bar: Bar) -> Verdict:
    """Pass or fail against the bar, with every reason it fails. No questions: no evidence."""
    evidence = report.evidence
    if evidence.asked == 0:
        why = "no evidence: the check asked no questions"
        if evidence.available:
            why += f" (a limit of 0 of {evidence.available})"
        else:
            why += f" ({report.family} {report.candidate.version} has no inventory questions yet)"
        return Verdict(passed=False, reasons=(why,))
    reasons = []
    right = correctness(report.questions, "candidate")
    if right is None or not right.served:
        reasons.append("nothing was served, so nothing shows an answer right")
    else:
        served, wrong = right.served, len(right.served_wrong)
        bound = evidence_bar.upper_bound(wrong, served)
        if bound > bar.limit:
            reasons.append(
                f"{wrong} of {served} served answers wrong or irrelevant, upper bound {_pct(bound)} "
                f"at 95% confidence, the bar allows {bar.wrong_percent:g}%"
            )
    if not any(c.meets_bar for c in report.clause_evidence):
        reasons.append("no clause or rule meets the bar")
    return Verdict(passed=not reasons, reasons=tuple(reasons))


def correctness(rows: Sequence[QuestionRow], side: str) -> Correctness | None:
    """The evaluation's figures for one side of the check ("candidate" or "baseline")."""
    asked = [(r, a) for r in rows if (a := getattr(r, side)) is not None]
    if not asked:
        return None
    served = [(r, a) for r, a in asked if a.served]
    right = [r.id for r, a in served if a.right]
    wrong = tuple(r.id for r, a in served if not a.right)
    answerable = sum(r.answerable for r, _ in asked)
    unanswerable = [a for r, a in asked if not r.answerable]
    routed = sum(a.outcome == "routed_to_staff" and not a.cited for a in unanswerable)
    return Correctness(
        served=len(served),
        served_right=len(right),
        served_wrong=wrong,
        served_wrong_share=_share(len(wrong), len(served)),
        answered_right_share=_share(len(right), answerable),
        unanswerable_routed=_share(routed, len(unanswerable)),
    )


def summarise(report: CheckReport, bar: Bar) -> Summary:
    """The report's summary, its lines (the verdict first) made from its figures."""
    rows = report.questions
    clauses = report.clauses

    def changed(*kinds: str) -> tuple[str, ...]:
        return tuple(r.id for r in rows if set(kinds) & set(r.changes))

    summary = Summary(
        check_id=report.check_id,
        family=report.family,
        version=report.candidate.version,
        baseline=report.baseline.version if report.baseline else None,
        model=report.model,
        questions=len(rows),
        answers_changed=tuple(r.id for r in rows if r.changes),
        selection_changed=changed("selected clauses", "cited clauses"),
        answered_to_routed=changed("answered → routed"),
        routed_to_answered=changed("routed → answered"),
        clauses_added=tuple(c.clause_id for c in clauses.added),
        clauses_removed=tuple(c.clause_id for c in clauses.removed),
        clauses_reworded=tuple(c.clause_id for c in clauses.reworded),
        figures_changed=tuple(c.clause_id for c in clauses.reworded if c.figures_removed or c.figures_added),
        directory_tokens=report.directory_tokens,
        right=RightBySide(correctness(rows, "candidate"), correctness(rows, "baseline")),
        right_to_wrong=changed("right → wrong"),
        wrong_to_right=changed("wrong → right"),
        verdict=verdict(report, bar),
        bar=bar,
        evidence=report.evidence,
        clauses_meeting_bar=tuple(c.clause_id for c in report.clause_evidence if c.meets_bar),
        clauses_with_evidence=len(report.clause_evidence),
        wrong_answers=tuple(w.id for w in report.wrong_answers),
        applicability_changed=tuple(c.clause_id for c in report.applicability.changed),
        applicability_wording=report.applicability.wording,
    )
    return replace(summary, lines=summary_lines(summary, bar))


def _listed(ids: Sequence[str]) -> str:
    """' (A, B)' after a count, or nothing when there are none."""
    return f" ({', '.join(ids)})" if ids else ""


def summary_lines(s: Summary, bar: Bar) -> tuple[str, ...]:
    """The summary as sentences: what the approval prompt and the wording page show."""
    against = f"against {s.baseline}" if s.baseline else "with no earlier approved version"
    tokens = s.directory_tokens
    size = f"{tokens.candidate} tokens" + (f" (was {tokens.baseline})" if tokens.baseline is not None else "")
    parts = s.evidence.parts
    return (
        verdict_line(s.verdict, bar),
        f"Release check {s.check_id}: {s.family} {s.version} {against}, "
        f"{s.questions} inventory questions"
        + (f" (parts {', '.join(parts)})" if parts else "")
        + f", model {s.model}.",
        *right_lines(s),
        bar_line(s),
        *applicability_lines(s),
        f"Answers that change: {len(s.answers_changed)}{_listed(s.answers_changed)}"
        f"; selected or cited clauses change for {len(s.selection_changed)}.",
        f"Answered → routed: {len(s.answered_to_routed)}{_listed(s.answered_to_routed)}"
        f"; routed → answered: {len(s.routed_to_answered)}{_listed(s.routed_to_answered)}.",
        f"Clauses added {len(s.clauses_added)}, removed {len(s.clauses_removed)}, "
        f"reworded {len(s.clauses_reworded)}{_listed(s.clauses_reworded)}; figures change in "
        + (", ".join(s.figures_changed) or "no clause")
        + ".",
        f"Directory size: {size}.",
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def verdict_line(v: Verdict, bar: Bar) -> str:
    if v.passed:
        return f"PASSED the bar ({bar.describe()})."
    return f"FAILED: {'; '.join(v.reasons)}. Bar: {bar.describe()}."


def bar_line(s: Summary) -> str:
    meeting = s.clauses_meeting_bar
    return (
        f"Clauses meeting the bar: {len(meeting)} of {s.clauses_with_evidence} with evidence"
        f"{_listed(meeting)}; wrong or irrelevant answers listed: {len(s.wrong_answers)}."
    )


_SCHEDULE_WORDS = {"added_by": "adding", "removed_by": "removing", "changed_by": "changing"}


def applicability_lines(s: Summary) -> list[str]:
    """What applies to whom changes: plans or cover levels, schedule entries, clauses."""
    if not s.baseline:
        return []
    parts = []
    labels = [("plans", "plans or cover levels")]
    labels += [(k, f"schedule entries {v} clauses") for k, v in _SCHEDULE_WORDS.items()]
    for key, label in labels:
        entries = getattr(s.applicability_wording, key)
        if entries.added:
            parts.append(f"{label} added: {', '.join(entries.added)}")
        if entries.removed:
            parts.append(f"{label} removed: {', '.join(entries.removed)}")
    changed = s.applicability_changed
    return [
        "Applicability: "
        + ("; ".join(parts) if parts else "the same plans, cover levels and schedule entries")
        + f"; clauses whose applicability changes: {len(changed)}{_listed(changed)}."
    ]


def right_lines(s: Summary) -> list[str]:
    """Right for the claimant, on the question facts: the figures the summary leads with."""
    lines = []
    for side, version in (("candidate", s.version), ("baseline", s.baseline)):
        c = getattr(s.right, side)
        if c is None:
            continue
        wrong = c.served_wrong
        lines.append(
            f"Under {version}: served answers right {c.served_right} of {c.served}; wrong or "
            f"irrelevant {len(wrong)} ({_pct(c.served_wrong_share)} of served)"
            + (_listed(wrong) if side == "candidate" else "")
            + f"; answered right {_pct(c.answered_right_share)} of answerable; unanswerable routed "
            f"{_pct(c.unanswerable_routed)}."
        )
    if s.baseline:
        lines.append(
            f"Right under {s.baseline}, wrong under {s.version}: {len(s.right_to_wrong)}"
            f"{_listed(s.right_to_wrong)}; wrong → right: {len(s.wrong_to_right)}{_listed(s.wrong_to_right)}."
        )
    return lines
