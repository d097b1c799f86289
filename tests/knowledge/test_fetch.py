"""Directory and whole-clause fetch under one family and version."""

from __future__ import annotations

import time
from datetime import date

import pytest

from knowledge.clauses import ClauseLibrary
from knowledge.errors import KnowledgeUnavailable, TooManyClauses
from knowledge.source import parse_wording
from knowledge.store import ObjectStore
from tests.conftest import POLICIES, store_settings


@pytest.fixture
def library(corpus_store) -> ClauseLibrary:
    return ClauseLibrary(corpus_store)


def test_fetch_returns_a_long_clause_whole_and_byte_identical(library) -> None:
    directory = library.directory(library.governing("motor", date(2026, 8, 1)))
    result = library.fetch(directory, ["MTR-BEN-03"])
    source = {c.clause_id: c for c in parse_wording(POLICIES / "motor" / "2026.2.md").clauses}
    [clause] = result.clauses
    assert len(clause.text) > 600
    assert clause.text == source["MTR-BEN-03"].text
    assert "NZD 60 a day" in clause.text
    assert (clause.family, clause.version, clause.added_by) == (
        "motor",
        "2026.2",
        ("alternative_transport",),
    )
    assert result.not_found == []


def test_unknown_ids_land_in_not_found_and_nothing_is_substituted(library) -> None:
    directory = library.directory(library.governing("motor", date(2026, 8, 1)))
    result = library.fetch(directory, ["MTR-BEN-01", "MTR-BEN-99", "HOM-BEN-01"])
    assert [c.clause_id for c in result.clauses] == ["MTR-BEN-01"]
    assert result.not_found == ["MTR-BEN-99", "HOM-BEN-01"]


def test_a_clause_missing_from_the_governing_version_is_not_found(library) -> None:
    # Wording 2025.1 has no hire car clause; 2026.2's is never offered in its place.
    directory = library.directory(library.governing("motor", date(2026, 3, 1)))
    assert directory.version == "2025.1"
    result = library.fetch(directory, ["MTR-BEN-03"])
    assert result.clauses == [] and result.not_found == ["MTR-BEN-03"]


def test_four_ids_are_refused(library) -> None:
    directory = library.directory(library.governing("motor", date(2026, 8, 1)))
    with pytest.raises(TooManyClauses, match="at most 3"):
        library.fetch(directory, ["MTR-BEN-01", "MTR-BEN-02", "MTR-BEN-03", "MTR-BEN-04"])


def test_directory_lists_ids_and_titles_only(library) -> None:
    directory = library.directory(library.governing("contents", date(2026, 8, 1)))
    listing = directory.listing()
    assert {"clause_id", "title"} == set(listing[0])
    assert "CNT-LIM-01" in {e["clause_id"] for e in listing}


def test_a_stopped_store_raises_unavailable_within_two_seconds() -> None:
    from agent.evaluation.localstore import free_port

    store = ObjectStore(store_settings(f"127.0.0.1:{free_port()}"))  # nothing listens there
    library = ClauseLibrary(store)
    started = time.monotonic()
    with pytest.raises(KnowledgeUnavailable, match=r"could not read manifest\.json"):
        library.governing("motor", date(2026, 8, 1))
    assert time.monotonic() - started < 2.0


def test_a_store_stopped_mid_session_raises_unavailable(s3_server) -> None:
    from agent.evaluation.localstore import start_local_s3

    server = start_local_s3()
    store = ObjectStore(store_settings(server.endpoint))
    store.ensure_bucket()
    server.stop()
    started = time.monotonic()
    with pytest.raises(KnowledgeUnavailable):
        store.get("manifest.json")
    assert time.monotonic() - started < 2.0


def test_store_settings_reject_a_bad_bucket_or_endpoint() -> None:
    from pydantic import ValidationError

    from knowledge.settings import StoreSettings

    with pytest.raises(ValidationError, match="is not a valid S3 bucket name"):
        StoreSettings(bucket="t")
    with pytest.raises(ValidationError, match="must be host:port"):
        StoreSettings(endpoint="http://127.0.0.1:9000")
