"""Two handlers recording evidence at once, through HTTP: a rival request forced between one
request's read and its write (a pause before its first insert of evidence or of a mode change).
One row per key, no 500, one fall back per crossing of the bar and one event; a kept question
is never replaced by a later writer."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event, select

from agent.db.tables import AnsweringMode, Evidence
from tests.answering.support import db, drafting, events, live_at, load_inventory, owner, stored_check
from tests.answering.test_demotion import BASE, ask
from tests.conftest import STAFF_TOKENS

pytestmark = [pytest.mark.databases, pytest.mark.slow]  # two databases, a served answer each


@contextmanager
def rival_before_insert(live, kind: type, rival: Callable[[], object]) -> Iterator[list]:
    """Before the app's first flush that inserts a `kind`, start `rival` (another request) in a
    thread and let it finish, or be held by a lock, before this one writes (three seconds at most:
    a request held by the lock cannot finish until this one commits). Yields the rival's result."""
    sessions = live.app.state.services.sessions
    fired, done, result = threading.Event(), threading.Event(), []

    def run() -> None:
        try:
            result.append(rival())
        finally:
            done.set()

    def before_flush(session, _context, _instances) -> None:
        if fired.is_set() or not any(isinstance(o, kind) for o in session.new):
            return
        fired.set()
        threading.Thread(target=run, daemon=True).start()
        done.wait(3)

    event.listen(sessions, "before_flush", before_flush)
    try:
        yield result
        assert fired.is_set(), f"no {kind.__name__} was inserted: the race was not run"
        assert done.wait(60), "the rival request never finished"
    finally:
        event.remove(sessions, "before_flush", before_flush)


@pytest.fixture
def live(database_url, corpus_store):
    """The bar at 40 %: seven right answers meet it (34.8 %), one flagged of eight does not (47.1 %)."""
    with live_at(database_url, corpus_store, 40.0) as server:
        yield server


def answering_clause(live, database_url, corpus_store, served: int) -> list[str]:
    """MTR-BEN-03 earned `answers` on a check that answered its 7 questions right, then served
    `served` times: one flag of those is over the bar (1 wrong of 8)."""
    drafting(database_url)
    load_inventory(database_url, corpus_store)
    check = stored_check(database_url, corpus_store)
    with owner(live) as mere:
        moved = mere.post(f"{BASE}/answers", json={"clause_ids": ["MTR-BEN-03"], "check_id": check})
        assert moved.status_code == 200, moved.text
    turns = [ask(live, f"How long can I keep a hire car? ({n})") for n in range(served)]
    assert all(t["outcome"] == "answered" for t in turns), turns
    return [t["turn_id"] for t in turns]


def flag(live, user: str, turn_id: str, question: str | None = None):
    with live.client(STAFF_TOKENS[user]) as client:
        return client.post(f"/staff/api/turns/{turn_id}/flag", json={"question": question})


def automatic_changes(database_url: str) -> list[AnsweringMode]:
    with db(database_url) as session:
        return list(session.scalars(select(AnsweringMode).where(AnsweringMode.automatic.is_(True))))


def test_two_handlers_flagging_the_same_answer_at_once_make_one_row_and_one_fall_back(
    live, database_url, corpus_store
) -> None:
    [turn] = answering_clause(live, database_url, corpus_store, served=1)
    with rival_before_insert(live, Evidence, lambda: flag(live, "tama.staff", turn)) as rival:
        first = flag(live, "aroha.staff", turn)
    assert (first.status_code, rival[0].status_code) == (200, 200), (first.text, rival[0].text)
    assert first.json()["id"] == rival[0].json()["id"]
    with db(database_url) as session:
        rows = session.scalars(select(Evidence).where(Evidence.key == f"flag-{turn}")).all()
    assert len(rows) == 1
    assert len(automatic_changes(database_url)) == 1
    assert len(events(database_url, "clause_demoted")) == 1


def test_flags_of_two_answers_quoting_one_clause_at_once_demote_it_once(
    live, database_url, corpus_store
) -> None:
    one, two = answering_clause(live, database_url, corpus_store, served=2)
    with rival_before_insert(live, AnsweringMode, lambda: flag(live, "tama.staff", two)) as rival:
        first = flag(live, "aroha.staff", one)
    assert (first.status_code, rival[0].status_code) == (200, 200), (first.text, rival[0].text)
    [change] = automatic_changes(database_url)
    assert (change.clause_id, change.mode) == ("MTR-BEN-03", "drafts")
    assert len(events(database_url, "clause_demoted")) == 1


def test_a_kept_question_is_not_replaced_by_a_later_flag(live, database_url, corpus_store) -> None:
    [turn] = answering_clause(live, database_url, corpus_store, served=1)
    kept = flag(live, "aroha.staff", turn, "How long can I keep a hire car?")
    assert kept.json()["question"] == "How long can I keep a hire car?"
    for later in (None, "something else entirely"):
        again = flag(live, "tama.staff", turn, later)
        assert again.status_code == 200, again.text
        assert again.json()["question"] == "How long can I keep a hire car?"
