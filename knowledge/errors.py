"""Typed errors of the knowledge layer, caught where an outcome is decided."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Violation:
    """One broken rule in one file, and where possible one clause."""

    file: str
    clause: str | None
    rule: str
    detail: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.clause}" if self.clause else self.file
        return f"{where}: [{self.rule}] {self.detail}"


class KnowledgeError(Exception):
    """Base of every knowledge-layer error."""


class ValidationFailed(KnowledgeError):
    """A source, lineage or release record breaks the rules; nothing was written."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations
        super().__init__("\n".join(str(v) for v in violations))


class KnowledgeUnavailable(KnowledgeError):
    """The object store cannot be reached or answered with an error."""


class ObjectMissing(KnowledgeError):
    """A key the manifest or directory relies on is not in the store."""


class IntegrityError(KnowledgeError):
    """Stored content does not match the hash recorded for it."""


class ImmutableVersion(KnowledgeError):
    """Changed content for a version that is approved or withdrawn: it needs a new version."""


class RegistryError(KnowledgeError):
    """A manifest operation is refused (unknown version, overlap, bad interval …)."""


class VersionNotIngested(RegistryError):
    """A version the manifest does not hold: nothing to approve, withdraw or read."""


class WriteConflict(KnowledgeError):
    """A conditional write refused: the object changed (or appeared) since it was read."""


class ManifestChanged(RegistryError):
    """Other writers kept changing the manifest; every retry of this change lost the race."""


class NoGoverningVersion(KnowledgeError):
    """No single approved version covers a date; never fall back to another one."""

    def __init__(self, family: str, on_date: object, versions: list[str], message: str):
        self.family = family
        self.on_date = on_date
        self.versions = versions
        super().__init__(message)


class RegistryGap(NoGoverningVersion):
    """No approved version's interval contains the date; `versions` names withdrawn ones that did."""


class RegistryConflict(NoGoverningVersion):
    """More than one approved version's interval contains the date."""


class TooManyClauses(KnowledgeError):
    """More than three clause IDs were asked for in one fetch."""
