"""Hardening, third round (issue 20), through HTTP: a Redis outage, a health page that tells
the truth, forwarded addresses from configured proxies only, a claimant lockout a stranger
cannot cause."""

from __future__ import annotations

import httpx
import pytest

from agent.evaluation.localstore import free_port
from tests.conftest import STAFF_PASSWORDS, TOKENS, make_live_app, stop_live, use_model
from tests.staff.staff_web import csrf_of

PRODUCTION_SECRET = "a-long-random-production-secret-0123456789abcdef"
PRODUCTION_STORE = {
    "CLAUSEDESK_S3_ACCESS_KEY": "prod-access",
    "CLAUSEDESK_S3_SECRET_KEY": "prod-store-secret",
}


@pytest.fixture
def production_live(empty_sqlite_url, corpus_store, monkeypatch):
    """The app as production runs it (its own store keys and secret) on an empty database."""
    for name, value in PRODUCTION_STORE.items():
        monkeypatch.setenv(name, value)
    server = make_live_app(empty_sqlite_url, corpus_store, env="production", secret_key=PRODUCTION_SECRET)
    yield server
    stop_live(server)


@pytest.fixture
def redis_down(sqlite_url, corpus_store):
    """The live app with CLAUSEDESK_REDIS_URL on a port where nothing listens."""
    server = make_live_app(sqlite_url, corpus_store, redis_url=f"redis://127.0.0.1:{free_port()}/0")
    yield server
    stop_live(server)


def test_redis_down_claimants_and_staff_are_served_and_limits_still_hold(redis_down) -> None:
    with redis_down.client(TOKENS["CLM-204518"]) as claimant:
        sent = claimant.post("/claims/CLM-204518/messages", json={"text": "What is my excess?"})
        read = claimant.get("/claims/CLM-204518/messages")
    assert sent.status_code == 200 and read.status_code == 200
    with redis_down.client() as browser:
        csrf = csrf_of(browser.get("/staff/login"))
        right = browser.post(
            "/staff/login",
            data={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"], "csrf": csrf},
        )
        assert right.status_code == 303
        api = browser.post(
            "/staff/api/login", json={"username": "tama.staff", "password": STAFF_PASSWORDS["tama.staff"]}
        )
        assert api.status_code == 201
        # Not failed open: the per-account login limit is counted in this process meanwhile.
        statuses = [
            browser.post(
                "/staff/api/login", json={"username": "mere.staff", "password": f"guess-{n}"}
            ).status_code
            for n in range(7)
        ]
        assert statuses == [401] * 5 + [429] * 2
        health = browser.get("/health")
    assert health.status_code == 200
    assert health.json()["throttling"].startswith("degraded: redis unreachable")


def test_health_reports_redis_reachable(database_url, corpus_store) -> None:
    server = make_live_app(database_url, corpus_store, redis_url="redis://127.0.0.1:6379/0")
    try:
        with server.client() as client:
            health = client.get("/health").json()
    finally:
        stop_live(server)
    assert health["throttling"] == "ok: redis" and health["knowledge"] == "ok"


def test_health_on_an_empty_bucket_is_not_knowledge_ok(sqlite_url, store) -> None:
    server = make_live_app(sqlite_url, store)
    try:
        with server.client() as client:
            health = client.get("/health")
    finally:
        stop_live(server)
    assert health.status_code == 503
    assert health.json()["knowledge"] == "unavailable: no approved wording in the store"


def _login_statuses(server, count: int) -> list[int]:
    """`count` wrong logins under as many names, each claiming its own forwarded address."""
    with server.client() as client:
        return [
            client.post(
                "/staff/api/login",
                json={"username": f"visitor{n}", "password": "not-the-password"},
                headers={"X-Forwarded-For": f"203.0.113.{n}"},
            ).status_code
            for n in range(count)
        ]


def test_forwarded_for_from_an_untrusted_peer_is_ignored(sqlite_url, corpus_store) -> None:
    server = make_live_app(sqlite_url, corpus_store)
    try:
        statuses = _login_statuses(server, 40)
    finally:
        stop_live(server)
    # All 40 come from this one peer: the per-address limit (20 a minute) meets them.
    assert statuses[:20] == [401] * 20 and set(statuses[20:]) == {429}


def test_forwarded_for_from_a_trusted_proxy_names_the_client(sqlite_url, corpus_store) -> None:
    server = make_live_app(sqlite_url, corpus_store, trusted_proxies="127.0.0.1/32")
    try:
        statuses = _login_statuses(server, 30)
        with server.client() as client:  # a client that forges the left-most hop gains nothing
            forged = [
                client.post(
                    "/staff/api/login",
                    json={"username": f"forger{n}", "password": "not-the-password"},
                    headers={"X-Forwarded-For": f"198.51.100.{n}, 192.0.2.7"},
                ).status_code
                for n in range(21)
            ]
    finally:
        stop_live(server)
    assert statuses == [401] * 30
    assert forged[:20] == [401] * 20 and forged[20] == 429


def test_a_stranger_guessing_from_many_addresses_cannot_lock_the_claimant_out(
    sqlite_url, corpus_store
) -> None:
    server = make_live_app(sqlite_url, corpus_store, trusted_proxies="127.0.0.1")
    try:
        with server.client("wrong-code") as stranger:
            guesses = [
                stranger.get("/claims/CLM-204518/messages", headers={"X-Forwarded-For": f"203.0.113.{n}"})
                for n in range(40)
            ]
            again = stranger.get("/claims/CLM-204518/messages", headers={"X-Forwarded-For": "203.0.113.3"})
        with server.client(TOKENS["CLM-204518"]) as claimant:
            right = claimant.get("/claims/CLM-204518/messages", headers={"X-Forwarded-For": "192.0.2.50"})
    finally:
        stop_live(server)
    assert {g.status_code for g in guesses} == {404}
    # Past the claim's limit an address that already guessed wrong is refused ...
    assert again.status_code == 429 and "wrong access codes for this claim" in again.json()["detail"]
    # ... and the claimant, on an address that sent no wrong code, gets in with the right one.
    assert right.status_code == 200


def _cookie_of(response) -> tuple[str, str]:
    name, _, value = response.headers["set-cookie"].split(";")[0].partition("=")
    return name, value


def _login_with_tossed_cookie(server) -> tuple[httpx.Response, httpx.Response, str]:
    """Log in while another page of this host has tossed a cookie of our name onto Path=/
    (the browser sends it after ours); then open the waiting list the same way."""
    form = httpx.get(f"{server.url}/staff/login")
    name, ours = _cookie_of(form)
    tossed = f"{name}=tossed-by-another-port"
    login = httpx.post(
        f"{server.url}/staff/login",
        data={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"], "csrf": csrf_of(form)},
        headers={"Cookie": f"{name}={ours}; {tossed}"},
    )
    if login.status_code != 303:
        return login, login, form.headers["set-cookie"]
    _, session = _cookie_of(login)
    queue = httpx.get(f"{server.url}/staff", headers={"Cookie": f"{tossed}; {name}={session}"})
    return login, queue, login.headers["set-cookie"]


def test_a_cookie_tossed_onto_path_root_does_not_block_staff_logins(staff_live) -> None:
    login, queue, cookie = _login_with_tossed_cookie(staff_live)
    assert login.status_code == 303, login.text
    assert queue.status_code == 200 and "Aroha Ngata" in queue.text
    # Development over plain http: the documented plain name on /staff.
    assert cookie.startswith("clausedesk_staff=") and "Path=/staff" in cookie


def test_production_staff_cookie_is_host_prefixed_and_survives_tossing(production_live) -> None:
    from agent.seed import seed_staff

    # Development accounts are refused at start-up; seeded afterwards only to log in here.
    seed_staff(production_live.app.state.services.sessions)
    login, queue, cookie = _login_with_tossed_cookie(production_live)
    assert login.status_code == 303, login.text
    assert queue.status_code == 200
    assert cookie.startswith("__Host-clausedesk_staff=")
    assert "Path=/;" in cookie + ";" and "Secure" in cookie and "Domain" not in cookie


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        (b"key\x01one", "contains U+0001 (control character)"),
        (b"key\ttab", "contains U+0009 (control character)"),
        (b"key\x9f", "contains U+009F (control character)"),
        (b"", "is empty"),
    ],
)
def test_an_idempotency_key_with_a_control_byte_is_refused(live, key, problem) -> None:
    with live.client(TOKENS["CLM-204518"]) as client:
        response = client.post(
            "/claims/CLM-204518/messages",
            json={"text": "What is my excess?"},
            headers={"Idempotency-Key": key},
        )
        stored = client.get("/claims/CLM-204518/messages").json()["messages"]
    assert response.status_code == 422
    assert response.json()["detail"].startswith(f"header.idempotency-key: Value error, {problem}")
    assert stored == []


RATE = "We pay up to NZD 60 a day for up to 21 days for each event."


@pytest.mark.parametrize("fails", ["during the tool's fetch", "on the re-read after the model"])
def test_a_store_outage_in_the_turn_routes_knowledge_unavailable(live, fails) -> None:
    """The manifest still answers, the clause objects do not: the reason is the knowledge,
    never the model or a check."""
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    from knowledge.errors import KnowledgeUnavailable

    store = live.app.state.services.runner.library.store
    real_get = store.get
    outage = {"on": False}

    def get(key, version_id=None):
        if outage["on"] and "/clauses/" in key:
            raise KnowledgeUnavailable(f"read {key}: connection refused")
        return real_get(key, version_id)

    def play(messages, info):
        if len(messages) == 1:
            outage["on"] = fails == "during the tool's fetch"
            return ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": ["MTR-BEN-03"]})])
        outage["on"] = True
        selection = {"outcome": "answered", "points": [{"clause_id": "MTR-BEN-03", "span": RATE}]}
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, selection)])

    store.get = get
    use_model(live, FunctionModel(play, model_name="outage"))
    try:
        with live.client(TOKENS["CLM-204518"]) as client:
            sent = client.post("/claims/CLM-204518/messages", json={"text": "Can I get a rental car?"})
        reply = sent.json()
    finally:
        store.get = real_get
    assert reply["route_reason"] == "knowledge_unavailable", reply
    assert reply["outcome"] == "unavailable" and reply["citations"] == []
    assert reply["waiting_list_reference"] in reply["reply"]


def test_a_short_idle_timeout_slides_with_use(sqlite_url, corpus_store) -> None:
    from datetime import timedelta

    from agent.db.tables import StaffSession, utcnow

    server = make_live_app(sqlite_url, corpus_store, session_idle_s=20)

    def used_seconds_ago(seconds: float) -> None:
        with server.app.state.services.sessions.begin() as db:
            db.query(StaffSession).update({"last_seen_at": utcnow() - timedelta(seconds=seconds)})

    try:
        with server.client() as client:
            token = client.post(
                "/staff/api/login",
                json={"username": "aroha.staff", "password": STAFF_PASSWORDS["aroha.staff"]},
            ).json()["token"]
            me = {"Authorization": f"Bearer {token}"}
            # Used 12 s ago, then again now and 12 s later: 24 s since login, never 20 s idle.
            used_seconds_ago(12)
            assert client.get("/staff/api/me", headers=me).status_code == 200
            with server.app.state.services.sessions() as db:
                seen = db.query(StaffSession).one().last_seen_at
            assert utcnow() - seen < timedelta(seconds=5)
            used_seconds_ago(12)
            assert client.get("/staff/api/me", headers=me).status_code == 200
            used_seconds_ago(21)
            assert client.get("/staff/api/me", headers=me).status_code == 401
    finally:
        stop_live(server)


def test_production_serves_no_docs_but_keeps_the_openapi_document(production_live) -> None:
    with production_live.client() as client:
        docs, redoc, spec = (client.get(p) for p in ("/docs", "/redoc", "/openapi.json"))
    assert docs.status_code == 404 and redoc.status_code == 404
    assert spec.status_code == 200 and spec.json()["info"]["title"] == "clausedesk"


def test_development_still_serves_docs(live) -> None:
    with live.client() as client:
        assert client.get("/docs").status_code == 200


def test_authenticated_responses_are_not_stored(staff_live) -> None:
    with staff_live.client(TOKENS["CLM-204518"]) as claimant:
        conversation = claimant.get("/claims/CLM-204518/messages")
        refused = claimant.get("/claims/CLM-204519/messages")
    with staff_live.client("dev-staff-token-aroha") as staff:
        items = staff.get("/staff/api/items")
    with staff_live.client() as anonymous:
        login_form = anonymous.get("/staff/login")  # sets the CSRF cookie
        health = anonymous.get("/health")
    for response in (conversation, refused, items, login_form):
        assert response.headers["cache-control"] == "no-store", response.url
    assert "cache-control" not in health.headers


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/claims/CLM-204518/messages", "GET, POST"),
        ("PUT", "/claims/CLM-204518/messages", "GET, POST"),
        ("POST", "/health", "GET"),
    ],
)
def test_a_405_lists_every_allowed_method(live, method, path, allowed) -> None:
    with live.client(TOKENS["CLM-204518"]) as client:
        response = client.request(method, path)
    assert response.status_code == 405
    assert response.headers["allow"] == allowed
