"""The contract (findings 7 and 8): every error the API sends has the one declared body,
timestamps carry their timezone on every database, the schema and the server agree on
what text is acceptable, and every response carries the security headers."""

from __future__ import annotations

import re

import pytest

from agent.api.schemas.claims import NewMessage
from agent.staff.waiting_list import create_item
from tests.conftest import STAFF_TOKENS, TOKENS

CLAIM = "CLM-204518"
AWARE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)$")


def test_every_error_status_an_operation_sends_is_declared_with_the_error_body(live) -> None:
    spec = live.client().get("/openapi.json").json()
    error = {"$ref": "#/components/schemas/ErrorOut"}
    assert spec["components"]["schemas"]["ErrorOut"]["required"] == ["detail"]
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            codes = {c for c in responses if c.startswith("4")}
            # The request guard answers 400 and 413 before any route, so every operation has them.
            assert {"400", "413"} <= codes, (method, path)
            if path != "/health":
                assert {"401", "422"} <= codes, (method, path)
            for code in codes:
                assert responses[code]["content"]["application/json"]["schema"] == error, (method, path, code)
    claimant = spec["paths"]["/claims/{claim_id}/messages"]
    assert {"404", "409", "429"} <= set(claimant["post"]["responses"])
    assert "Retry-After" in claimant["post"]["responses"]["429"]["headers"]


def test_every_citation_the_api_returns_has_the_one_citation_shape(live) -> None:
    """A served reply's, the conversation's, an answered item's and a draft's citations are all
    CitationOut (built from agent.boundary.citation.Citation): the whole clause a staff answer
    keeps with its first quote is no part of a citation, in the schema or on the wire (the
    conversation's `staff_answer` carries it)."""
    schemas = live.client().get("/openapi.json").json()["components"]["schemas"]
    one = {"$ref": "#/components/schemas/CitationOut"}
    for shape, field in [
        ("TurnReply", "citations"),
        ("ConversationMessage", "citations"),
        ("ItemOut", "answer_citations"),
        ("DraftOut", "citations"),
        ("DraftOut", "lost_sentences"),
    ]:
        assert schemas[shape]["properties"][field]["items"] == one, (shape, field)
    assert set(schemas["CitationOut"]["properties"]) == {"clause_id", "title", "version", "quote"}


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"),
    [
        (
            "POST",
            f"/claims/{CLAIM}/messages",
            {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
            422,
        ),
        ("POST", f"/claims/{CLAIM}/messages", {"json": {"text": ""}}, 422),
        ("POST", f"/claims/{CLAIM}/messages", {"json": []}, 422),
        ("GET", "/claims/CLM-000000/messages", {}, 404),
        ("GET", "/no/such/page", {}, 404),
        ("DELETE", f"/claims/{CLAIM}/messages", {}, 405),
        ("GET", f"/claims/{CLAIM}/messages", {"headers": {"Authorization": "Basic x"}}, 401),
    ],
)
def test_every_error_body_is_the_declared_detail_sentence(live, method, path, kwargs, status) -> None:
    with live.client(TOKENS[CLAIM]) as client:
        response = client.request(method, path, **kwargs)
    assert response.status_code == status
    body = response.json()
    assert list(body) == ["detail"] and isinstance(body["detail"], str) and body["detail"]


@pytest.mark.databases
def test_timestamps_carry_their_timezone_on_every_database(staff_live) -> None:
    live = staff_live
    with live.client(TOKENS[CLAIM]) as claimant:
        assert (
            claimant.post(f"/claims/{CLAIM}/messages", json={"text": "What is my excess?"}).status_code == 200
        )
        messages = claimant.get(f"/claims/{CLAIM}/messages").json()["messages"]
    assert messages and all(AWARE.match(m["created_at"]) for m in messages)
    with live.app.state.services.sessions.begin() as db:
        reference = create_item(
            db, claim_id=CLAIM, turn_id=None, family="motor", question="Tow?", reason="no_clause_selected"
        ).reference
    with live.client(STAFF_TOKENS["aroha.staff"]) as aroha:
        taken = aroha.post(f"/staff/api/items/{reference}/take").json()
        detail = aroha.get(f"/staff/api/items/{reference}").json()
    assert AWARE.match(taken["created_at"]) and AWARE.match(taken["taken_at"])
    assert all(AWARE.match(m["created_at"]) for m in detail["conversation"])


SAMPLES = [
    "",
    " ",
    "a",
    " a ",
    "\u200b",
    "\u200ba",
    "a\x00",
    "\t\n",
    "line\nbreak",
    "\x7f",
    "é",
    "\ufeff\u2060",
    "x" * 2000,
]


def test_the_published_text_schema_and_the_server_agree(live) -> None:
    schema = (
        live.client().get("/openapi.json").json()["components"]["schemas"]["NewMessage"]["properties"]["text"]
    )
    assert schema["minLength"] == 1 and schema["maxLength"] == 2000
    pattern = re.compile(schema["pattern"])
    for sample in SAMPLES:
        by_schema = schema["minLength"] <= len(sample) <= schema["maxLength"] and bool(pattern.search(sample))
        try:
            NewMessage(text=sample)
            by_server = True
        except ValueError:
            by_server = False
        assert by_schema == by_server, repr(sample)
    with live.client(TOKENS[CLAIM]) as client:
        assert client.post(f"/claims/{CLAIM}/messages", json={"text": ""}).status_code == 422
        assert client.post(f"/claims/{CLAIM}/messages", json={"text": "a"}).status_code == 200


def test_no_query_parameter_is_declared_nullable(live) -> None:
    """A query string cannot say null: a parameter declared "array or null" made the fuzzer's
    boolean (sent as the string "false") a refused type that the server rightly took as a
    clause ID. Every query parameter's schema is the one type it is on the wire."""
    spec = live.client().get("/openapi.json").json()
    nullable = [
        (path, parameter["name"])
        for path, operations in spec["paths"].items()
        for operation in operations.values()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "query"
        and {"type": "null"} in parameter["schema"].get("anyOf", [])
        and any(branch.get("type") == "array" for branch in parameter["schema"]["anyOf"])
    ]
    assert nullable == []
    with live.client(STAFF_TOKENS["aroha.staff"]) as client:
        found = client.get(
            "/staff/api/wording/motor/2026.2/affected", params={"clause": ["false", "MTR-BEN-03"]}
        )
    assert found.status_code == 200 and found.json()["clauses"] == ["MTR-BEN-03", "false"]


SECURITY = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),
        ("GET", "/staff/login", 200),
        ("GET", "/staff", 303),
        ("GET", f"/claims/{CLAIM}/messages", 200),
        ("GET", "/no/such/page", 404),
        ("GET", "/openapi.json", 200),
        ("GET", "/docs", 200),
        ("POST", f"/claims/{CLAIM}/messages", 413),
        ("GET", "/staff/api/items?reason=%00", 400),
    ],
)
def test_every_response_carries_the_security_headers(live, method, path, status) -> None:
    body = b"x" * 70000 if status == 413 else None
    with live.client(TOKENS[CLAIM]) as client:
        response = client.request(method, path, content=body)
    assert response.status_code == status
    for name, value in SECURITY.items():
        assert response.headers[name] == value, name
    csp = response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp
    if path in ("/", "/staff/login"):
        nonce = re.search(r"'nonce-([^']+)'", csp).group(1)
        assert f'nonce="{nonce}"' in response.text
        assert "unsafe-inline" not in csp
    # HSTS only in production (see test_production); plain HTTP development has none.
    assert "strict-transport-security" not in response.headers
