"""The manifest: the registry of ingested versions, their approval and effective intervals.

Pure functions change a Manifest in memory; `Registry` reads and writes it in the store.
Intervals are half-open: start included, end excluded, open end allowed.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Literal, TypeVar

from pydantic import BaseModel, Field

from knowledge.errors import (
    ManifestChanged,
    ObjectMissing,
    RegistryConflict,
    RegistryError,
    RegistryGap,
    VersionNotIngested,
    WriteConflict,
)
from knowledge.source import version_key
from knowledge.store import ObjectStore

log = logging.getLogger(__name__)

MANIFEST_KEY = "manifest.json"
Status = Literal["draft", "approved", "withdrawn"]


class VersionEntry(BaseModel):
    family: str
    version: str
    document_id: str
    status: Status = "draft"
    content_hash: str
    clause_count: int
    directory_key: str
    directory_object_version: str | None
    ingested_at: datetime
    effective_from: date | None = None
    effective_to: date | None = None
    approved_by: str | None = None
    approved_at: datetime | None = None
    # The release check the approver saw (its ID in the clausedesk database), if any.
    release_check: str | None = None
    withdrawn_by: str | None = None
    withdrawn_at: datetime | None = None
    withdraw_reason: str | None = None

    def covers(self, day: date) -> bool:
        if self.effective_from is None or day < self.effective_from:
            return False
        return self.effective_to is None or day < self.effective_to

    def interval(self) -> str:
        return f"[{self.effective_from}, {self.effective_to or 'open'})"


class Manifest(BaseModel):
    schema_version: int = 1
    updated_at: datetime | None = None
    families: dict[str, dict[str, VersionEntry]] = Field(default_factory=dict)

    def entry(self, family: str, version: str) -> VersionEntry:
        try:
            return self.families[family][version]
        except KeyError:
            raise VersionNotIngested(f"{family} {version} has not been ingested") from None

    def approved(self, family: str) -> list[VersionEntry]:
        entries = self.families.get(family, {}).values()
        return sorted((e for e in entries if e.status == "approved"), key=lambda e: version_key(e.version))


def governing_version(manifest: Manifest, family: str, on_date: date) -> VersionEntry:
    """The single approved version whose interval contains on_date; never a fallback."""
    matches = [e for e in manifest.approved(family) if e.covers(on_date)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        known = [f"{e.version} {e.interval()}" for e in manifest.approved(family)]
        # A withdrawn version that covered the date is why there is a gap: say so.
        withdrawn = [
            e.version
            for e in manifest.families.get(family, {}).values()
            if e.status == "withdrawn" and e.covers(on_date)
        ]
        raise RegistryGap(
            family,
            on_date,
            withdrawn,
            f"no approved {family} wording is effective on {on_date}"
            + (f" (approved: {', '.join(known)})" if known else " (none approved)")
            + (f"; withdrawn: {', '.join(withdrawn)}" if withdrawn else ""),
        )
    names = [e.version for e in matches]
    raise RegistryConflict(
        family,
        on_date,
        names,
        f"{len(matches)} approved {family} wordings are effective on {on_date}: "
        + ", ".join(f"{e.version} {e.interval()}" for e in matches),
    )


def overlaps(a_from: date, a_to: date | None, b_from: date, b_to: date | None) -> bool:
    """Whether two half-open intervals [from, to) share a day; None is an open end."""
    return a_from < (b_to or date.max) and b_from < (a_to or date.max)


def approve(
    manifest: Manifest,
    family: str,
    version: str,
    effective_from: date | None,
    effective_to: date | None,
    approved_by: str,
    now: datetime,
    release_check: str | None = None,
) -> bool:
    """Approve a draft; closes the predecessor's open interval. Returns False if unchanged."""
    entry = manifest.entry(family, version)
    if effective_from is None:
        raise RegistryError(f"{family} {version}: an approval needs an effective start date")
    if effective_to is not None and effective_to <= effective_from:
        raise RegistryError(
            f"{family} {version}: effective end {effective_to} is not after start {effective_from}"
        )
    if not approved_by.strip():
        raise RegistryError(f"{family} {version}: an approval must name who approved it")
    if entry.status == "approved":
        if (entry.effective_from, entry.effective_to) == (effective_from, effective_to):
            return False
        raise RegistryError(
            f"{family} {version} is already approved for {entry.interval()}; "
            "withdraw it or approve a successor instead"
        )
    if entry.status == "withdrawn":
        raise RegistryError(f"{family} {version} was withdrawn and cannot be approved again")

    others = [e for e in manifest.approved(family) if e.version != version]
    # The predecessor is the latest approved version that starts earlier and is still
    # open (or runs past the new start): its end becomes the successor's start.
    earlier = [e for e in others if e.effective_from and e.effective_from < effective_from]
    predecessor = max(earlier, key=lambda e: e.effective_from, default=None)
    closing = None
    if predecessor and (predecessor.effective_to is None or predecessor.effective_to > effective_from):
        closing = predecessor
    clashes = [
        e
        for e in others
        if e is not closing and overlaps(effective_from, effective_to, e.effective_from, e.effective_to)
    ]
    if (
        closing is not None
        and effective_to is not None
        and closing.effective_to is not None
        and closing.effective_to > effective_to
    ):
        clashes.append(closing)  # the successor would sit inside its predecessor
    if clashes:
        raise RegistryError(
            f"{family} {version} [{effective_from}, {effective_to or 'open'}) overlaps approved "
            + ", ".join(f"{e.version} {e.interval()}" for e in clashes)
        )
    if closing is not None:
        closing.effective_to = effective_from
    entry.status = "approved"
    entry.effective_from = effective_from
    entry.effective_to = effective_to
    entry.approved_by = approved_by
    entry.approved_at = now
    entry.release_check = release_check
    return True


def withdraw(
    manifest: Manifest, family: str, version: str, withdrawn_by: str, reason: str, now: datetime
) -> bool:
    """Withdraw a version: it is never evidence again. Its interval is kept for the record."""
    entry = manifest.entry(family, version)
    if entry.status == "withdrawn":
        return False
    if entry.status == "draft":
        raise RegistryError(
            f"{family} {version} is a draft that was never approved, so there is nothing to withdraw; "
            f"discard it instead (python -m knowledge discard {family} {version})"
        )
    if not withdrawn_by.strip() or not reason.strip():
        raise RegistryError(f"{family} {version}: a withdrawal needs who and why")
    entry.status = "withdrawn"
    entry.withdrawn_by = withdrawn_by
    entry.withdrawn_at = now
    entry.withdraw_reason = reason
    return True


def discard(manifest: Manifest, family: str, version: str) -> VersionEntry:
    """Remove a draft from the registry: it was never evidence, and its clause IDs constrain no
    later version. Its objects stay in the versioned bucket, unread without a manifest entry."""
    entry = manifest.entry(family, version)
    if entry.status != "draft":
        raise RegistryError(
            f"{family} {version} is {entry.status}; only a draft can be discarded"
            + (" (withdraw it instead)" if entry.status == "approved" else "")
        )
    del manifest.families[family][version]
    if not manifest.families[family]:
        del manifest.families[family]
    return entry


T = TypeVar("T")


class Registry:
    """Reads and writes the manifest object. The manifest is always the last write.

    Every writer (the API's processes, `python -m knowledge`, start-dev) changes it by a
    conditional write on the ETag it read: a write that lost to another one is refused by the
    store, and the change is made again on what the other wrote (`update`). Two approvals at
    once both stand; the same approval twice changes it once."""

    ATTEMPTS = 10  # the same change re-made on a fresh read; each lost race means someone else won

    def __init__(self, store: ObjectStore):
        self.store = store

    def read(self) -> tuple[Manifest, str | None]:
        """The manifest and its ETag, which `write` takes back (an empty manifest and None when
        none exists yet)."""
        try:
            obj = self.store.get(MANIFEST_KEY)
        except ObjectMissing:
            return Manifest(), None
        return Manifest.model_validate_json(obj.data), obj.etag

    def write(self, manifest: Manifest, expected: str | None) -> str | None:
        """Write only over the manifest that was read (`expected`: its ETag, None for none);
        WriteConflict if another write came between. Returns the new S3 version ID."""
        manifest.updated_at = datetime.now(UTC)
        data = json.dumps(manifest.model_dump(mode="json"), indent=2, sort_keys=True).encode()
        return self.store.put(
            MANIFEST_KEY, data, content_type="application/json", if_match=expected, if_absent=expected is None
        )

    def update(self, change: Callable[[Manifest], tuple[bool, T]]) -> T:
        """Make `change` on the manifest as it is now and write it if it changed anything
        (`change` returns (changed, result)); re-made on a fresh read when another write won.
        Its refusals (RegistryError) come from the manifest that was current."""
        for attempt in range(1, self.ATTEMPTS + 1):
            manifest, seen = self.read()
            changed, result = change(manifest)
            if not changed:
                return result
            try:
                self.write(manifest, seen)
            except WriteConflict:
                log.info("manifest write lost to another writer (attempt %d); re-reading", attempt)
                time.sleep(random.uniform(0, 0.02 * attempt))  # spread writers that keep meeting
                continue
            return result
        raise ManifestChanged(
            f"the manifest kept changing under this command ({self.ATTEMPTS} attempts); run it again"
        )

    def approve(
        self,
        family: str,
        version: str,
        effective_from: date | None,
        effective_to: date | None,
        approved_by: str,
        release_check: str | None = None,
        *,
        approved_at: datetime | None = None,
    ) -> bool:
        """`approved_at`: when the person approved it, where a record says so (a release record);
        otherwise now, the moment of this command. True only when this call's write took effect."""

        def change(manifest: Manifest) -> tuple[bool, bool]:
            changed = approve(
                manifest,
                family,
                version,
                effective_from,
                effective_to,
                approved_by,
                approved_at or datetime.now(UTC),
                release_check,
            )
            return changed, changed

        return self.update(change)

    def withdraw(self, family: str, version: str, withdrawn_by: str, reason: str) -> bool:
        def change(manifest: Manifest) -> tuple[bool, bool]:
            changed = withdraw(manifest, family, version, withdrawn_by, reason, datetime.now(UTC))
            return changed, changed

        return self.update(change)

    def discard(self, family: str, version: str) -> VersionEntry:
        return self.update(lambda manifest: (True, discard(manifest, family, version)))
