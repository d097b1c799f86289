"""The evidence store on both databases: the policy owner's inventory loaded by the command line
(once per question, however often it runs), the selector's examples read from it, and evidence
carried into a later version by clause content."""

from __future__ import annotations

import subprocess

import pytest
from sqlalchemy import func, select

from agent.answering import evidence
from agent.answering.carry import carry_into, hashes_of
from agent.db.tables import Evidence
from knowledge.clauses import ClauseLibrary
from tests.answering.support import QUESTIONS, db, load_inventory
from tests.support import run_agent

pytestmark = pytest.mark.databases


def evidence_cli(database_url: str, store, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": "/usr/bin:/bin",
        "CLAUSEDESK_DATABASE_URL": database_url,
        "CLAUSEDESK_S3_ENDPOINT": store.settings.endpoint,
        "CLAUSEDESK_S3_BUCKET": store.settings.bucket,
        "CLAUSEDESK_S3_ACCESS_KEY": store.settings.access_key,
        "CLAUSEDESK_S3_SECRET_KEY": store.settings.secret_key,
    }
    return run_agent("evidence", *args, env=env)


def test_loading_an_inventory_twice_keeps_one_row_per_question(database_url, corpus_store) -> None:
    inventory = str(QUESTIONS / "dev" / "motor.toml")
    first = evidence_cli(database_url, corpus_store, "load", "motor", "2026.2", inventory)
    assert first.returncode == 0, first.stderr
    assert "evidence motor 2026.2: 72 added, 0 updated, 0 unchanged" in first.stdout
    again = evidence_cli(database_url, corpus_store, "load", "motor", "2026.2", inventory)
    assert again.returncode == 0, again.stderr
    assert "evidence motor 2026.2: 0 added, 0 updated, 72 unchanged" in again.stdout

    with db(database_url) as session:
        assert session.scalar(select(func.count()).select_from(Evidence)) == 72
        q01 = session.scalar(select(Evidence).where(Evidence.key == "MTR-Q01"))
        assert (q01.source, q01.status, q01.clauses, q01.routed) == (
            "inventory",
            "verified",
            ["MTR-BEN-03"],
            False,
        )
        assert q01.context["plan"] == "Comprehensive" and "alternative_transport" in q01.context["sections"]
        assert q01.facts == [["NZD 60 a day"]]
        assert [d["clause_id"] for d in q01.deciding] == ["MTR-BEN-03"]
        assert "NZD 60 a day" in q01.deciding[0]["sentence"]
        assert set(q01.clause_hashes) == {"MTR-BEN-03"} and len(q01.clause_hashes["MTR-BEN-03"]) == 64
        examples = evidence.verified_examples(session, "motor", "2026.2")
    assert len(examples) == 72
    [example] = [e for e in examples if e.key == "MTR-Q01"]
    assert (example.clause_ids, example.routed, example.source) == (("MTR-BEN-03",), False, "inventory")
    assert sum(e.routed for e in examples) == 23  # the questions no clause answers: routed is right


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_inventory_citing_a_clause_the_version_lacks_is_refused_whole(
    database_url, corpus_store, tmp_path
) -> None:
    folder = tmp_path / "dev"
    folder.mkdir()
    bad = folder / "motor.toml"
    text = (QUESTIONS / "dev" / "motor.toml").read_text(encoding="utf-8")
    bad.write_text(text.replace('clauses = ["MTR-BEN-03"]', 'clauses = ["MTR-BEN-99"]', 1), encoding="utf-8")
    refused = evidence_cli(database_url, corpus_store, "load", "motor", "2026.2", str(bad))
    assert refused.returncode == 2
    assert "question MTR-Q01 cites MTR-BEN-99, not in motor 2026.2" in refused.stderr
    with db(database_url) as session:
        assert session.scalar(select(func.count()).select_from(Evidence)) == 0


def test_evidence_carries_over_where_the_clause_keeps_its_text_and_waits_where_it_changed(
    database_url, corpus_store
) -> None:
    rows = load_inventory(database_url, corpus_store, "motor", "2026.2")
    library = ClauseLibrary(corpus_store)
    old, new = hashes_of(library, "motor", "2026.2"), hashes_of(library, "motor", "2027.1")
    changed = {c for c in old if old[c] != new.get(c)}
    assert "MTR-BEN-03" in changed  # 2027.1 pays NZD 80 a day for a hire car
    unchanged = {c for c in old if old[c] == new.get(c)}
    assert unchanged  # most clauses keep their text

    with db(database_url) as session:
        done = carry_into(session, corpus_store, "motor", "2027.1", by="tests")
    assert done.source == "2026.2"
    expect_waiting = {r.key for r in rows if set(r.clauses) & changed}
    assert set(done.awaiting_review) == expect_waiting and "MTR-Q01" in expect_waiting
    assert set(done.carried) == {r.key for r in rows} - expect_waiting

    with db(database_url) as session:
        carried = {r.key: r for r in session.scalars(select(Evidence).where(Evidence.version == "2027.1"))}
        assert carried["MTR-Q01"].status == "awaiting_review"
        steady = next(k for k in done.carried if carried[k].clauses)
        assert carried[steady].status == "verified" and carried[steady].carried_from == "2026.2"
        assert all(carried[steady].clause_hashes[c] == new[c] for c in carried[steady].clauses)
        # Only verified evidence reaches the selector.
        keys = {e.key for e in evidence.verified_examples(session, "motor", "2027.1")}
        assert "MTR-Q01" not in keys and steady in keys
        again = carry_into(session, corpus_store, "motor", "2027.1", by="tests")
    assert (again.carried, again.awaiting_review, len(again.already)) == ([], [], len(rows))
