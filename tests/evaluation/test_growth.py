"""The growth benchmark at a tiny scale: it fills an empty database in bulk (SQLite and
PostgreSQL), measures every read it names and refuses a database that is not empty."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import create_engine, func, select

from agent.db.tables import Message, Turn, WaitingItem
from agent.evaluation.growth.command import run_growth

# The database is the subject: these run on SQLite and PostgreSQL in every run.
pytestmark = pytest.mark.databases


def test_growth_bench_smoke_run(empty_database_url, tmp_path, capsys) -> None:
    out = tmp_path / "growth.json"
    assert run_growth(empty_database_url, scale=0.0005, repeat=2, json_path=str(out)) == 0
    figures = json.loads(out.read_text())
    assert figures["generated"] == {**figures["generated"], "claims": 5, "turns": 500, "waiting_items": 50}
    rows = figures["rows"]
    for name in (
        "staff list, status=waiting",
        "one item",
        "content gaps",
        "wording page (API)",
        "agent affected motor 2026.2",
        "conversation read, long claim",
        "claimant turn at the end of the long conversation",
    ):
        assert rows[name]["n"] == 2 and rows[name]["p95_ms"] >= rows[name]["p50_ms"] > 0, name
    assert "| one item |" in capsys.readouterr().out
    engine = create_engine(empty_database_url)
    with engine.connect() as c:
        turns = c.scalar(select(func.count()).select_from(Turn))
        items = c.scalar(select(func.count()).select_from(WaitingItem))
        long = c.scalar(select(func.count()).select_from(Message).where(Message.claim_id == "CLM-204518"))
    engine.dispose()
    assert turns >= 500 and items >= 50
    assert long >= 10  # the long conversation (at least 10 messages at any scale) and the timed turns
    # A second run refuses the database it filled.
    assert run_growth(empty_database_url, scale=0.0005, repeat=2) == 2
