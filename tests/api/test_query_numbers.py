"""A number in a query string is digits: "5.0" is not an integer, whatever pydantic would make
of it, so it is refused with 422 like any other value the published schema does not allow."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import STAFF_TOKENS, make_live_app

STAFF = {"Authorization": f"Bearer {STAFF_TOKENS['aroha.staff']}"}
CLAIMANT = {"Authorization": "Bearer dev-claimant-204518"}


@pytest.fixture
def server(sqlite_url, corpus_store):

    live = make_live_app(sqlite_url, corpus_store)
    yield live
    live.stop()


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/staff/api/items?limit={}", STAFF),
        ("/staff/api/items?offset={}", STAFF),
        ("/staff/api/wording/motor/2026.2/affected?limit={}", STAFF),
        ("/staff/api/wording/motor/2026.2/affected?offset={}", STAFF),
        ("/claims/CLM-204518/messages?limit={}", CLAIMANT),
        ("/claims/CLM-204518/messages?before={}", CLAIMANT),
    ],
)
def test_a_query_number_not_written_in_digits_is_refused(server, path, headers) -> None:
    for written in ("5.0", "1e3", "5.50"):
        refused = httpx.get(server.url + path.format(written), headers=headers)
        assert refused.status_code == 422, (path, written, refused.text)
        assert "must be a whole number, written in digits" in refused.text
    assert httpx.get(server.url + path.format("5"), headers=headers).status_code == 200
