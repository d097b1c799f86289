"""The development system shows both answering modes (start-dev.sh, `python -m agent dev-modes`):
Kowhai's clauses that a release check of the dev part shows right answer claimants (below the
bar with --below-bar, which a check of 12 questions needs), citing that check with the reason
"development data"; the travel wording, rendered to PDF and imported,
governs with a failed check (no evidence) and drafts every answer. Through HTTP, a claimant of
each sees what their wording's mode gives them."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from agent.answering.bar import Bar
from agent.answering.check_report import CheckReport, SubjectEvidence
from agent.answering.evidence import verified
from agent.answering.modes import history
from agent.cli.development import dev_evidence_loader
from agent.db.tables import ReleaseCheck, make_engine, make_sessionmaker
from agent.seed import seed_policies, seed_staff
from agent.settings import Settings
from agent.wording.development import (
    ACTOR,
    REASON,
    TRAVEL_FAMILY,
    TRAVEL_VERSION,
    bring_in_travel,
    earn_from_dev,
    earned,
    modes_line,
)
from agent.wording.memory_examples import served_model
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry
from tests.conftest import TOKENS, make_live_app, stop_live, use_model
from tests.support import answer, scripted

LIMIT = 12  # dev questions per family: enough to earn some clauses, quick to ask
TRAVEL_CLAIM, TRAVEL_TOKEN = "CLM-501201", "dev-claimant-501201"


def first_line(store, entry, clause_id: str) -> str:
    directory = ClauseLibrary(store).directory(entry)
    text = ClauseLibrary(store).fetch(directory, [clause_id]).clauses[0].text
    lines = [line.strip("-• ").strip() for line in text.splitlines()[1:]]
    return next(line for line in lines if len(line.split()) >= 6)


def _earned_from_dev(session, m, settings: Settings) -> None:  # type: ignore[no-untyped-def]
    """One Kowhai version's modes after earn_from_dev: approved from its check of the dev
    questions stored as evidence, below the bar with the reason, the version before drafting."""
    check = session.get(ReleaseCheck, m.check_id)
    store = check.report["evidence"]["store"]
    assert check.created_by == ACTOR and check.report["evidence"] == {
        "parts": ["dev"],
        "asked": LIMIT,
        "available": check.report["evidence"]["available"],
        "limit": LIMIT,
        "store": store,
    }
    # The check replayed the dev questions stored as evidence: the one measure.
    assert (store["verified_rows"], store["replayed"]) == (LIMIT, LIMIT)
    served_right = {
        c["clause_id"]
        for c in check.report["clause_evidence"]
        if c["served"] and not c["served_wrong"] and not c["pooled"]
    }
    assert set(m.answering) == served_right and 0 < len(m.answering) < m.clauses
    # Held to the bar, 12 questions earn nothing: 12 right answers bound the wrong share at 22 %.
    assert earned(CheckReport.of(check.report), Bar.of(settings)) == []
    changes = history(session, m.family, m.version)
    assert {c.clause_id for c in changes} == served_right
    for change in changes:  # each approval cites the check and says why it is allowed
        assert (change.mode, change.release_check_id, change.changed_by) == (
            "answers",
            m.check_id,
            ACTOR,
        )
        assert change.below_bar and change.reason.startswith("Below the bar (")
        assert change.reason.endswith(f"): {REASON}")
    # The dev questions are evidence of the version, each replayed by the check.
    rows = verified(session, m.family, m.version)
    assert {r.key for r in rows} == {q["id"] for q in check.report["questions"]} and len(rows) == LIMIT
    # The versions before stay drafting.
    assert history(session, m.family, "2025.1") == []


def test_kowhai_earns_answers_from_its_dev_part_and_the_imported_travel_wording_drafts(
    empty_database_url, changing_store, tmp_path: Path
) -> None:
    engine = make_engine(empty_database_url)
    sessions = make_sessionmaker(engine)
    seed_policies(sessions)
    seed_staff(sessions)
    settings = Settings()
    model = served_model(settings, sessions)  # as the API serves, with its memory
    load = dev_evidence_loader(changing_store)

    answering = earn_from_dev(
        changing_store, sessions, model, settings, questions=LIMIT, load=load, below_bar=True
    )
    assert [(m.family, m.version) for m in answering] == [
        ("contents", "2026.2"),
        ("home", "2026.2"),
        ("motor", "2026.2"),
    ]
    with sessions() as session:
        for m in answering:
            _earned_from_dev(session, m, settings)

    travel = bring_in_travel(changing_store, sessions, model, settings, tmp_path)
    assert (travel.family, travel.version, travel.answering) == (TRAVEL_FAMILY, TRAVEL_VERSION, ())
    assert travel.failed.startswith("no evidence") and (tmp_path / "kowhai-travel.pdf").exists()
    entry = Registry(changing_store).read()[0].entry(TRAVEL_FAMILY, TRAVEL_VERSION)
    assert (entry.status, entry.release_check, str(entry.effective_from)) == (
        "approved",
        travel.check_id,
        "2026-07-01",
    )
    line = modes_line(answering, [travel])
    assert line.startswith("Answering modes: contents 2026.2 answers on ")
    assert (
        f"Drafting: travel 2026.1 drafts every answer (check {travel.check_id} failed: no evidence)" in line
    )

    # Again, as every start does: nothing is asked or approved twice.
    with sessions() as session:
        checks = session.scalars(select(ReleaseCheck.id)).all()
    again = earn_from_dev(
        changing_store, sessions, model, settings, questions=LIMIT, load=load, below_bar=True
    )
    assert again == answering
    assert bring_in_travel(changing_store, sessions, model, settings, tmp_path) == travel
    with sessions() as session:
        assert session.scalars(select(ReleaseCheck.id)).all() == checks
        assert len(history(session, "motor", "2026.2")) == len(answering[2].answering)
    engine.dispose()

    # What claimants see: an earned motor clause answers; the travel wording drafts.
    motor = answering[2]
    server = make_live_app(empty_database_url, changing_store)
    try:
        earned_clause = motor.answering[0]
        motor_entry = Registry(changing_store).read()[0].entry("motor", "2026.2")
        span = first_line(changing_store, motor_entry, earned_clause)
        use_model(server, scripted([earned_clause], answer("", (earned_clause, span))))
        with server.client(TOKENS["CLM-204518"]) as claimant:
            served = claimant.post("/claims/CLM-204518/messages", json={"text": "What does my policy say?"})
        assert served.json()["outcome"] == "answered", served.json()
        travel_clause = ClauseLibrary(changing_store).directory(entry).entries[0].clause_id
        span = first_line(changing_store, entry, travel_clause)
        use_model(server, scripted([travel_clause], answer("", (travel_clause, span))))
        with server.client(TRAVEL_TOKEN) as claimant:
            drafted = claimant.post(f"/claims/{TRAVEL_CLAIM}/messages", json={"text": "Is my policy valid?"})
        body = drafted.json()
        assert (body["outcome"], body["route_reason"]) == ("routed_to_staff", "drafted_for_review"), body
        assert body["release"] == {"family": "travel", "version": "2026.1"} and body["citations"] == []
    finally:
        stop_live(server)


def test_development_data_is_held_to_the_bar_unless_told_otherwise() -> None:
    """Held to the bar, a clause or rule answers only if the check shows it meeting the bar; with
    below_bar, a clause short of it answers when nothing it served was wrong, a pooled rule never."""

    def clause(cid: str, served: int, wrong: int, meets: bool, pooled: bool = False) -> SubjectEvidence:
        wrongly = tuple(f"q{i}" for i in range(wrong))
        return SubjectEvidence(
            clause_id=cid, served=served, served_wrong=wrongly, meets_bar=meets, pooled=pooled
        )

    report = CheckReport(
        clause_evidence=(
            clause("A", 60, 0, True),  # 60 right answers: the bound is under 5 %
            clause("B", 2, 0, False),  # two right answers: far short of the bar
            clause("C", 5, 1, False),  # one wrong in five
            clause("D", 0, 0, False),  # never served
            clause("#model", 9, 0, False, pooled=True),  # a rule would serve everything the model says
        )
    )
    bar = Bar.of(Settings())
    assert [c.clause_id for c in earned(report, bar)] == ["A"]
    assert [c.clause_id for c in earned(report, bar, below_bar=True)] == ["A", "B"]
