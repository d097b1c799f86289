"""`evaluate --answer-all`: every approved wording answers for the run, and the system's answering
modes are as they were afterwards."""

from __future__ import annotations

from sqlalchemy import func, select

from agent.answering.modes import modes_for, set_mode
from agent.db.tables import AnsweringMode, make_engine, make_sessionmaker
from agent.evaluation.harness import ANSWER_ALL_BY, answering_for_the_run


def test_every_approved_wording_answers_for_the_run_and_the_modes_come_back(
    database_url, corpus_store
) -> None:
    engine = make_engine(database_url)
    sessions = make_sessionmaker(engine)
    try:
        with sessions.begin() as session:  # a clause a policy owner moved back to drafts
            set_mode(session, "motor", "2026.2", "MTR-BEN-03", "drafts", by="owner", reason="test")
        with sessions() as session:
            before = session.scalar(select(func.count(AnsweringMode.id)))
        with answering_for_the_run(sessions, corpus_store), sessions() as session:
            assert modes_for(session, "motor", "2026.2", ["MTR-BEN-03"]) == {"MTR-BEN-03": "drafts"}
            added = session.scalar(select(func.count()).where(AnsweringMode.changed_by == ANSWER_ALL_BY))
            assert added == 6  # the corpus's approved versions: two of each family
        with sessions() as session:
            assert session.scalar(select(func.count(AnsweringMode.id))) == before
            assert modes_for(session, "motor", "2026.2", ["MTR-BEN-03"]) == {"MTR-BEN-03": "drafts"}
    finally:
        engine.dispose()
