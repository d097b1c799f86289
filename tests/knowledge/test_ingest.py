"""Ingestion into a real S3 server: fresh bucket, existing versions, no-op, interruption."""

from __future__ import annotations

from datetime import date

import pytest

from knowledge.clauses import ClauseLibrary
from knowledge.errors import ImmutableVersion, ValidationFailed
from knowledge.ingest import ingest
from knowledge.manifest import MANIFEST_KEY, Registry
from knowledge.source import PolicySource, parse_wording
from knowledge.store import ObjectStore
from tests.knowledge.test_rules import BODY, wording

THREE = (
    f"## MTR-BEN-01 - Towing and storage after an accident\n\n{BODY}\n"
    f"## MTR-BEN-02 - Emergency travel and accommodation far from home\n\n{BODY}\n"
    f"## MTR-BEN-04 - Personal belongings and child car seats in the car\n\n{BODY}"
)


def source(version: str, clauses: str = THREE) -> PolicySource:
    return parse_wording(f"policies/motor/{version}.md", wording(version=version, clauses=clauses))


def ingest_text(store: ObjectStore, version: str, clauses: str = THREE):
    return ingest(store, source(version, clauses))


def test_ingest_into_a_fresh_bucket_writes_clauses_directory_and_manifest(store) -> None:
    report = ingest_text(store, "2026.2")
    assert report.objects_written == 5 and not report.unchanged
    assert sorted(store.keys("motor/2026.2/")) == [
        "motor/2026.2/clauses/MTR-BEN-01.md",
        "motor/2026.2/clauses/MTR-BEN-02.md",
        "motor/2026.2/clauses/MTR-BEN-04.md",
        "motor/2026.2/directory.json",
    ]
    clause = store.get("motor/2026.2/clauses/MTR-BEN-02.md")
    assert clause.metadata["title"] == "Emergency travel and accommodation far from home"
    assert len(clause.metadata["sha256"]) == 64
    entry = Registry(store).read()[0].entry("motor", "2026.2")
    assert (entry.status, entry.clause_count) == ("draft", 3)


def test_ingest_next_to_older_versions_keeps_them(store) -> None:
    ingest_text(store, "2025.1")
    Registry(store).approve("motor", "2025.1", date(2025, 7, 1), None, "Owner")
    ingest_text(store, "2026.2")
    manifest = Registry(store).read()[0]
    assert manifest.entry("motor", "2025.1").status == "approved"
    assert manifest.entry("motor", "2026.2").status == "draft"
    library = ClauseLibrary(store)
    old = library.directory(manifest.entry("motor", "2025.1"))
    assert [e.clause_id for e in old.entries] == ["MTR-BEN-01", "MTR-BEN-02", "MTR-BEN-04"]


def test_reingesting_identical_content_writes_nothing(store) -> None:
    ingest_text(store, "2026.2")
    manifest_version = store.get(MANIFEST_KEY).version_id
    report = ingest_text(store, "2026.2")
    assert report.unchanged and report.objects_written == 0
    assert store.get(MANIFEST_KEY).version_id == manifest_version
    versions = list(
        store.client.list_objects(store.bucket, prefix="motor/", include_version=True, recursive=True)
    )
    assert len(versions) == 4  # one S3 version per object: nothing rewritten


def test_an_approved_version_is_immutable(store) -> None:
    ingest_text(store, "2026.2")
    Registry(store).approve("motor", "2026.2", date(2026, 7, 1), None, "Owner")
    changed = THREE.replace("NZD 500", "NZD 900")
    with pytest.raises(ImmutableVersion, match="approved and cannot change"):
        ingest_text(store, "2026.2", changed)


def test_ingest_refuses_to_drop_an_id_that_a_stored_version_has(store) -> None:
    ingest_text(store, "2025.1")
    fewer = THREE.split("## MTR-BEN-04")[0]
    with pytest.raises(ValidationFailed, match=r"MTR-BEN-04: \[dropped-id\]"):
        ingest_text(store, "2026.2", fewer)


class Interrupted(Exception):
    pass


def test_an_interrupted_ingestion_changes_nothing_that_is_served(store, monkeypatch) -> None:
    ingest_text(store, "2025.1")
    Registry(store).approve("motor", "2025.1", date(2025, 7, 1), None, "Owner")
    manifest_before = store.get(MANIFEST_KEY).data
    library = ClauseLibrary(store)
    served = library.fetch(library.directory(library.governing("motor", date(2026, 8, 1))), ["MTR-BEN-01"])

    real_put, calls = store.put, []

    def put_then_fail(key, data, metadata=None, content_type="text/markdown; charset=utf-8"):
        calls.append(key)
        if len(calls) > 2:
            raise Interrupted("power cut after two clause objects")
        return real_put(key, data, metadata, content_type)

    monkeypatch.setattr(store, "put", put_then_fail)
    with pytest.raises(Interrupted):
        ingest_text(store, "2026.2", THREE.replace("NZD 500", "NZD 700"))
    monkeypatch.undo()

    assert store.keys("motor/2026.2/clauses/")  # some clause objects did land…
    assert store.get(MANIFEST_KEY).data == manifest_before  # …but the registry is untouched
    fresh = ClauseLibrary(store)
    entry = fresh.governing("motor", date(2026, 8, 1))
    assert entry.version == "2025.1"
    assert fresh.fetch(fresh.directory(entry), ["MTR-BEN-01"]) == served
    # The interrupted version can be ingested again cleanly.
    assert not ingest_text(store, "2026.2", THREE.replace("NZD 500", "NZD 700")).unchanged
