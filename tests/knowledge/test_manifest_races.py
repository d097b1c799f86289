"""Manifest writers that meet: a rival write forced between one writer's read and its write
(a pause on the manifest's PUT), on the real S3 server. Neither write may be lost."""

from __future__ import annotations

from datetime import date

import pytest

from knowledge.errors import ManifestChanged, WriteConflict
from knowledge.manifest import Registry
from tests.knowledge.races import rival_before_manifest_write
from tests.knowledge.test_ingest import ingest_text


def test_two_approvals_of_different_versions_at_once_both_stand(store, monkeypatch) -> None:
    ingest_text(store, "2025.1")
    ingest_text(store, "2026.2")
    registry = Registry(store)
    rival_before_manifest_write(
        monkeypatch,
        store,
        lambda: Registry(store).approve("motor", "2025.1", date(2025, 7, 1), date(2026, 7, 1), "Rival"),
    )
    assert registry.approve("motor", "2026.2", date(2026, 7, 1), None, "Owner") is True
    manifest = registry.read()[0]
    assert manifest.entry("motor", "2025.1").status == "approved"
    assert manifest.entry("motor", "2026.2").status == "approved"


def test_the_same_approval_twice_at_once_changes_the_manifest_once(store, monkeypatch) -> None:
    ingest_text(store, "2026.2")
    registry = Registry(store)
    rival_before_manifest_write(
        monkeypatch,
        store,
        lambda: Registry(store).approve("motor", "2026.2", date(2026, 7, 1), None, "Rival"),
    )
    # The rival's approval took effect; this one, made again on it, changes nothing.
    assert registry.approve("motor", "2026.2", date(2026, 7, 1), None, "Owner") is False
    assert registry.read()[0].entry("motor", "2026.2").approved_by == "Rival"


def test_a_withdrawal_and_an_approval_at_once_both_stand(store, monkeypatch) -> None:
    ingest_text(store, "2025.1")
    ingest_text(store, "2026.2")
    registry = Registry(store)
    registry.approve("motor", "2025.1", date(2025, 7, 1), date(2026, 7, 1), "Owner")
    rival_before_manifest_write(
        monkeypatch,
        store,
        lambda: Registry(store).approve("motor", "2026.2", date(2026, 7, 1), None, "Rival"),
    )
    assert registry.withdraw("motor", "2025.1", "Owner", "wrong limits") is True
    manifest = registry.read()[0]
    assert (manifest.entry("motor", "2025.1").status, manifest.entry("motor", "2026.2").status) == (
        "withdrawn",
        "approved",
    )


def test_an_ingest_that_meets_an_approval_keeps_it(store, monkeypatch) -> None:
    ingest_text(store, "2025.1")
    rival_before_manifest_write(
        monkeypatch,
        store,
        lambda: Registry(store).approve("motor", "2025.1", date(2025, 7, 1), None, "Rival"),
    )
    ingest_text(store, "2026.2")
    manifest = Registry(store).read()[0]
    assert manifest.entry("motor", "2025.1").status == "approved"
    assert manifest.entry("motor", "2026.2").status == "draft"


def test_the_first_manifest_of_a_bucket_is_not_written_over(store) -> None:
    """Two first ingests into an empty bucket: the store refuses the second blind write."""
    ingest_text(store, "2025.1")
    with pytest.raises(WriteConflict):
        Registry(store).write(Registry(store).read()[0], None)


def test_a_writer_that_always_loses_says_so_and_writes_nothing(store, monkeypatch) -> None:
    ingest_text(store, "2026.2")
    ingest_text(store, "2025.1")
    registry = Registry(store)
    rivals = iter(range(100))

    def another_writer() -> None:  # someone else's write lands before every one of ours
        manifest, seen = Registry(store).read()
        manifest.entry("motor", "2025.1").clause_count = next(rivals)
        Registry(store).write(manifest, seen)

    rival_before_manifest_write(monkeypatch, store, another_writer, times=Registry.ATTEMPTS)
    with pytest.raises(ManifestChanged, match="kept changing"):
        registry.approve("motor", "2026.2", date(2026, 7, 1), None, "Owner")
    assert registry.read()[0].entry("motor", "2026.2").status == "draft"
