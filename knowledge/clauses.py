"""The directory of a version and whole-clause fetch, always under one family and version."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date

from knowledge.errors import IntegrityError, ObjectMissing, TooManyClauses
from knowledge.manifest import Registry, VersionEntry, governing_version
from knowledge.source import Applicability
from knowledge.store import ObjectStore

MAX_CLAUSES_PER_FETCH = 3


def normalise_space(text: str) -> str:
    """Runs of whitespace (line breaks included) as one space, none at either end."""
    return " ".join(text.split())


def verbatim(span: str, text: str) -> bool:
    """The one definition of "verbatim" in the code base: the span occurs in the text exactly,
    character for character, once whitespace is normalised in both. An empty span never does."""
    span = normalise_space(span)
    return bool(span) and span in normalise_space(text)


def clause_key(family: str, version: str, clause_id: str) -> str:
    return f"{family}/{version}/clauses/{clause_id}.md"


def directory_key(family: str, version: str) -> str:
    return f"{family}/{version}/directory.json"


@dataclass(frozen=True)
class DirectoryEntry(Applicability):
    clause_id: str
    title: str
    sha256: str
    object_version: str | None
    # The part or section heading the clause sits under, for a two-level directory.
    part: str | None = None

    @classmethod
    def from_dict(cls, body: dict) -> DirectoryEntry:
        """One entry of directory.json; entries written before applicability was data carry
        `schedule_section` only, which is the one entry of `added_by`."""
        body = dict(body)
        section = body.pop("schedule_section", None)
        if section and "added_by" not in body:
            body["added_by"] = [section]
        for key in ("plans", "added_by", "removed_by", "changed_by", "links"):
            body[key] = tuple(body.get(key) or ())
        return cls(**body)

    def to_dict(self) -> dict[str, object]:
        """One entry of directory.json, its keys in the order they have always been written
        (the inherited applicability fields come first in the dataclass itself)."""
        order = ("clause_id", "title", "sha256", "object_version", *self.applies(), "part")
        return {key: getattr(self, key) for key in order}


@dataclass(frozen=True)
class Directory:
    family: str
    version: str
    document_id: str
    content_hash: str
    entries: tuple[DirectoryEntry, ...]
    # Header facts the lineage rules need when a later version is ingested.
    code: str = ""
    retired: tuple[str, ...] = ()
    # The wording's locale, from its header: who insures, and the currency of its amounts.
    insurer: str = ""
    currency: str = ""
    # The plans or cover levels the wording names (header `plans:`), every one of them: a plan
    # with no clause of its own alone is still one the wording offers.
    plans: tuple[str, ...] = ()

    @property
    def plans_named(self) -> tuple[str, ...]:
        named = {p.lower(): p for p in self.plans} | {p.lower(): p for e in self.entries for p in e.plans}
        return tuple(named.values())

    def get(self, clause_id: str) -> DirectoryEntry | None:
        return next((e for e in self.entries if e.clause_id == clause_id), None)

    def listing(self) -> list[dict[str, str]]:
        """What a model sees: IDs and titles only."""
        return [{"clause_id": e.clause_id, "title": e.title} for e in self.entries]

    def to_json(self) -> bytes:
        body = {
            "family": self.family,
            "version": self.version,
            "document_id": self.document_id,
            "content_hash": self.content_hash,
            "code": self.code,
            "retired": list(self.retired),
            "insurer": self.insurer,
            "currency": self.currency,
            "plans": list(self.plans),
            "clauses": [e.to_dict() for e in self.entries],
        }
        return json.dumps(body, indent=2).encode()

    @classmethod
    def from_json(cls, data: bytes) -> Directory:
        body = json.loads(data)
        entries = tuple(DirectoryEntry.from_dict(e) for e in body["clauses"])
        return cls(
            body["family"],
            body["version"],
            body["document_id"],
            body["content_hash"],
            entries,
            body.get("code", ""),
            tuple(body.get("retired", ())),
            body.get("insurer", ""),
            body.get("currency", ""),
            tuple(body.get("plans", ())),
        )


@dataclass(frozen=True)
class FetchedClause(Applicability):
    clause_id: str
    title: str
    text: str
    family: str
    version: str
    # The S3 object version the text was read from: served quotes are re-read under it.
    object_version: str | None = None


@dataclass(frozen=True)
class FetchResult:
    clauses: list[FetchedClause]
    not_found: list[str]


class ClauseLibrary:
    """Read side of the knowledge store, as the runtime uses it on every turn.

    The manifest is read from the store on every call (so a withdrawal or a stopped store
    shows at once); directories are cached by their immutable S3 object version.
    """

    def __init__(self, store: ObjectStore):
        self.store = store
        self.registry = Registry(store)
        self._directories: dict[tuple[str, str | None], Directory] = {}

    def governing(self, family: str, on_date: date) -> VersionEntry:
        manifest, _ = self.registry.read()
        return governing_version(manifest, family, on_date)

    def directory(self, entry: VersionEntry) -> Directory:
        cache_key = (entry.directory_key, entry.directory_object_version)
        if cache_key not in self._directories:
            obj = self.store.get(entry.directory_key, entry.directory_object_version)
            directory = Directory.from_json(obj.data)
            if directory.content_hash != entry.content_hash:
                raise IntegrityError(f"{entry.directory_key} does not match the manifest's content hash")
            self._directories[cache_key] = directory
        return self._directories[cache_key]

    def fetch(self, directory: Directory, clause_ids: list[str]) -> FetchResult:
        """Fetch up to three clauses whole; IDs not in the directory go to not_found."""
        if len(clause_ids) > MAX_CLAUSES_PER_FETCH:
            raise TooManyClauses(
                f"{len(clause_ids)} clause IDs asked for; at most {MAX_CLAUSES_PER_FETCH} per fetch"
            )
        found: list[FetchedClause] = []
        not_found: list[str] = []
        for clause_id in dict.fromkeys(clause_ids):
            entry = directory.get(clause_id)
            if entry is None:
                not_found.append(clause_id)
                continue
            key = clause_key(directory.family, directory.version, clause_id)
            try:
                obj = self.store.get(key, entry.object_version)
            except ObjectMissing:
                not_found.append(clause_id)
                continue
            if hashlib.sha256(obj.data).hexdigest() != entry.sha256:
                raise IntegrityError(f"{key} does not match the SHA-256 in its directory")
            found.append(
                FetchedClause(
                    clause_id,
                    entry.title,
                    obj.data.decode(),
                    directory.family,
                    directory.version,
                    entry.object_version,
                    **entry.applies(),
                )
            )
        return FetchResult(found, not_found)

    def quotes_hold(self, clause: FetchedClause, quotes: list[str]) -> bool:
        """Re-read the clause object by its version, once, and confirm every quote is in it,
        verbatim (see `verbatim`): what `citations_verified` means."""
        key = clause_key(clause.family, clause.version, clause.clause_id)
        try:
            text = self.store.get(key, clause.object_version).data.decode()
        except ObjectMissing:
            return False
        return all(verbatim(quote, text) for quote in quotes)
