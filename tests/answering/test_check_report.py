"""The release check's report as typed parts: written as the JSON every version stored, read
back as it was, and a report of an earlier version (keys missing) read with defaults, weighed and
rendered."""

from __future__ import annotations

import json

from agent.answering.bar import Bar, Scored
from agent.answering.check_report import (
    BEFORE_THE_BAR,
    CheckReport,
    Summary,
    Verdict,
)
from agent.answering.measured import scored_of
from agent.models.offline import offline_model
from agent.wording.questions import load_questions
from agent.wording.release_check import render_html, render_text, run_release_check

# The keys of a stored report, in the order every version wrote them.
REPORT_KEYS = [
    "check_id",
    "created_at",
    "created_by",
    "family",
    "candidate",
    "baseline",
    "model",
    "evidence",
    "bar",
    "questions",
    "clauses",
    "applicability",
    "clause_evidence",
    "served_wrong_as_recorded",
    "wrong_answers",
    "directory_tokens",
    "summary",
]


def test_a_report_reads_back_from_its_json_as_it_was_written(corpus_store) -> None:
    asked = [q for q in load_questions(parts=("dev",)) if q.family == "motor" and not q.earlier][:2]
    report = run_release_check(corpus_store, "motor", "2027.1", model=offline_model(), inventory=asked)
    data = report.as_dict()
    assert list(data) == REPORT_KEYS
    assert data["summary"]["lines"] == list(report.summary.lines)
    stored = json.loads(json.dumps(data))
    assert CheckReport.of(stored) == report
    assert json.dumps(CheckReport.of(stored).as_dict()) == json.dumps(data)
    assert Summary.of(stored["summary"]) == report.summary
    # What the text comparison and the answers hold survives the trip.
    assert report.clauses.reworded and report.questions[0].candidate is not None


def test_a_report_of_an_earlier_version_reads_with_defaults() -> None:
    earlier = {
        "check_id": "RC-00000000",
        "family": "motor",
        "candidate": {"version": "2026.2", "status": "approved"},
        "baseline": None,
        "bar": {"per_clause": 5, "per_wording": 20, "wrong_percent": 5.0},  # the counts of before
        "questions": [
            {"id": "q1", "candidate": {"outcome": "answered", "right": True, "cited": ["MTR-BEN-03"]}}
        ],
        "clause_evidence": [
            {"clause_id": "MTR-BEN-03", "served": 1, "served_wrong": [], "served_wrong_share": 0.0}
        ],
        "summary": {"lines": ["Release check RC-00000000: motor 2026.2."]},
    }
    report = CheckReport.of(earlier)
    assert report.bar == Bar(5.0)
    assert report.clause_evidence[0].upper_bound is None and report.served_wrong_as_recorded == ()
    assert report.evidence.verified_rows == 0 and report.directory_tokens.baseline is None
    # Without a verdict it did not pass a bar; its answers still weigh (cited, as before subjects).
    assert report.summary.verdict == Verdict(passed=False, reasons=(BEFORE_THE_BAR,))
    assert scored_of(report) == [Scored("q1", ("MTR-BEN-03",), "right")]
    assert "Release check RC-00000000" in render_text(report)
    page = render_html(report)
    assert "MTR-BEN-03" in page and "Bar (settings): served answers wrong or irrelevant at most 5%" in page
    # One from before the bar says nothing of one.
    assert "Bar (settings)" not in render_html(
        CheckReport.of({k: v for k, v in earlier.items() if k != "bar"})
    )
    # Nothing stored at all (a row written before any report) is an empty report.
    assert CheckReport.of({}) == CheckReport.of(None) == CheckReport()


def test_the_learning_curve_reads_a_summary_of_any_version() -> None:
    from datetime import UTC, datetime

    from agent.db.tables import ReleaseCheck
    from agent.wording.learning_curve import points

    at = datetime(2026, 12, 1, tzinfo=UTC)
    checks = [
        ReleaseCheck(id="RC-00000001", content_hash="h", created_at=at, summary={"lines": []}),
        ReleaseCheck(
            id="RC-00000002",
            content_hash="h",
            created_at=at.replace(day=2),
            summary={
                "evidence": {"asked": 12, "store": {"verified_rows": 80}},
                "right": {"candidate": {"served": 10, "served_wrong": ["q1"], "answered_right_share": 0.5}},
                "clauses_meeting_bar": ["MTR-BEN-03"],
            },
        ),
    ]
    first, second = points(checks, "h")
    assert (first.evidence, first.answered_right, first.served, first.meeting_bar) == (0, None, 0, 0)
    assert (second.evidence, second.answered_right, second.served, second.served_wrong) == (80, 0.5, 10, 1)
    assert second.meeting_bar == 1
