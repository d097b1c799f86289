"""Ingest one validated wording version: clauses, then directory, then the manifest, last."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime

from knowledge.clauses import ClauseLibrary, Directory, DirectoryEntry, clause_key, directory_key
from knowledge.errors import ImmutableVersion, IntegrityError, ValidationFailed
from knowledge.manifest import Manifest, Registry, VersionEntry
from knowledge.rules import check_lineage, check_sources
from knowledge.source import Clause, PolicySource
from knowledge.store import ObjectStore

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class IngestReport:
    family: str
    version: str
    objects_written: int
    unchanged: bool


def schedule_entries(source: PolicySource) -> dict[str, str]:
    """An endorsement clause's ID -> the schedule entry that lists it (its own added_by). A
    wording may say `removed_by=MTR-END-03`; the runtime reads entries against the claimant's
    schedule, which names the endorsement, never a clause ID, so the directory holds the entry."""
    return {
        c.clause_id: c.added_by[0] for c in source.clauses if "-END-" in c.clause_id and len(c.added_by) == 1
    }


def ingest(store: ObjectStore, source: PolicySource) -> IngestReport:
    """Write a version as a draft. Identical content writes nothing; approved is immutable.

    The manifest is written last, so an ingestion stopped part-way changes nothing served.
    """
    check_sources([source])
    family, version = source.family, source.version
    registry = Registry(store)
    store.ensure_bucket()
    manifest, _ = registry.read()
    _check_against_stored(store, manifest, source)
    existing = manifest.families.get(family, {}).get(version)
    if existing is not None and existing.content_hash == source.content_hash:
        log.info("ingest %s %s: unchanged, nothing written", family, version)
        return IngestReport(family, version, 0, unchanged=True)
    if existing is not None and existing.status != "draft":
        raise ImmutableVersion(
            f"{source.path}: {family} {version} is {existing.status} and cannot change; "
            "publish the new wording under a new version"
        )

    entries: list[DirectoryEntry] = []
    by_entry = schedule_entries(source)
    for clause in source.clauses:
        key = clause_key(family, version, clause.clause_id)
        metadata = {"clause-id": clause.clause_id, "title": clause.title, "sha256": clause.sha256}
        if clause.added_by:
            metadata["added-by"] = ",".join(clause.added_by)
        object_version = store.put(key, clause.text.encode(), metadata)
        _read_back(store, key, object_version, clause.sha256)
        # The directory names endorsements by their schedule entry (see schedule_entries).
        applies = clause.applies() | {
            "removed_by": tuple(by_entry.get(e, e) for e in clause.removed_by),
            "changed_by": tuple(by_entry.get(e, e) for e in clause.changed_by),
        }
        entries.append(
            DirectoryEntry(
                clause.clause_id, clause.title, clause.sha256, object_version, clause.part, **applies
            )
        )

    directory = Directory(
        family,
        version,
        source.header["document_id"],
        source.content_hash,
        tuple(entries),
        source.code,
        tuple(source.retired),
        source.header.get("insurer", ""),
        source.header.get("currency", ""),
        tuple(p.strip() for p in source.header.get("plans", "").split("|") if p.strip()),
    )
    data = directory.to_json()
    dir_key = directory_key(family, version)
    dir_version = store.put(dir_key, data, content_type="application/json")
    _read_back(store, dir_key, dir_version, hashlib.sha256(data).hexdigest())

    entry = VersionEntry(
        family=family,
        version=version,
        document_id=source.header["document_id"],
        content_hash=source.content_hash,
        clause_count=len(entries),
        directory_key=dir_key,
        directory_object_version=dir_version,
        ingested_at=datetime.now(UTC),
    )
    checked = manifest.families.get(family, {})

    def add(current: Manifest) -> tuple[bool, None]:
        # Made again on the manifest as it is now if another writer won the race meanwhile.
        now = current.families.get(family, {})
        there = now.get(version)
        if there is not None and there.status != "draft":
            raise ImmutableVersion(
                f"{source.path}: {family} {version} was {there.status} while it was being ingested"
            )
        if now != checked:
            _check_against_stored(store, current, source)
        current.families.setdefault(family, {})[version] = entry
        return True, None

    registry.update(add)
    log.info("ingest %s %s: %d clauses written as draft", family, version, len(entries))
    return IngestReport(family, version, len(entries) + 2, unchanged=False)


def _check_against_stored(store: ObjectStore, manifest: Manifest, source: PolicySource) -> None:
    """Lineage rules against the versions of this family already in the store."""
    library = ClauseLibrary(store)
    stored = [
        _as_source(library.directory(entry))
        for entry in manifest.families.get(source.family, {}).values()
        if entry.version != source.version
    ]
    violations = check_lineage([*stored, source])
    if violations:
        raise ValidationFailed(violations)


def _as_source(directory: Directory) -> PolicySource:
    header = {
        "family": directory.family,
        "code": directory.code,
        "version": directory.version,
        "document_id": directory.document_id,
        "retired": ", ".join(directory.retired),
    }
    clauses = [Clause(e.clause_id, e.title, "", e.part, **e.applies()) for e in directory.entries]
    return PolicySource(f"stored {directory.family} {directory.version}", header, clauses)


def _read_back(store: ObjectStore, key: str, object_version: str | None, sha256: str) -> None:
    stored = store.get(key, object_version)
    if hashlib.sha256(stored.data).hexdigest() != sha256:
        raise IntegrityError(f"{key} read back differs from what was written")
