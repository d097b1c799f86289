"""The report's numbers on a small known set, including the two that must be zero."""

from __future__ import annotations

from agent.evaluation.harness import Exchange
from agent.evaluation.inventory import Asked
from agent.evaluation.report.build import build_report
from agent.evaluation.report.page import render_html
from agent.evaluation.report.text import render_text
from agent.evaluation.report.verdict import failures, passed
from agent.evaluation.scenarios import RunResult, Scenario, ScenarioResult, TurnOutcome
from agent.wording.questions import Question

DIRECTORY = [{"clause_id": f"MTR-BEN-0{n}", "title": f"Benefit {n}"} for n in range(1, 6)]
RATE = "We pay up to NZD 60 a day for up to 21 days for each event."
BELONGINGS = "We pay up to NZD 1,000 for each event for belongings."


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


INCLUDED = (("Your policy includes this benefit",),)  # the fact the default reply holds


def asked(qid, clauses, ex, part="test2", facts=INCLUDED, wrong=()):
    coverage = "covered" if clauses else "unanswerable"
    facts = facts if clauses else ()
    question = Question(
        qid,
        "motor",
        "KM-MTR-204518",
        f"question {qid}",
        tuple(clauses),
        coverage,
        part,
        facts,
        wrong,
        route_ok=not clauses,
    )
    return Asked(question, ex)


def known_set():
    return [
        # both expected fetched, one cited
        asked("Q1", ["MTR-BEN-03", "MTR-BEN-01"], exchange(["MTR-BEN-03", "MTR-BEN-01"], ["MTR-BEN-03"])),
        # one of one fetched and cited
        asked("Q2", ["MTR-BEN-02"], exchange(["MTR-BEN-02"], ["MTR-BEN-02"])),
        # the wrong clause fetched, answered with it: a miss, and a served answer that is wrong
        asked("Q3", ["MTR-BEN-04"], exchange(["MTR-BEN-05"], ["MTR-BEN-05"], text=BELONGINGS)),
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
    assert report["parts"]["test2"]["families"]["motor"] == m
    # right for this claimant: Q1, Q2 right; Q3 misses its fact; Q6 answers what no clause does
    assert (m["served"], m["served_right"], m["served_wrong"]) == (4, 2, 2)
    assert m["served_wrong_share"] == 0.5 and m["answered_right_share"] == 0.5
    assert m["routed_though_answer_expected"] == 1  # Q4, whose routing is not acceptable
    wrong, right_share, routed = report["targets"]
    assert (
        wrong["target"]
        == "test2 part, all families: served answers wrong or irrelevant (share of served) ≤ 2%"
    )
    assert (wrong["met"], wrong["margin"]) == (False, -0.48)
    # Answered right at 50 % meets its target exactly: what drafting for staff costs.
    assert right_share["target"].endswith("answered right (share of answerable) ≥ 50%")
    assert (right_share["met"], right_share["margin"]) == (True, 0.0)
    assert routed["target"].endswith("unanswerable routed ≥ 90%") and routed["met"] is False  # 1 of 2
    assert not passed(report) and report["totals"]["targets_missed"] == 2
    assert "expected clause fetched" in render_text(report) and "<svg" not in render_html(report)


def test_parts_side_by_side_and_targets_on_the_test_part(audit) -> None:
    dev = [asked(f"D{n}", ["MTR-BEN-02"], exchange(["MTR-BEN-02"], ["MTR-BEN-02"]), "dev") for n in range(3)]
    test = [
        asked("T1", ["MTR-BEN-02"], exchange(["MTR-BEN-02"], ["MTR-BEN-02"])),
        asked("T2", [], exchange([], [], outcome="routed_to_staff")),
    ]
    first = [asked("F1", ["MTR-BEN-02"], exchange(["MTR-BEN-02"], ["MTR-BEN-02"]), "test")]
    report = build_report(dev + first + test, [], audit=audit)
    assert report["headline_part"] == "test2" and report["tuned_on_part"] == "dev"
    assert report["parts"]["dev"]["all"]["questions"] == 3
    assert report["parts"]["test2"]["all"]["unanswerable_routed"] == 1.0
    assert len(report["targets"]) == 3
    assert all(t["target"].startswith("test2 part") and t["met"] for t in report["targets"])
    assert passed(report)
    table = render_text(report)
    assert table.index("test2 motor") < table.index("test motor") < table.index("dev motor")
    assert "dev (tuned on)" in table and "test2 (headline, never tuned on)" in table
    # without the headline part, the headline is a part never tuned on, never the dev part
    assert build_report(dev + first, [], audit=audit)["headline_part"] == "test"


def test_each_wrong_answer_is_listed_with_what_it_said_and_the_fact_it_missed(audit) -> None:
    plan = (("Standard plan NZD 4,000 per item",),)
    row = "Jewellery and watches: Standard plan NZD 3,000 in total; Premier plan NZD 15,000 in total."
    answers = [
        asked("W1", ["CNT-LIM-01"], exchange(["CNT-LIM-01"], ["CNT-LIM-01"], text=row), facts=plan),
        asked(
            "W2",
            ["CNT-LIM-01"],
            exchange(["CNT-LIM-01"], ["CNT-LIM-01"], text="Standard plan NZD 4,000 per item. " + row),
            facts=plan,
            wrong=("Jewellery and watches",),
        ),
        asked("W3", [], exchange(["CNT-LIM-01"], ["CNT-LIM-01"], text=row)),
        asked(
            "W4",
            ["CNT-LIM-01"],
            exchange(["CNT-LIM-01"], ["CNT-LIM-01"], text="standard plan nzd 4000 per  item"),
            facts=plan,
        ),
    ]
    report = build_report(answers, [], audit=audit)
    listed = {w["question_id"]: w for w in report["wrong_answers"]}
    assert set(listed) == {"W1", "W2", "W3"}
    assert listed["W1"]["said"] == row and listed["W1"]["missed"] == [["Standard plan NZD 4,000 per item"]]
    assert listed["W2"]["missed"] == [] and listed["W2"]["wrong_found"] == ["Jewellery and watches"]
    assert listed["W3"]["irrelevant"] and listed["W3"]["why"] == [
        "served an answer to a question no clause answers"
    ]
    assert report["parts"]["test2"]["all"]["served_wrong_share"] == 0.75
    page = render_html(report)
    assert page.index("id=facts") < page.index("id=wrong") < page.index("Diagnostics")
    assert "missed: Standard plan NZD 4,000 per item" in page and "wrong: Jewellery and watches" in page
    assert "Served answers wrong or irrelevant (3)" in render_text(report)


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
