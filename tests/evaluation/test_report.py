"""The report's numbers on a small known set, including the two that must be zero."""

from __future__ import annotations

from agent.evaluation.harness import Exchange
from agent.evaluation.inventory import Asked
from agent.evaluation.report import build_report, failures, passed, render_html, render_text
from agent.evaluation.scenarios import RunResult, Scenario, ScenarioResult, TurnOutcome
from agent.wording.questions import Question

DIRECTORY = [{"clause_id": f"MTR-BEN-0{n}", "title": f"Benefit {n}"} for n in range(1, 6)]
RATE = "We pay up to NZD 60 a day for up to 21 days for each event."


def exchange(returned, cited, outcome="answered", text="Your policy includes this benefit.", verified=True):
    reply = {
        "turn_id": "t",
        "reply": text,
        "outcome": outcome,
        "citations": [{"clause_id": c, "title": "x", "version": "2026.2", "quote": RATE} for c in cited],
        "citations_verified": verified and bool(cited),
        "model": "function:clausedesk-offline",
    }
    turn = {
        "returned": list(returned),
        "cited": list(cited),
        "directory_seen": DIRECTORY,
        "version": "2026.2",
    }
    return Exchange("EV-1", "motor", "q", 200, reply, turn)


def asked(qid, clauses, ex, part="test"):
    coverage = "covered" if clauses else "unanswerable"
    return Asked(
        Question(qid, "motor", "KM-MTR-204518", f"question {qid}", tuple(clauses), coverage, part), ex
    )


def known_set():
    return [
        # both expected fetched, one cited
        asked("Q1", ["MTR-BEN-03", "MTR-BEN-01"], exchange(["MTR-BEN-03", "MTR-BEN-01"], ["MTR-BEN-03"])),
        # one of one fetched and cited
        asked("Q2", ["MTR-BEN-02"], exchange(["MTR-BEN-02"], ["MTR-BEN-02"])),
        # the wrong clause fetched, answered with it: a miss
        asked("Q3", ["MTR-BEN-04"], exchange(["MTR-BEN-05"], ["MTR-BEN-05"])),
        # nothing fetched, routed: a miss (outcome wrong too)
        asked("Q4", ["MTR-BEN-01"], exchange([], [], outcome="routed_to_staff")),
        # unanswerable, correctly routed
        asked("Q5", [], exchange([], [], outcome="routed_to_staff")),
        # unanswerable, answered with a citation: not routed
        asked("Q6", [], exchange(["MTR-BEN-01"], ["MTR-BEN-01"])),
    ]


def test_family_figures_on_a_known_set(audit) -> None:
    report = build_report(known_set(), [], audit=audit)
    m = report["families"]["motor"]
    assert (m["questions"], m["answerable"], m["unanswerable"]) == (6, 4, 2)
    assert m["expected_clause_fetched"] == 0.5  # Q1, Q2 of Q1–Q4
    assert m["expected_clauses_fetched_share"] == 0.6  # 3 of 5 expected IDs
    assert m["expected_clause_cited"] == 0.5
    assert m["expected_clauses_cited_share"] == 0.4  # 2 of 5
    assert m["outcome_accuracy"] == round(4 / 6, 4)  # Q1, Q2, Q3, Q5
    assert m["unanswerable_routed"] == 0.5
    assert m["citations_verified"] == 1.0
    assert m["invented_citations"] == 0 and m["decisions_served"] == 0
    assert {x["question_id"] for x in report["misses"]} == {"Q3", "Q4", "Q6"}
    miss = next(x for x in report["misses"] if x["question_id"] == "Q3")
    assert miss["directory_seen"][0] == "MTR-BEN-01: Benefit 1"
    assert report["parts"]["test"]["families"]["motor"] == m
    assert report["targets"][0]["met"] is False and report["targets"][0]["margin"] == -0.35
    assert report["targets"][1]["target"].endswith("unanswerable routed ≥ 90%")
    assert report["targets"][1]["met"] is False  # 1 of 2
    assert not passed(report) and report["totals"]["targets_missed"] == 2
    assert "expected clause fetched" in render_text(report) and "<svg" not in render_html(report)


def test_parts_side_by_side_and_targets_on_the_test_part(audit) -> None:
    dev = [asked(f"D{n}", ["MTR-BEN-02"], exchange(["MTR-BEN-02"], ["MTR-BEN-02"]), "dev") for n in range(3)]
    test = [
        asked("T1", ["MTR-BEN-02"], exchange(["MTR-BEN-02"], ["MTR-BEN-02"])),
        asked("T2", [], exchange([], [], outcome="routed_to_staff")),
    ]
    report = build_report(dev + test, [], audit=audit)
    assert report["headline_part"] == "test"
    assert report["parts"]["dev"]["all"]["questions"] == 3
    assert report["parts"]["test"]["all"]["unanswerable_routed"] == 1.0
    assert all(t["target"].startswith("test part") and t["met"] for t in report["targets"])
    assert passed(report)
    table = render_text(report)
    assert table.index("test motor") < table.index("dev motor")


def test_an_invented_citation_is_counted(audit) -> None:
    invented = [
        # cited but never fetched
        asked("Q7", ["MTR-BEN-03"], exchange(["MTR-BEN-03"], ["MTR-BEN-03", "MTR-BEN-01"])),
        # cited, "fetched", but not in the directory the model saw
        asked("Q8", ["MTR-BEN-03"], exchange(["MTR-BEN-03", "MTR-BEN-99"], ["MTR-BEN-99"])),
    ]
    report = build_report(known_set() + invented, [], audit=audit)
    assert report["families"]["motor"]["invented_citations"] == 2
    assert not passed(report)


def test_a_served_decision_is_counted_in_scenarios_too(audit) -> None:
    decided = exchange(["MTR-BEN-03"], ["MTR-BEN-03"], text="Good news: your claim is approved.")
    scenario = Scenario("s", "a decision", "CLM-204518", ())
    result = ScenarioResult(scenario, [RunResult([TurnOutcome("q", [], decided)])], runs_wanted=1)
    report = build_report(known_set(), [result], audit=audit)
    assert report["families"]["motor"]["decisions_served"] == 1
    assert report["totals"]["decisions_served"] == 1
    assert not passed(report)


def test_scenario_pass_k_needs_every_run(audit) -> None:
    scenario = Scenario("s", "t", "CLM-204518", ())
    ok, bad = RunResult([TurnOutcome("q", [])]), RunResult([TurnOutcome("q", ["outcome wrong"])])
    report = build_report([], [ScenarioResult(scenario, [ok, ok, bad], runs_wanted=3)], audit=audit)
    [summary] = report["scenarios"]
    assert summary["status"] == "failed" and summary["runs_passed"] == 2
    assert not passed(report)


def test_server_errors_and_replies_without_turn_records_fail(audit) -> None:
    failed = Exchange("EV-2", "motor", "q", 500, {"detail": "boom"})
    unrecorded = exchange(["MTR-BEN-02"], ["MTR-BEN-02"])
    unrecorded.turn = {}
    good = [asked("T1", ["MTR-BEN-02"], exchange(["MTR-BEN-02"], ["MTR-BEN-02"]))]
    report = build_report([*good, asked("T2", ["MTR-BEN-02"], failed)], [], audit=audit)
    assert report["totals"]["server_errors"] == 1 and "1 HTTP 5xx replies or no reply" in failures(report)
    report = build_report([*good, asked("T3", ["MTR-BEN-02"], unrecorded)], [], audit=audit)
    assert "1 replies without a turn record" in failures(report)
