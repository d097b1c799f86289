"""The governing version: one approved version per date, never a draft, never a fallback."""

from __future__ import annotations

import json
from datetime import date

import pytest

from knowledge.errors import RegistryConflict, RegistryError, RegistryGap
from knowledge.manifest import MANIFEST_KEY, Registry, governing_version
from knowledge.store import ObjectStore


@pytest.fixture
def manifest(corpus_store: ObjectStore):
    return Registry(corpus_store).read()[0]


@pytest.mark.parametrize("family", ["motor", "home", "contents"])
def test_boundary_dates_choose_the_right_wording(manifest, family: str) -> None:
    assert governing_version(manifest, family, date(2026, 6, 30)).version == "2025.1"
    assert governing_version(manifest, family, date(2026, 7, 1)).version == "2026.2"
    assert governing_version(manifest, family, date(2025, 7, 1)).version == "2025.1"
    assert governing_version(manifest, family, date(2031, 1, 1)).version == "2026.2"


def test_the_motor_draft_is_ingested_but_never_governs(manifest) -> None:
    draft = manifest.entry("motor", "2027.1")
    assert draft.status == "draft"
    for day in (date(2026, 7, 1), date(2027, 7, 1), date(2030, 1, 1)):
        assert governing_version(manifest, "motor", day).version != "2027.1"


def test_a_date_before_the_first_approval_is_a_gap(manifest) -> None:
    with pytest.raises(RegistryGap, match="no approved motor wording is effective on 2025-06-30"):
        governing_version(manifest, "motor", date(2025, 6, 30))


def test_a_withdrawn_version_never_governs(manifest) -> None:
    copy = manifest.model_copy(deep=True)
    copy.entry("home", "2026.2").status = "withdrawn"
    with pytest.raises(RegistryGap):
        governing_version(copy, "home", date(2026, 8, 1))
    # …and no fallback to the predecessor either, which ended on 2026-07-01.
    assert copy.entry("home", "2025.1").effective_to == date(2026, 7, 1)


def test_overlapping_approvals_written_directly_are_a_conflict_naming_both(corpus_store, manifest):
    # approve() refuses overlaps, so the conflict is written into the manifest by hand.
    bad = manifest.model_copy(deep=True)
    bad.entry("contents", "2025.1").effective_to = None
    with pytest.raises(RegistryConflict) as caught:
        governing_version(bad, "contents", date(2026, 9, 1))
    assert caught.value.versions == ["2025.1", "2026.2"]
    assert "2025.1" in str(caught.value) and "2026.2" in str(caught.value)


def test_approve_refuses_an_overlap_and_leaves_the_manifest_alone(store: ObjectStore, tmp_path):
    from tests.knowledge.test_ingest import ingest_text

    ingest_text(store, "2025.1")
    ingest_text(store, "2026.2")
    registry = Registry(store)
    registry.approve("motor", "2026.2", date(2026, 7, 1), None, "Owner")
    before = store.get(MANIFEST_KEY).data
    with pytest.raises(RegistryError, match=r"overlaps approved 2026\.2"):
        registry.approve("motor", "2025.1", date(2025, 7, 1), date(2026, 8, 1), "Owner")
    assert store.get(MANIFEST_KEY).data == before


def test_approving_a_successor_closes_its_predecessor_in_one_write(store: ObjectStore) -> None:
    from tests.knowledge.test_ingest import ingest_text

    ingest_text(store, "2025.1")
    ingest_text(store, "2026.2")
    registry = Registry(store)
    registry.approve("motor", "2025.1", date(2025, 7, 1), None, "Owner")
    registry.approve("motor", "2026.2", date(2026, 7, 1), None, "Owner")
    manifest = json.loads(store.get(MANIFEST_KEY).data)["families"]["motor"]
    assert manifest["2025.1"]["effective_to"] == "2026-07-01"
    assert manifest["2026.2"]["effective_from"] == "2026-07-01"
    assert manifest["2026.2"]["effective_to"] is None
    assert manifest["2026.2"]["approved_by"] == "Owner"


def test_approval_needs_a_start_date(store: ObjectStore) -> None:
    from tests.knowledge.test_ingest import ingest_text

    ingest_text(store, "2026.2")
    with pytest.raises(RegistryError, match="needs an effective start"):
        Registry(store).approve("motor", "2026.2", None, None, "Owner")
