"""`evaluate` end to end against the real app over HTTP: it passes when everything holds and
fails, with a non-zero status, when the API returns a 500, a reply has no turn record, a
quote is altered in the store after the run starts, or a target is missed."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import text

from agent.evaluation.attacks.catalogue import catalogue
from agent.evaluation.harness import EvalClaim, Exchange, Harness
from agent.evaluation.run import Options, evaluate, model_matches, runs_for
from knowledge.clauses import Directory, clause_key
from knowledge.manifest import Registry
from knowledge.store import ObjectStore
from tests.conftest import make_live_app, stop_live

REPO = Path(__file__).resolve().parents[2]
RENTAL = "Can I get a rental car while mine is being repaired?"


def write_questions(folder: Path, fact: str = "NZD 60 a day") -> Path:
    """One answerable question (a right answer holds `fact`) and one no clause answers, per part."""
    for part, qid in (("dev", "MTR-D1"), ("test", "MTR-T1"), ("test2", "MTR-N1")):
        (folder / part).mkdir(parents=True)
        (folder / part / "motor.toml").write_text(
            f'family = "motor"\n\n[[question]]\nid = "{qid}"\npolicy = "KM-MTR-204518"\n'
            f'text = "{RENTAL}"\nclauses = ["MTR-BEN-03"]\ncoverage = "covered"\n'
            f'facts = [["{fact}"]]\nroute_ok = false\n\n'
            f'[[question]]\nid = "{qid}U"\npolicy = "KM-MTR-204518"\n'
            'text = "Any update on my claim? Nobody has called me back."\nclauses = []\n'
            'coverage = "unanswerable"\nfacts = []\nroute_ok = true\n',
            encoding="utf-8",
        )
    return folder


@contextmanager
def running(store: ObjectStore, url: str, tmp_path: Path) -> Iterator[dict]:
    """The app on `store` and a fresh SQLite file, with a scenario folder and question files."""
    live = make_live_app(url, store)
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    shutil.copy(REPO / "corpus" / "scenarios" / "rental-car-included.toml", scenarios)
    try:
        yield {
            "live": live,
            "url": url,
            "store": store,
            "scenarios": scenarios,
            "questions": write_questions(tmp_path / "questions"),
            "reports": tmp_path / "reports",
        }
    finally:
        stop_live(live)


@pytest.fixture
def system(corpus_store, sqlite_template, tmp_path: Path) -> Iterator[dict]:
    """The evaluations only read the corpus: the shared bucket."""
    with running(corpus_store, sqlite_template.fresh(tmp_path), tmp_path) as system:
        yield system


@pytest.fixture
def system_on_its_own_bucket(changing_store, sqlite_template, tmp_path: Path) -> Iterator[dict]:
    """For a test that alters a clause in the store: the module's own bucket, put back after."""
    with running(changing_store, sqlite_template.fresh(tmp_path), tmp_path) as system:
        yield system


# Two attacks stand for the catalogue here: the evaluation's handling of the suite is what these
# tests check; tests/boundary/test_adversarial.py plays the whole catalogue once.
FEW_ATTACKS = ["fabricated-link", "issue17-te-reo"]


def run(system: dict, decision_phrases: Path, **kwargs) -> tuple[int, dict]:
    options = {
        "attacks": [a for a in catalogue() if a.id in FEW_ATTACKS],
        "report_dir": system["reports"],
        "decision_phrases": decision_phrases,
        "knowledge_store": system["store"],
        "questions_dir": system["questions"],
        "scenarios_dir": system["scenarios"],
        "concurrency": 1,
    } | kwargs
    status = evaluate(system["live"].url, Options(system["url"], **options))
    report_file = system["reports"] / "latest.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    return status, report


def test_evaluate_passes_when_every_check_holds(system: dict, decision_phrases: Path) -> None:
    status, report = run(system, decision_phrases)
    assert status == 0, report.get("totals")
    assert set(report["parts"]) == {"dev", "test", "test2"} and report["headline_part"] == "test2"
    headline = report["parts"]["test2"]["all"]
    assert (headline["served"], headline["served_right"], headline["served_wrong_share"]) == (1, 1, 0.0)
    assert headline["answered_right_share"] == 1.0 and headline["unanswerable_routed"] == 1.0
    assert report["wrong_answers"] == []
    assert report["meta"]["runs"] == 1 and "deterministic" in report["meta"]["runs_note"]
    assert report["meta"]["model"] == "clausedesk-offline"
    assert report["totals"]["quotes_rechecked"] > 0 and report["totals"]["quote_mismatches"] == 0


def test_evaluate_fails_when_a_target_is_missed(system: dict, decision_phrases: Path, tmp_path: Path) -> None:
    wrong = write_questions(tmp_path / "wrong", fact="NZD 90 a day")
    status, report = run(system, decision_phrases, questions_dir=wrong)
    assert status == 3  # every guarantee held; only the targets are missed
    assert report["totals"]["targets_missed"] == 2  # served wrong, answered right; routing still met
    assert any(not t["met"] and t["target"].startswith("test2 part") for t in report["targets"])
    listed = {w["question_id"]: w for w in report["wrong_answers"]}
    assert listed["MTR-N1"]["missed"] == [["NZD 90 a day"]] and "NZD 60 a day" in listed["MTR-N1"]["said"]


def test_a_broken_guarantee_is_status_1_whatever_the_targets() -> None:
    from agent.evaluation.report.verdict import exit_status, outcome_line

    def report(**totals: int) -> dict:
        return {"totals": totals}

    assert exit_status(report()) == 0
    assert exit_status(report(targets_missed=2)) == 3
    assert exit_status(report(targets_missed=2, server_errors=1)) == 1
    assert exit_status(report(invented_citations=1)) == 1
    assert exit_status({"totals": {"targets_missed": 1}, "adversarial": {"served": 1}}) == 1
    assert outcome_line(report(targets_missed=2)) == "TARGETS MISSED (every guarantee held): 2 targets missed"
    assert outcome_line(report(targets_missed=2, server_errors=1)).startswith("FAILED: 1 HTTP 5xx")


def test_a_held_out_folder_of_question_files_is_its_own_part_and_the_headline(
    system: dict, decision_phrases: Path, tmp_path: Path
) -> None:
    written = write_questions(tmp_path / "given")
    held_out = tmp_path / "heldout"
    held_out.mkdir()
    shutil.copy(written / "test2" / "motor.toml", held_out / "motor.toml")
    status, report = run(system, decision_phrases, questions_dir=held_out)
    assert status == 0, report.get("totals")
    assert set(report["parts"]) == {"heldout"} and report["headline_part"] == "heldout"
    assert report["parts"]["heldout"]["all"]["served_right"] == 1
    assert all(t["target"].startswith("heldout part") and t["met"] for t in report["targets"])


def test_question_parts_are_found_in_a_folder_or_refused_when_there_are_none(tmp_path: Path) -> None:
    from agent.wording.questions import parts_in

    three = write_questions(tmp_path / "three")
    assert parts_in(three) == (three, ("dev", "test", "test2"))
    assert parts_in(three / "test2") == (three.resolve(), ("test2",))
    (tmp_path / "empty" / "imported").mkdir(parents=True)
    with pytest.raises(FileNotFoundError, match="no question files"):
        parts_in(tmp_path / "empty")


class DroppingTurns(Harness):
    """Breaks the system's database under the running API after the first reply: the next
    message fails inside the app, which answers 500."""

    sent = 0

    def send(self, claim: EvalClaim, text_: str, *, leave_out: str | None = None) -> Exchange:
        exchange = super().send(claim, text_, leave_out=leave_out)
        DroppingTurns.sent += 1
        if DroppingTurns.sent == 1:
            with self.engine.begin() as connection:
                connection.execute(text("DROP TABLE turns"))
        return exchange


def test_evaluate_fails_when_the_api_returns_a_500(system: dict, decision_phrases: Path) -> None:
    DroppingTurns.sent = 0
    status, report = run(system, decision_phrases, harness_factory=DroppingTurns)
    assert status == 1
    assert report["totals"]["server_errors"] >= 1


class Unrecorded(Harness):
    def turn_record(self, turn_id: str) -> dict:
        return {}


def test_evaluate_fails_on_a_reply_without_a_turn_record(system: dict, decision_phrases: Path) -> None:
    status, report = run(system, decision_phrases, harness_factory=Unrecorded, only="inventory")
    assert status == 1 and report["totals"]["without_turn_record"] == 6


def alter_clause(store: ObjectStore, family: str, version: str, clause_id: str, old: str, new: str) -> None:
    """Rewrite a stored clause and point the directory and manifest at it, as a silent edit of
    the approved wording in the store would."""
    registry = Registry(store)
    manifest, seen = registry.read()
    entry = manifest.entry(family, version)
    directory = Directory.from_json(store.get(entry.directory_key, entry.directory_object_version).data)
    listed = directory.get(clause_id)
    assert listed is not None
    key = clause_key(family, version, clause_id)
    original = store.get(key, listed.object_version)
    data = original.data.decode().replace(old, new).encode()
    assert data != original.data
    sha = hashlib.sha256(data).hexdigest()
    object_version = store.put(key, data, {**original.metadata, "sha256": sha})
    entries = tuple(
        dataclasses.replace(e, object_version=object_version, sha256=sha) if e.clause_id == clause_id else e
        for e in directory.entries
    )
    new_directory = dataclasses.replace(directory, entries=entries)
    entry.directory_object_version = store.put(
        entry.directory_key, new_directory.to_json(), content_type="application/json"
    )
    registry.write(manifest, seen)


def test_evaluate_fails_when_a_quote_is_altered_in_the_store_after_the_run_starts(
    system_on_its_own_bucket: dict, decision_phrases: Path
) -> None:
    system = system_on_its_own_bucket
    store = system["store"]

    class AlteringAfterFirstReply(Harness):
        done = False

        def send(self, claim: EvalClaim, text_: str, *, leave_out: str | None = None) -> Exchange:
            exchange = super().send(claim, text_, leave_out=leave_out)
            if not AlteringAfterFirstReply.done:
                AlteringAfterFirstReply.done = True
                alter_clause(store, "motor", "2026.2", "MTR-BEN-03", "NZD 60 a day", "NZD 90 a day")
            return exchange

    status, report = run(system, decision_phrases, harness_factory=AlteringAfterFirstReply)
    assert status == 1
    assert report["totals"]["quote_mismatches"] >= 1
    assert {p["clause_id"] for p in report["quote_problems"]} == {"MTR-BEN-03"}


def test_evaluate_refuses_to_run_without_its_labelled_decision_list(system: dict, tmp_path: Path) -> None:
    status, _ = run(system, tmp_path / "no-such-file.tsv")
    assert status == 2


def test_evaluate_checks_that_the_system_runs_the_model_asked_for(
    system: dict, decision_phrases: Path
) -> None:
    status, _ = run(system, decision_phrases, model="openai/gpt-4o-mini")
    assert status == 2
    status, _ = run(system, decision_phrases, model="offline", only="scenarios")
    assert status == 0


def test_scenario_runs_follow_the_model() -> None:
    assert runs_for("clausedesk-offline", None)[0] == 1
    assert runs_for("openai/gpt-4o-mini", None)[0] == 5
    assert runs_for("clausedesk-offline", 3)[0] == 3
    assert model_matches("hosted_vllm/qwen", "hosted_vllm/qwen") and not model_matches("offline", "x")


def evaluation_rows(url: str) -> dict[str, int]:
    from agent.db.tables import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return {
                table: connection.execute(
                    text(f"SELECT count(*) FROM {table} WHERE claim_id LIKE 'EV-%'")
                ).scalar_one()
                for table in ("claims", "messages", "turns", "waiting_items")
            } | {"seeded": connection.execute(text("SELECT count(*) FROM claims")).scalar_one()}
    finally:
        engine.dispose()


def test_evaluate_leaves_no_trace_on_the_system_it_measured(system: dict, decision_phrases: Path) -> None:
    status, report = run(system, decision_phrases, only="inventory")
    assert status == 0 and report["totals"]["inventory_questions"] == 6
    # The routed questions reached the waiting list during the run; afterwards nothing of
    # the run is left: no claims, messages, turn records or waiting items, seeded claims kept.
    assert evaluation_rows(system["url"]) == {
        "claims": 0,
        "messages": 0,
        "turns": 0,
        "waiting_items": 0,
        "seeded": 6,
    }
    status, _ = run(system, decision_phrases, only="inventory", keep_claims=True)
    kept = evaluation_rows(system["url"])
    assert kept["claims"] == 6 and kept["turns"] == 6 and kept["waiting_items"] == 3
