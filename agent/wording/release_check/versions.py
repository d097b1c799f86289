"""The two versions of a release check: the candidate pinned as the governing wording, the
approved version it would follow, and each version's clause texts."""

from __future__ import annotations

from datetime import date

from knowledge.clauses import ClauseLibrary, Directory
from knowledge.errors import RegistryGap
from knowledge.manifest import Manifest, VersionEntry
from knowledge.source import version_key
from knowledge.store import ObjectStore


class PinnedLibrary(ClauseLibrary):
    """The clause library with one version pinned as the governing one for every date, so
    the unchanged turn code answers from the candidate (or the baseline) version."""

    def __init__(self, store: ObjectStore, entry: VersionEntry):
        super().__init__(store)
        self.pinned = entry

    def governing(self, family: str, on_date: date) -> VersionEntry:
        if family != self.pinned.family:
            raise RegistryGap(family, on_date, [], f"this release check pins {self.pinned.family} only")
        return self.pinned


def baseline_for(manifest: Manifest, candidate: VersionEntry) -> VersionEntry | None:
    """The version the candidate would follow: the latest approved version before it."""
    earlier = [
        e
        for e in manifest.approved(candidate.family)
        if version_key(e.version) < version_key(candidate.version)
    ]
    return max(earlier, key=lambda e: version_key(e.version), default=None)


def clause_texts(library: ClauseLibrary, directory: Directory) -> dict[str, tuple[str, str]]:
    """clause ID -> (title, whole text), fetched three at a time as the runtime does."""
    ids = [e.clause_id for e in directory.entries]
    texts: dict[str, tuple[str, str]] = {}
    for start in range(0, len(ids), 3):
        for clause in library.fetch(directory, ids[start : start + 3]).clauses:
            texts[clause.clause_id] = (clause.title, clause.text)
    return texts
