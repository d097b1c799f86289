"""The load probes' reading of the database (agent.evaluation.probes.read_back): what it calls
lost, out of order and unanswered is what the database shows."""

from __future__ import annotations

import pytest

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


@pytest.mark.slow  # a serve process
def test_a_serve_process_is_known_by_its_own_health_not_by_an_open_port(tmp_path, sqlite_url: str) -> None:
    """The port the probe picked is taken by another listener before its serve binds it: the
    probe says so and stops, instead of measuring whatever answers there."""
    import http.server
    import json
    import threading

    from agent.evaluation import probes
    from knowledge.settings import StoreSettings

    class Other(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"database": "ok", "knowledge": "ok", "instance": "someone-else"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Other)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    store = StoreSettings(endpoint="127.0.0.1:9", bucket="none", access_key="x", secret_key="y")
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(probes, "free_port", lambda: other.server_address[1])
            with pytest.raises(Exception, match=r"serve process \d+ on port \d+ (exited|alive, but not)"):
                probes.start_server(sqlite_url, store, tmp_path / "serve.log", timeout_s=60)
    finally:
        other.shutdown()


def test_the_load_probe_fails_on_a_4xx_it_did_not_expect(monkeypatch) -> None:
    from argparse import Namespace

    from agent.evaluation import probe_cli

    clean = dict.fromkeys(("lost", "duplicated", "out_of_order", "unanswered", "5xx", "gave_up"), 0)
    monkeypatch.setattr(probe_cli, "run_load", lambda **_: {**clean, "other_4xx": 3})
    args = Namespace(kind="load", seconds=1, claimants=1, database="sqlite", json=None)
    assert probe_cli.main(args) == 1
    monkeypatch.setattr(probe_cli, "run_load", lambda **_: {**clean, "other_4xx": 0})
    assert probe_cli.main(args) == 0


def test_the_fuzzer_signs_in_as_every_role_an_operation_admits(live) -> None:
    """Every operation's tag has a pass of its own (agent.evaluation.probes.FUZZ_ROLES), with a
    token of the role it admits: none is fuzzed only against its authentication."""
    from agent.evaluation.probes import FUZZ_ROLES

    spec = live.client().get("/openapi.json").json()
    tags = {tag for ops in spec["paths"].values() for op in ops.values() for tag in op.get("tags") or [""]}
    covered = {tag for tokens in FUZZ_ROLES.values() for tag in tokens}
    assert tags <= covered, tags - covered
    owner_only = {"answering", "wording"}
    assert all(FUZZ_ROLES["policy_owner"][t] == "dev-staff-token-mere" for t in owner_only)
