"""The load probes' reading of the database (agent.evaluation.probes.read_back): what it calls
lost, out of order and unanswered is what the database shows."""

from __future__ import annotations

from agent.db.tables import Message, Turn, make_engine, make_sessionmaker
from agent.evaluation.probes import Tally, read_back

CLAIM = "CLM-204518"


def test_read_back_counts_lost_out_of_order_and_unanswered_messages(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as session:
        # Sent k0, k1, k2, k3 in that order; stored k0, k2, k1; k3 acknowledged but never stored.
        stored = {}
        for key in ("k0", "k2", "k1"):
            message = Message(claim_id=CLAIM, role="claimant", body="What is my excess?", idempotency_key=key)
            session.add(message)
            session.flush()
            stored[key] = message.id
        for key in ("k0", "k2"):  # k1 was never answered
            turn = Turn(claim_id=CLAIM, message_id=stored[key], outcome="answered")
            session.add(turn)
            session.flush()
            session.add(Message(claim_id=CLAIM, role="agent", body="…", turn_id=turn.id))
    tally = Tally(
        sent={CLAIM: ["k0", "k1", "k2", "k3"]}, acknowledged={"k0", "k1", "k2", "k3"}, server_errors=2
    )
    figures = read_back(sessions, tally).figures
    engine.dispose()
    assert figures["sent"] == 4 and figures["stored"] == 3
    assert figures["lost"] == 1
    assert figures["out_of_order"] == 1  # k1 stored after k2
    assert figures["unanswered"] == 1
    assert figures["duplicated"] == 0
    assert figures["5xx"] == 2


def test_read_back_finds_nothing_wrong_in_a_clean_run(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as session:
        for key in ("a", "b"):
            message = Message(claim_id=CLAIM, role="claimant", body="Thanks!", idempotency_key=key)
            session.add(message)
            session.flush()
            turn = Turn(claim_id=CLAIM, message_id=message.id, outcome="nothing_asked")
            session.add(turn)
            session.flush()
            session.add(Message(claim_id=CLAIM, role="agent", body="…", turn_id=turn.id))
    figures = read_back(sessions, Tally(sent={CLAIM: ["a", "b"]}, acknowledged={"a", "b"})).figures
    engine.dispose()
    assert {k: figures[k] for k in ("lost", "duplicated", "out_of_order", "unanswered")} == dict.fromkeys(
        ("lost", "duplicated", "out_of_order", "unanswered"), 0
    )
