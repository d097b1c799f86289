"""The learning curve's smoke run (`python -m agent curve` on a tiny budget), through HTTP: six
Kowhai questions streamed, four scored, checkpoints 0, 3 and 6. The scripted handler's answers
arrive as evidence of the governing wording (the claimant's words and the labelled clauses);
the scored part leaves no trace; the report has its table and plots. Then the parts that need
no system: the scripted model's draws, the bound, the checkpoints, the compare files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from agent.db.tables import Claim, Evidence, make_engine, make_sessionmaker
from agent.evaluation.curve import (
    Given,
    RunOptions,
    kowhai_inventory,
    parse_checkpoints,
    reported_bound,
    run_curve,
)
from agent.evaluation.curve_cli import run as run_cli
from agent.evaluation.curve_models import ScriptedSpecError, draw, missed, scripted_accuracy
from agent.evaluation.curve_report import CompareError, load_runs, render_html, report_of, write_report
from agent.seed import CLONE_PREFIX
from knowledge.store import ObjectStore
from tests.conftest import store_settings
from tests.support import serve

pytestmark = pytest.mark.slow  # a whole system started and 6 + 3 × 4 questions asked (about 30 s)

STREAM, SCORED = 6, 4


def pooled() -> Callable[[Any], tuple[str, Callable[[], None]]]:
    """The suite's pooled app servers, as the curve's way to serve its app."""

    def serve_app(app: Any) -> tuple[str, Callable[[], None]]:
        live = serve(app)
        return live.url, live.stop

    return serve_app


@pytest.fixture(scope="module")
def smoke(s3_server, tmp_path_factory, sqlite_template) -> tuple[dict[str, Any], str, Path]:
    """One smoke run, shared by the module: its report, its database and its output folder."""
    folder = tmp_path_factory.mktemp("curve")
    database_url = sqlite_template.fresh(folder, seeded=False)
    store = ObjectStore(store_settings(s3_server.endpoint))
    given = Given(database_url=database_url, store=store, serve=pooled())
    run = run_curve(
        RunOptions(stream=STREAM, scored=SCORED, checkpoints="0,3,all", given=given, progress=lambda _: None)
    )
    report = report_of([run])
    write_report(report, folder)
    return report, database_url, folder


def test_the_report_has_each_checkpoint_with_the_scored_figures(smoke) -> None:
    report, _, folder = smoke
    [run] = report["runs"]
    assert (run["family"], run["model"], run["bar_wrong_percent"], run["promotion"]) == (
        "kowhai",
        "offline",
        5,
        "owner",
    )
    assert [p["streamed"] for p in run["checkpoints"]] == [0, 3, STREAM]
    for point in run["checkpoints"]:
        held = point["scored"]
        assert held["questions"] == SCORED and held["http_errors"] == 0, held
        for key in ("served", "served_wrong", "answered_right_share", "drafted", "drafts_sendable"):
            assert key in held
        assert held["served"] == held["served_right"] + held["served_wrong"]
        assert held["drafts_sendable"] <= held["drafted"] <= SCORED
        # The policy owner's step ran for every approved Kowhai version at every checkpoint.
        assert {(s["family"], s["version"]) for s in point["owner_steps"]} >= {("motor", "2026.2")}
        assert all(s["status"] is not None for s in point["owner_steps"])
    # At checkpoint 0 the memory holds no streamed question: no evidence, and nothing earned.
    first = run["checkpoints"][0]
    assert first["evidence"] == {} and first["handler"] == {}
    assert sum(first["answering"].values()) == 0
    page = (folder / "report.html").read_text()
    assert page.count("<svg") == 3 and "<table>" in page and "questions streamed" in page
    assert json.loads((folder / "report.json").read_text())["runs"][0]["stream_ids"] == run["stream_ids"]


def test_the_handlers_answers_arrive_as_evidence_and_the_scored_part_leaves_no_trace(smoke) -> None:
    report, database_url, _ = smoke
    [run] = report["runs"]
    inventory = kowhai_inventory(run["seed"])
    streamed = inventory.stream[:STREAM]
    assert [q.id for q in streamed] == run["stream_ids"]
    engine = make_engine(database_url)
    try:
        with engine.connect() as c:
            rows = c.execute(
                select(Evidence.source, Evidence.question, Evidence.clauses, Evidence.routed)
            ).all()
            claims = c.scalars(select(Claim.claim_id).where(Claim.claim_id.startswith(CLONE_PREFIX))).all()
    finally:
        engine.dispose()
    handled = run["checkpoints"][-1]["handler"]
    answered = sum(
        n for action, n in handled.items() if action in ("sent_as_drafted", "answered", "answered_routed")
    )
    assert answered + handled.get("served_right", 0) + handled.get("flagged", 0) == STREAM, handled
    staff = {question: (clauses, routed) for source, question, clauses, routed in rows if source == "staff"}
    assert len(staff) == answered > 0
    for question in streamed:
        if question.text not in staff:
            continue
        clauses, routed = staff[question.text]
        # The handler cites the labelled clauses (at most three), or nothing for a question no clause answers.
        assert routed == (not question.clauses)
        assert set(clauses) == set(question.clauses[:3]), question.id
    scored_texts = {q.text for q in inventory.scored[:SCORED]}
    assert not scored_texts & {question for _, question, _, _ in rows}
    assert len(claims) == STREAM  # the scored claims were deleted; the streamed ones hold the evidence
    assert run["checkpoints"][-1]["evidence"].get("staff") == answered


def test_the_scripted_model_is_seeded_per_question_and_named_with_its_accuracy() -> None:
    assert scripted_accuracy("scripted:0.99") == 0.99
    assert scripted_accuracy("openai/gpt-4o-mini") is None
    for bad in ("scripted:x", "scripted:1.5"):
        with pytest.raises(ScriptedSpecError):
            scripted_accuracy(bad)
    assert draw(38, "MTR-Q01").random() == draw(38, "MTR-Q01").random()
    assert draw(38, "MTR-Q01").random() != draw(38, "MTR-Q02").random()
    # Right on exactly the stated share of the inventory, the same questions missed each time.
    ids = [f"Q{n:03}" for n in range(414)]
    assert len(missed(0.99, ids, 38)) == 4 and missed(0.99, ids, 38) == missed(0.99, list(reversed(ids)), 38)
    assert len(missed(0.8, ids, 38)) == 83 and missed(0.99, ids, 38) <= missed(0.8, ids, 38)
    assert missed(0.99, ids, 38) != missed(0.99, ids, 39) and missed(1.0, ids, 38) == frozenset()


def test_checkpoints_and_the_bound() -> None:
    assert parse_checkpoints("0,50,100,200,all", 292) == [0, 50, 100, 200, 292]
    assert parse_checkpoints("0,50,all", 30) == [0, 30]
    with pytest.raises(ValueError, match="not a number"):
        parse_checkpoints("0,some", 10)
    # 0 wrong of 21 still leaves about 13 % at 95 % (one-sided); nothing served, no bound.
    assert reported_bound(0, 21) == pytest.approx(0.1329, abs=0.001)
    assert reported_bound(1, 20) == pytest.approx(0.2161, abs=0.001)
    assert reported_bound(0, 0) is None


def test_compare_draws_earlier_runs_beside_and_refuses_what_is_not_a_report(smoke, tmp_path) -> None:
    report, _, folder = smoke
    runs = load_runs([folder / "report.json"])
    assert runs[0]["from_file"] == str(folder / "report.json")
    both = report_of([*report["runs"], *runs])
    assert render_html(both).count("<polyline") >= 2
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(CompareError, match="not a learning-curve report"):
        load_runs([bad])
    args = type("Args", (), {"model": "offline", "compare": [bad], "bar": None})()
    assert run_cli(args) == 2  # a usage error, before anything starts


def test_the_memory_at_checkpoint_0_holds_no_streamed_question(sqlite_template, tmp_path) -> None:
    """The curve's offline model reads this system's evidence store alone: the inventory shipped
    with the corpus (which holds the stream's dev part) never feeds it."""
    from agent.evaluation.curve import evidence_only_source
    from agent.wording.inventory_examples import inventory_source

    engine = make_engine(sqlite_template.fresh(tmp_path))
    try:
        source = evidence_only_source(make_sessionmaker(engine))
        assert inventory_source()("motor", "2026.2"), "the shipped memory holds dev questions"
        assert list(source("motor", "2026.2")) == []
    finally:
        engine.dispose()


def test_a_scripted_model_right_every_time_serves_answers_the_facts_judge_right(
    database_url, corpus_store
) -> None:
    """`scripted:1` where every clause answers: what it serves is right by the question's facts
    (the labelled clauses' sentences holding them, and the schedule figures they name), and a
    question no clause answers is routed."""
    from agent.evaluation.curve import clause_pools
    from agent.evaluation.curve_models import Labelled, scripted_model
    from agent.evaluation.harness import Harness, answer_everything
    from agent.wording.questions import load_questions, seeded_claims
    from tests.conftest import make_live_app, stop_live

    # CNT-N02's words are a dev question's too, asked on another policy with another answer;
    # MTR-N02 and CNT-N31 are answered by a schedule figure among others.
    wanted = ("MTR-N34", "MTR-N35", "CNT-N02", "MTR-Q01", "MTR-Q05", "MTR-N02", "CNT-N31")
    inventory = load_questions(None, ("dev", "test", "test2"))
    questions = [q for q in inventory if q.id in wanted]
    unanswerable = next(q for q in inventory if not q.answerable and q.family == "motor")
    questions.append(unanswerable)
    model = scripted_model(1.0, [Labelled(q, q.clauses) for q in inventory], clause_pools(corpus_store))
    engine = make_engine(database_url)
    answer_everything(make_sessionmaker(engine), corpus_store, by="tests")
    engine.dispose()
    live = make_live_app(database_url, corpus_store, model=model)
    harness = Harness(live.url, database_url)
    try:
        claims = seeded_claims()
        replies = {q.id: harness.send(harness.open_claim(claims[q.policy]), q.text) for q in questions}
    finally:
        harness.forget()
        harness.close()
        stop_live(live)
    for q in questions[:-1]:
        reply = replies[q.id].reply
        assert reply["outcome"] == "answered", (q.id, reply)
        assert q.judge(reply["reply"]).right, (q.id, q.judge(reply["reply"]), reply["reply"][:600])
    assert replies[unanswerable.id].reply["outcome"] == "routed_to_staff"
