"""start-dev's first questions: three development claims get a real first turn through the
API (answered, so no waiting item), once; the turn log then prints them (SQLite and
PostgreSQL)."""

from __future__ import annotations

import os

from sqlalchemy import create_engine, func, select

from agent.db.tables import Turn, WaitingItem
from agent.evaluation.first_turns import FIRST_QUESTIONS, send_first_questions
from tests.support import run_agent


def test_three_development_claims_get_one_answered_first_turn_and_the_log_shows_them(
    live, database_url
) -> None:
    first = send_first_questions(live.url)
    assert [(t.claim_id, t.outcome) for t in first] == [(c, "answered") for c, _ in FIRST_QUESTIONS]
    again = send_first_questions(live.url)  # their conversations are no longer empty
    assert [t.outcome for t in again] == ["skipped"] * len(FIRST_QUESTIONS)
    engine = create_engine(database_url)
    with engine.connect() as c:
        assert c.scalar(select(func.count()).select_from(Turn)) == len(FIRST_QUESTIONS)
        assert c.scalar(select(func.count()).select_from(WaitingItem)) == 0
    engine.dispose()

    log = run_agent("turns", "--last", "3", env={**os.environ, "CLAUSEDESK_DATABASE_URL": database_url})
    assert log.returncode == 0, log.stderr[-2000:]
    lines = log.stdout.strip().splitlines()
    assert lines[-1] == "3 turn records"
    for turn in first:
        assert any(turn.turn_id in line and turn.claim_id in line and "answered" in line for line in lines)
