"""Carrying evidence into a newly approved version: the store says which clauses kept their text
(the SHA-256 of each clause object in the two directories), agent.answering.evidence copies the
rows. Run on every approval and by `python -m agent evidence carry`."""

from __future__ import annotations

import logging

from sqlalchemy.orm import Session

from agent.answering.evidence import Carried, carry_over, source_version
from knowledge.clauses import ClauseLibrary
from knowledge.manifest import Registry
from knowledge.source import version_key
from knowledge.store import ObjectStore

log = logging.getLogger(__name__)


def hashes_of(library: ClauseLibrary, family: str, version: str) -> dict[str, str]:
    """clause ID -> SHA-256 of each clause of an ingested version (RegistryError if it is not)."""
    manifest, _ = Registry(library.store).read()
    return {e.clause_id: e.sha256 for e in library.directory(manifest.entry(family, version)).entries}


def carry_into(
    session: Session, store: ObjectStore, family: str, version: str, *, by: str, source: str | None = None
) -> Carried:
    """Carry the evidence of `source` (default: the latest earlier version holding evidence) into
    `version`. Nothing to carry from: an empty result. Adds to the session; the caller commits."""
    source = source or source_version(session, family, version, version_key)
    if source is None:
        return Carried(None)
    library = ClauseLibrary(store)
    return carry_over(
        session,
        family,
        source,
        version,
        hashes_of(library, family, source),
        hashes_of(library, family, version),
        by=by,
    )
