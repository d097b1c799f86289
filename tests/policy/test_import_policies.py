"""`python -m agent import-policies FILE.jsonl`: the bad lines are listed (line, field,
problem), the good ones loaded, and loading the same file again changes nothing."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from agent.db.tables import IntakeAudit, PolicyTerm
from tests.policy.intake_support import two_term_policy
from tests.support import run_agent


def run_import(database_url: str, path) -> subprocess.CompletedProcess:
    env = dict(os.environ, CLAUSEDESK_DATABASE_URL=database_url)
    return run_agent("import-policies", str(path), env=env)


@pytest.mark.slow  # a process of its own
def test_bad_lines_are_listed_and_the_good_ones_loaded(empty_database_url, tmp_path) -> None:
    database_url = empty_database_url
    good_one = {"policy_number": "KM-MTR-900101", **two_term_policy()}
    good_two = {"policy_number": "KM-MTR-900102", **two_term_policy(), "policyholder": "Rawiri Tane"}
    bad_fields = {
        **good_one,
        "policy_number": "KM-MTR-900103",
        "family": "",
        "terms": [{"plan": "Comprehensive"}],
    }
    overlapping = {"policy_number": "KM-MTR-900104", **two_term_policy()}
    overlapping["terms"][1]["term_start"] = "2026-01-01"
    path = tmp_path / "policies.jsonl"
    path.write_text(
        "\n".join(
            [
                json.dumps(good_one),
                "{not json",
                json.dumps(bad_fields),
                "",
                json.dumps(good_two),
                json.dumps(overlapping),
            ]
        )
        + "\n",
        encoding="utf-8",
    )

    first = run_import(database_url, path)
    assert first.returncode == 1, first.stderr
    assert "2 created, 0 updated, 0 unchanged, 3 bad lines" in first.stdout
    errors = first.stderr.splitlines()
    not_json = "not JSON (Expecting property name enclosed in double quotes at column 2)"
    assert f"policies.jsonl: line 2: line: {not_json}" in errors
    assert any(e.startswith("policies.jsonl: line 3: family: String should match pattern") for e in errors)
    assert "policies.jsonl: line 3: terms.0.term_start: Field required" in errors
    assert "policies.jsonl: line 3: terms.0.term_end: Field required" in errors
    assert any(
        e.startswith("policies.jsonl: line 6: terms: terms 0 (2025-08-01 to 2026-08-01) and 1")
        for e in errors
    )

    engine = create_engine(database_url)
    with Session(engine) as session:
        loaded = session.scalars(select(PolicyTerm.policy_number).order_by(PolicyTerm.policy_number)).all()
        audited = session.scalars(select(IntakeAudit.actor)).all()
    engine.dispose()
    assert loaded == ["KM-MTR-900101", "KM-MTR-900101", "KM-MTR-900102", "KM-MTR-900102"]
    assert audited == ["import:policies.jsonl"] * 2

    again = run_import(database_url, path)
    assert "0 created, 0 updated, 2 unchanged, 3 bad lines" in again.stdout


def test_an_unreadable_file_is_said_plainly(sqlite_url, tmp_path) -> None:
    result = run_import(sqlite_url, tmp_path / "missing.jsonl")
    assert result.returncode == 2 and "cannot read" in result.stderr and "missing.jsonl" in result.stderr
