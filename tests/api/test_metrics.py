"""/metrics scraped over HTTP: its own bearer token, and each counter where it should be after a
turn of each outcome, a model failure, throttling, a failed event delivery and a store outage;
the waiting list and the outbox read from the database at scrape time; every worker process
added up in one scrape (multiprocess mode)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.answering.modes import set_mode
from agent.evaluation.harness import wait_port
from agent.evaluation.localstore import free_port
from knowledge.store import ObjectStore
from tests.conftest import TOKENS, make_live_app, stop_live, store_settings, use_model
from tests.support import process_env, route, scripted

TOKEN = "metrics-token-for-the-tests-0123456789abcdef"
REPO = Path(__file__).resolve().parents[2]
RENTAL = "Can I get a rental car while mine is being repaired?"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(live, token: str = TOKEN) -> Samples:
    with live.client(token) as client:
        response = client.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every sample of `name` that has these labels (and any others)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


def refused_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    raise ConnectionRefusedError("model provider refused the connection")


@contextmanager
def served(database_url: str, store: ObjectStore, **overrides) -> Iterator:
    server = make_live_app(database_url, store, metrics_token=TOKEN, **overrides)
    try:
        yield server
    finally:
        stop_live(server)


def test_metrics_answer_404_without_a_token_set(live) -> None:
    with live.client(TOKEN) as client:
        assert client.get("/metrics").status_code == 404
        assert "/metrics" not in client.get("/openapi.json").json()["paths"]


def test_metrics_need_their_own_token(database_url, corpus_store) -> None:
    with served(database_url, corpus_store) as live:
        with live.client() as client:
            missing = client.get("/metrics")
        with live.client(TOKEN + "x") as client:
            wrong = client.get("/metrics")
        with live.client(TOKENS["CLM-204518"]) as client:  # a claimant's token is not it
            claimant = client.get("/metrics")
        with live.client(TOKEN) as client:
            right = client.get("/metrics")
    assert missing.status_code == wrong.status_code == claimant.status_code == 401
    assert wrong.headers["www-authenticate"] == "Bearer"
    assert TOKEN not in wrong.text
    assert right.status_code == 200 and "clausedesk_database_up 1.0" in right.text


def test_a_short_metrics_token_is_refused() -> None:
    from pydantic import ValidationError

    from agent.settings import Settings

    with pytest.raises(ValidationError, match="metrics_token"):
        Settings(metrics_token="short")


def test_each_turn_outcome_model_error_throttling_and_failed_delivery_is_counted(
    database_url, corpus_store
) -> None:
    dead_receiver = f"http://127.0.0.1:{free_port()}/events"
    with served(
        database_url,
        corpus_store,
        events_url=dead_receiver,
        events_secret="e" * 32,
        events_poll_s=0.05,
        limit_access_code_per_address="2/minute",
    ) as live:
        offline = live.app.state.services.runner.model
        before = scrape(live)
        with live.client(TOKENS["CLM-204518"]) as client:

            def send(text: str) -> dict:
                response = client.post("/claims/CLM-204518/messages", json={"text": text})
                assert response.status_code == 200, response.text
                return response.json()

            answered = send(RENTAL)
            chatter = send("Thanks!")
            use_model(live, scripted([], route("", "")))
            routed = send("Who was the first person to walk on the moon and what did they say?")
            use_model(live, FunctionModel(refused_model, model_name="refused"))
            failed = send("How long can I keep the rental car?")
            with live.app.state.services.sessions.begin() as db:  # the motor wording drafts again
                for version in ("2025.1", "2026.2"):
                    set_mode(db, "motor", version, None, "drafts", by="tests", reason="metrics test")
            use_model(live, offline)
            drafted = send(RENTAL)
        with live.client("not-a-code") as stranger:
            codes = [
                stranger.post("/claims/CLM-204519/messages", json={"text": "hi"}).status_code
                for _ in range(3)
            ]
        after = _waiting_for_failed_delivery(live, before)

    assert (answered["outcome"], chatter["outcome"]) == ("answered", "nothing_asked")
    assert (routed["outcome"], routed["route_reason"]) == ("routed_to_staff", "no_clause_selected")
    assert (failed["outcome"], failed["route_reason"]) == ("routed_to_staff", "model_unreachable")
    assert (drafted["outcome"], drafted["route_reason"]) == ("routed_to_staff", "drafted_for_review")

    def added(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    turns = "clausedesk_turns_total"
    assert added(turns, family="motor", outcome="answered", reason="none") == 1
    assert added(turns, family="motor", outcome="nothing_asked", reason="nothing_asked") == 1
    assert added(turns, family="motor", outcome="routed_to_staff", reason="no_clause_selected") == 1
    assert added(turns, family="motor", outcome="routed_to_staff", reason="model_unreachable") == 1
    assert added(turns, family="motor", outcome="routed_to_staff", reason="drafted_for_review") == 1
    assert total(after, turns) - total(before, turns) == 5
    assert added("clausedesk_turn_seconds_count", outcome="routed_to_staff") == 3
    assert added("clausedesk_turn_seconds_bucket", outcome="answered", le="+Inf") == 1
    assert added("clausedesk_model_errors_total", kind="unreachable") == 1
    # The two wrong codes are answered 404; the third is refused before its code is checked.
    assert codes == [404, 404, 429]
    assert added("clausedesk_throttled_total", scope="access_code_address") == 1
    # Three routed turns are on the waiting list now, and their events in the outbox.
    assert value(after, "clausedesk_waiting_items", family="motor", status="open") == 3
    assert value(after, "clausedesk_waiting_oldest_age_seconds", family="motor") >= 0
    assert value(after, "clausedesk_outbox_backlog", kind="question_routed") == 3
    assert (
        added("clausedesk_event_delivery_failures_total", kind="question_routed", error="ConnectError") >= 1
    )
    assert value(after, "clausedesk_database_up") == 1


def _waiting_for_failed_delivery(live, before: Samples, timeout_s: float = 30.0) -> Samples:
    """Scrapes until the delivery worker has failed to send an event (it polls every 0.05 s)."""
    name = "clausedesk_event_delivery_failures_total"
    deadline = time.monotonic() + timeout_s
    while True:
        after = scrape(live)
        if total(after, name) > total(before, name) or time.monotonic() > deadline:
            return after
        time.sleep(0.1)


def test_a_store_outage_is_counted_with_the_turns_it_made_unavailable(database_url, corpus_store) -> None:
    """And a thanks in the outage is answered as asking nothing, with no item for staff (the
    store-outage probe found every thanks on the waiting list as knowledge_unavailable)."""
    dead = ObjectStore(store_settings(f"127.0.0.1:{free_port()}", bucket=corpus_store.bucket))
    with served(database_url, dead) as live:
        before = scrape(live)
        with live.client(TOKENS["CLM-204518"]) as client:
            reply = client.post("/claims/CLM-204518/messages", json={"text": RENTAL}).json()
            thanks = client.post("/claims/CLM-204518/messages", json={"text": "Thanks!"}).json()
        after = scrape(live)
    assert (reply["outcome"], reply["route_reason"]) == ("unavailable", "knowledge_unavailable")
    assert thanks["outcome"] == "nothing_asked" and thanks["waiting_list_reference"] is None
    name = "clausedesk_store_errors_total"
    assert total(after, name, operation="read") - total(before, name, operation="read") >= 1
    turns = (
        "clausedesk_turns_total",
        {"family": "motor", "outcome": "unavailable", "reason": "knowledge_unavailable"},
    )
    assert value(after, turns[0], **turns[1]) - value(before, turns[0], **turns[1]) == 1
    assert value(after, "clausedesk_waiting_items", family="motor", status="open") == 1


def test_one_scrape_adds_up_every_worker_process(tmp_path: Path, sqlite_url: str) -> None:
    """Two processes count into one PROMETHEUS_MULTIPROC_DIR; a third, scraping, sees both."""
    folder = tmp_path / "metrics"  # of its own: every *.db file in it is read as a worker's
    folder.mkdir()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    count = (
        "from agent import metrics; metrics.throttled('messages_claim'); metrics.model_error('model_timeout')"
    )
    for _ in range(2):
        subprocess.run([sys.executable, "-c", count], env=env, cwd=REPO, check=True, timeout=120)
    show = (
        "import sys; from agent import metrics; from agent.db.tables import make_engine, make_sessionmaker; "
        "sys.stdout.write(metrics.exposition(make_sessionmaker(make_engine(sys.argv[1]))).decode())"
    )
    text = subprocess.run(
        [sys.executable, "-c", show, sqlite_url],
        env=env,
        cwd=REPO,
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
    ).stdout
    samples = {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    assert value(samples, "clausedesk_throttled_total", scope="messages_claim") == 2
    assert value(samples, "clausedesk_model_errors_total", kind="timeout") == 2
    assert value(samples, "clausedesk_database_up") == 1


@pytest.mark.slow  # a process of its own
def test_serve_with_two_workers_answers_one_scrape_for_both(sqlite_url: str, corpus_store) -> None:
    """`python -m agent serve --workers 2` sets PROMETHEUS_MULTIPROC_DIR itself: whichever
    worker a scrape reaches, it counts every turn both workers finished."""
    port = free_port()
    env = process_env(
        sqlite_url,
        corpus_store,
        CLAUSEDESK_METRICS_TOKEN=TOKEN,
        CLAUSEDESK_LIMIT_MESSAGES_PER_CLAIM="1000/minute",
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    serve = [sys.executable, "-m", "agent", "serve", "--port", str(port), "--workers", "2"]
    process = subprocess.Popen(serve, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_port(port, open_=True, timeout_s=120)
        for n in range(6):  # new connections each time: the kernel spreads them over both workers
            reply = httpx.post(
                f"{url}/claims/CLM-204518/messages",
                json={"text": f"What is my excess? ({n})"},
                headers={"Authorization": f"Bearer {TOKENS['CLM-204518']}"},
                timeout=60,
            )
            assert reply.status_code == 200, reply.text
        scrapes = [
            httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30).text
            for _ in range(4)
        ]
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=30)
    for text in scrapes:
        samples = {
            (s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }
        assert total(samples, "clausedesk_turns_total") == 6, stderr.decode()[-2000:]


def test_a_mode_change_is_counted_once_committed_and_never_when_rolled_back(sqlite_url: str) -> None:
    from prometheus_client import REGISTRY

    from agent.db.tables import make_engine, make_sessionmaker

    def counted() -> tuple[float, float]:
        changes = REGISTRY.get_sample_value(
            "clausedesk_answering_mode_changes_total",
            {"family": "home", "mode": "drafts", "automatic": "true"},
        )
        demotions = REGISTRY.get_sample_value("clausedesk_answering_demotions_total", {"family": "home"})
        return changes or 0.0, demotions or 0.0

    engine = make_engine(sqlite_url)
    sessions = make_sessionmaker(engine)
    before = counted()
    with sessions() as session:
        set_mode(session, "home", "2026.2", "HOM-BEN-01", "drafts", by="tests", automatic=True)
        session.rollback()
    assert counted() == before
    with sessions.begin() as session:
        set_mode(session, "home", "2026.2", "HOM-BEN-01", "drafts", by="tests", automatic=True)
        assert counted() == before  # not before the commit
    engine.dispose()
    assert counted() == (before[0] + 1, before[1] + 1)


def test_a_demotion_and_a_handlers_verdict_are_scraped(database_url, corpus_store) -> None:
    """Through HTTP: a policy owner moves a clause to answers, a handler sends a drafted answer
    as drafted, then flags a served one wrong and the clause falls back to drafts by itself."""
    from tests.answering.support import drafting, handler, load_inventory, owner, stored_check
    from tests.support import answer

    rate = "We pay up to NZD 60 a day for up to 21 days for each event."
    base = "/staff/api/wording/motor/2026.2/answering"

    drafting(database_url)
    load_inventory(database_url, corpus_store)
    check = stored_check(database_url, corpus_store)
    # At 40 % the check's seven right answers on MTR-BEN-03 (bound 34.8 %) meet the bar, and one
    # flagged wrong of eight (47.1 %) does not.
    with served(database_url, corpus_store, bar_wrong_percent=40.0) as live:
        before = scrape(live)

        def ask(question: str) -> dict:
            use_model(live, scripted(["MTR-BEN-03"], answer("", ("MTR-BEN-03", rate))))
            with live.client(TOKENS["CLM-204518"]) as claimant:
                return claimant.post("/claims/CLM-204518/messages", json={"text": question}).json()

        with owner(live) as mere, handler(live) as aroha:
            drafted = ask("How long can I keep a hire car for?")
            assert drafted["route_reason"] == "drafted_for_review", drafted
            ref = drafted["waiting_list_reference"]
            draft = aroha.get(f"/staff/api/items/{ref}").json()["draft"]
            sent = aroha.post(f"/staff/api/items/{ref}/send-draft", json={"draft_id": draft["id"]})
            assert sent.status_code == 200, sent.text
            moved = mere.post(f"{base}/answers", json={"clause_ids": ["MTR-BEN-03"], "check_id": check})
            assert moved.status_code == 200, moved.text
            served_answer = ask("How long can I keep a hire car?")
            assert served_answer["outcome"] == "answered", served_answer
            flagged = aroha.post(f"/staff/api/turns/{served_answer['turn_id']}/flag", json={})
            assert flagged.status_code == 200, flagged.text
        after = scrape(live)

    def added(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert added("clausedesk_draft_verdicts_total", family="motor", verdict="sent_as_drafted") == 1
    changes = "clausedesk_answering_mode_changes_total"
    assert added(changes, family="motor", mode="answers", automatic="false") == 1
    assert added(changes, family="motor", mode="drafts", automatic="true") == 1
    assert added("clausedesk_answering_demotions_total", family="motor") == 1


@pytest.mark.slow  # a release check
def test_a_release_check_counts_no_claimant_turns(database_url, corpus_store) -> None:
    """A release check asks through the turn code on a scratch database: its turns are counted
    apart (clausedesk_trial_turns_total, purpose release_check), never as claimants' turns."""
    from tests.answering.support import owner

    with served(database_url, corpus_store) as live:
        before = scrape(live)
        with owner(live) as mere:
            checked = mere.post("/staff/api/wording/motor/2027.1/check", params={"questions": 2}, timeout=180)
        assert checked.status_code == 200, checked.text
        after = scrape(live)
    assert total(after, "clausedesk_turns_total") == total(before, "clausedesk_turns_total")
    assert total(after, "clausedesk_turn_seconds_count") == total(before, "clausedesk_turn_seconds_count")
    trials = total(after, "clausedesk_trial_turns_total", purpose="release_check") - total(
        before, "clausedesk_trial_turns_total", purpose="release_check"
    )
    assert trials == 4  # 2 questions of the candidate, 2 of the version it would follow
    assert total(after, "clausedesk_trial_turns_total", purpose="release_check", family="motor") >= 4
