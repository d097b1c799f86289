"""The release check on the real corpus: draft motor 2027.1 against approved 2026.2."""

from __future__ import annotations

import asyncio

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.answering.check_report import (
    AddedRemoved,
    ApplicabilityChange,
    DiffOp,
    FieldChange,
    FigureChange,
    Quote,
)
from agent.db.tables import make_engine, make_sessionmaker
from agent.evaluation.harness import Harness
from agent.models.memory import LEAVE_OUT
from agent.models.offline import offline_model
from agent.turn.runner import TurnRunner
from agent.wording.questions import load_questions
from agent.wording.release_check import (
    compare_applicability,
    figure_changes,
    render_html,
    render_text,
    run_release_check,
    word_diff,
)
from knowledge.clauses import ClauseLibrary, Directory, DirectoryEntry
from tests.support import route

pytestmark = pytest.mark.slow  # release checks ask the inventory

DAILY_2026 = "We pay up to NZD 60 a day for up to 21 days for each event."
DAILY_2027 = "We pay up to NZD 80 a day for up to 30 days for each event."


@pytest.fixture(scope="module")
def motor_check(corpus_store):
    return run_release_check(corpus_store, "motor", "2027.1", model=offline_model(), created_by="test")


def test_release_check_of_draft_motor_lists_the_changed_daily_limit(motor_check) -> None:
    report = motor_check
    assert report.baseline is not None
    assert (report.candidate.version, report.baseline.version) == ("2027.1", "2026.2")
    rental = next(c for c in report.clauses.reworded if c.clause_id == "MTR-BEN-03")
    assert FigureChange("NZD 60", DAILY_2026) in rental.figures_removed
    assert FigureChange("NZD 80", DAILY_2027) in rental.figures_added
    assert FigureChange("21 days", DAILY_2026) in rental.figures_removed
    assert DiffOp("delete", "60") in rental.diff and DiffOp("insert", "80") in rental.diff
    summary = report.summary
    assert summary.figures_changed == ("MTR-BEN-03",)
    assert summary.clauses_added == summary.clauses_removed == ()
    assert "MTR-BEN-03" in summary.clauses_reworded
    # Unchanged clauses are not reported as reworded.
    assert "MTR-BEN-07" not in summary.clauses_reworded
    tokens = report.directory_tokens
    assert tokens.baseline is not None and 0 < tokens.baseline < tokens.candidate < 400

    text = render_text(report)
    assert f"− NZD 60       {DAILY_2026}" in text and f"+ NZD 80       {DAILY_2027}" in text
    page = render_html(report)
    assert "<del>NZD 60</del>" in page and "<ins>NZD 80</ins>" in page


def test_release_check_lists_every_question_whose_answer_changes(motor_check) -> None:
    rows = motor_check.questions
    assert len(rows) == len([q for q in load_questions() if q.family == "motor"])
    changed = set(motor_check.summary.answers_changed)
    sides = {r.id: (r.baseline, r.candidate) for r in rows if r.baseline and r.candidate}
    assert len(sides) == len(rows)
    for key, (old, new) in sides.items():
        differs = (
            old.outcome != new.outcome
            or old.requested != new.requested
            or old.cited != new.cited
            or old.reply != new.reply
        )
        assert (key in changed) == differs, key
    # Every answer that quoted the reworded rental clause under 2026.2 changes; answers
    # from clauses both versions share word for word do not.
    reworded = set(motor_check.summary.clauses_reworded)
    from_rental = {key for key, (old, _) in sides.items() if "MTR-BEN-03" in old.cited}
    assert from_rental and from_rental <= changed

    def touches(key: str) -> bool:  # asks for a reworded clause, or a served sentence names one
        old, new = sides[key]
        return bool(reworded & {*old.requested, *new.requested}) or any(
            cid in old.reply + new.reply for cid in reworded
        )

    untouched = {key for key in sides if not touches(key)}
    assert untouched and not untouched & changed
    assert changed, "the draft changes some answers"


def test_pinned_baseline_answers_as_the_live_system_does(motor_check, corpus_store, sqlite_url) -> None:
    """The check pins a version with an adapter; for a policy that 2026.2 really governs,
    the pinned baseline must give the same answers as the unpinned turn (the test database has
    motor 2026.2 answering claimants)."""
    url = sqlite_url
    engine = make_engine(url)
    runner = TurnRunner(make_sessionmaker(engine), ClauseLibrary(corpus_store), offline_model())
    harness = Harness("http://unused.invalid", url)
    rows = [r for r in motor_check.questions if r.policy == "KM-MTR-204518"][:6]
    try:
        for row in rows:
            claim = harness.open_claim("CLM-204518")
            result = asyncio.run(runner.run(claim.claim_id, row.text))
            assert result.release == {"family": "motor", "version": "2026.2"}
            quotes = tuple(Quote(c.clause_id, c.quote) for c in result.citations)
            assert row.baseline is not None
            assert (result.outcome, quotes) == (row.baseline.outcome, row.baseline.quotes)
    finally:
        harness.close()
        engine.dispose()


def test_figures_and_word_diff_of_small_texts() -> None:
    changes = figure_changes(
        "Up to $500 or 10% within 14 days.", "Up to NZD 750 or 10 percent within 14 days."
    )
    assert [f.figure for f in changes.removed] == ["$500", "10%"]
    assert [f.figure for f in changes.added] == ["NZD 750", "10 percent"]
    assert word_diff("a b c", "a x c") == (
        DiffOp("equal", "a"),
        DiffOp("delete", "b"),
        DiffOp("insert", "x"),
        DiffOp("equal", "c"),
    )


def test_release_check_leads_with_answers_right_for_the_claimant(motor_check) -> None:
    summary = motor_check.summary
    assert summary.lines[0].startswith(("PASSED the bar", "FAILED: "))
    assert summary.lines[2].startswith("Under 2027.1: served answers right")
    assert summary.lines[3].startswith("Under 2026.2: served answers right")
    candidate, baseline = summary.right.candidate, summary.right.baseline
    assert candidate is not None and baseline is not None
    assert candidate.served > 0 and baseline.served > 0
    sides = {r.id: (r.baseline, r.candidate) for r in motor_check.questions if r.baseline and r.candidate}
    # A rental answer right under 2026.2 (NZD 60 a day) is wrong under the draft (NZD 80 a day).
    daily = [i for i in summary.right_to_wrong if ("NZD 60 a day",) in sides[i][1].missed]
    assert daily, summary.right_to_wrong
    assert set(summary.right_to_wrong) <= set(summary.answers_changed)
    for i in summary.right_to_wrong:
        assert sides[i][0].right is True and sides[i][1].right is False
    assert set(candidate.served_wrong) >= set(summary.right_to_wrong)
    assert "missed: NZD 60 a day" in render_html(motor_check)
    assert "Right under 2026.2, wrong under 2027.1" in render_text(motor_check)


def test_the_figure_diff_reads_every_wording_currency() -> None:
    changes = figure_changes(
        "Up to £500, €40, A$300 and AUD 200; GBP 10 more.", "Up to £750, €40, A$350 and AUD 200; GBP 10 more."
    )
    assert [f.figure for f in changes.removed] == ["£500", "A$300"]
    assert [f.figure for f in changes.added] == ["£750", "A$350"]


def _directory(version: str, *entries: DirectoryEntry, plans: tuple[str, ...] = ()) -> Directory:
    return Directory("travel", version, "KM-TRV", f"hash-{version}", entries, plans=plans)


def test_applicability_is_compared_not_only_text() -> None:
    """A clause whose words stay while its cover levels or schedule entries change answers
    differently: the check lists it, and what the wording offers as a whole."""
    old = _directory(
        "2026.1",
        DirectoryEntry("TRV-BEN-01", "Travel delay", "a", None, plans=("Comprehensive",)),
        DirectoryEntry("TRV-BEN-02", "Snow sports", "b", None, added_by=("snow_sports",)),
        DirectoryEntry("TRV-END-01", "Endorsement 3", "c", None, removed_by=("endorsement_3",)),
        plans=("Basic", "Comprehensive"),
    )
    new = _directory(
        "2027.1",
        DirectoryEntry("TRV-BEN-01", "Travel delay", "a", None, plans=("Essentials", "Comprehensive")),
        DirectoryEntry("TRV-BEN-02", "Snow sports", "b", None, added_by=("snow_sports",)),
        DirectoryEntry("TRV-END-01", "Endorsement 3", "c", None),
        DirectoryEntry("TRV-BEN-03", "Cruise cover", "d", None, added_by=("cruise_cover",)),
        plans=("Basic", "Essentials", "Comprehensive"),
    )
    found = compare_applicability(old, new)
    assert found.wording.plans == AddedRemoved(added=("Essentials",))
    assert found.wording.added_by == AddedRemoved(added=("cruise_cover",))
    assert found.wording.removed_by == AddedRemoved(removed=("endorsement_3",))
    assert found.changed == (
        ApplicabilityChange(
            "TRV-BEN-01",
            "Travel delay",
            (FieldChange("plans", ("Comprehensive",), ("Essentials", "Comprehensive")),),
        ),
        ApplicabilityChange(
            "TRV-END-01", "Endorsement 3", (FieldChange("removed_by", ("endorsement_3",), ()),)
        ),
    )
    [added] = found.added
    assert (added.clause_id, added.added_by) == ("TRV-BEN-03", ("cruise_cover",))
    # The first version has nothing to compare with.
    assert compare_applicability(None, old).changed == ()


def test_each_question_is_scored_with_itself_left_out_of_the_memory(corpus_store) -> None:
    """Every figure on evidence is scored leave-one-out: while a question is asked, the offline
    model's memory of verified questions cannot recall that very question."""
    seen: list[frozenset[str]] = []

    def routes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(LEAVE_OUT.get())
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, route("", ""))])

    asked = [q for q in load_questions(parts=("dev",)) if q.family == "motor" and not q.earlier][:3]
    report = run_release_check(
        corpus_store, "motor", "2026.2", model=FunctionModel(routes), inventory=asked, compare=False
    )
    assert [r.id for r in report.questions] == [q.id for q in asked]
    assert seen == [frozenset({q.id}) for q in asked]
    assert LEAVE_OUT.get() == frozenset()
    # Nothing served: no evidence that anything answers right, so the check fails.
    assert "nothing was served, so nothing shows an answer right" in report.summary.verdict.reasons
