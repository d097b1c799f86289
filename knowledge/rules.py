"""Validation rules for wordings, their lineage across versions, and release records.

Every check returns Violations naming file, clause and rule; callers raise them together
so a policy owner sees every problem in one run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from knowledge.errors import ValidationFailed, Violation
from knowledge.source import REQUIRED_FIELDS, PolicySource, version_key

MAX_CLAUSE_CHARS = 1500
KINDS = ("GEN", "COV", "BEN", "LIM", "EXC", "EXS", "CLM", "CON")
VERSION = re.compile(r"^\d{4}\.\d+$")
CODE = re.compile(r"^[A-Z]{3}$")


def check_wording(source: PolicySource) -> list[Violation]:
    """Rules that one wording file must meet on its own."""
    found: list[Violation] = []
    file = source.path

    def broke(clause: str | None, rule: str, detail: str) -> None:
        found.append(Violation(file, clause, rule, detail))

    for name in REQUIRED_FIELDS:
        if not source.header.get(name):
            broke(None, "missing-metadata", f"header field '{name}' is missing or empty")
    if source.version and not VERSION.match(source.version):
        broke(None, "version-format", f"version {source.version!r} is not YEAR.N, e.g. 2026.2")
    if source.code and not CODE.match(source.code):
        broke(None, "family-code", f"code {source.code!r} must be three capital letters")
    if not source.clauses:
        broke(None, "no-clauses", "the wording has no '## ID - Title' sections")

    id_pattern = re.compile(rf"^{re.escape(source.code)}-({'|'.join(KINDS)})-\d{{2}}$")
    seen: set[str] = set()
    for clause in source.clauses:
        cid = clause.clause_id
        if not id_pattern.match(cid):
            broke(
                cid,
                "malformed-id",
                f"ID must look like {source.code or 'XXX'}-KIND-NN with KIND one of {', '.join(KINDS)}",
            )
        if cid in seen:
            broke(cid, "duplicate-id", "this clause ID appears more than once in the file")
        seen.add(cid)
        if len(clause.text) > MAX_CLAUSE_CHARS:
            broke(
                cid,
                "clause-too-long",
                f"{len(clause.text):,} characters, the limit is {MAX_CLAUSE_CHARS:,}",
            )
        if len(clause.title.split()) < 2:
            shown = repr(clause.title) if clause.title else "empty"
            broke(cid, "title-too-short", f"title is {shown}; say plainly what the clause covers")
    for cid in source.retired:
        if not id_pattern.match(cid):
            broke(cid, "malformed-id", "a retired ID in the header is not a valid clause ID")
    return found


def check_lineage(sources: Iterable[PolicySource]) -> list[Violation]:
    """Rules across the versions of one family: IDs are never dropped silently or reused."""
    found: list[Violation] = []
    ordered = sorted(sources, key=lambda s: version_key(s.version))
    earlier_ids: dict[str, str] = {}  # clause ID -> first version that had it
    retired: dict[str, str] = {}  # clause ID -> version that retired it
    versions: dict[str, str] = {}
    previous: PolicySource | None = None
    for source in ordered:
        if source.version in versions:
            found.append(
                Violation(
                    source.path,
                    None,
                    "duplicate-version",
                    f"version {source.version} is also defined in {versions[source.version]}",
                )
            )
            continue
        versions[source.version] = source.path
        ids = {c.clause_id for c in source.clauses}
        if previous is not None:
            for key in ("code", "document_id"):
                if source.header.get(key) != previous.header.get(key):
                    found.append(
                        Violation(
                            source.path,
                            None,
                            "family-identity",
                            f"{key} {source.header.get(key)!r} differs from "
                            f"{previous.header.get(key)!r} in {previous.path}",
                        )
                    )
        for cid in sorted(ids & retired.keys()):
            found.append(
                Violation(
                    source.path,
                    cid,
                    "reused-id",
                    f"{cid} was retired in version {retired[cid]} and may never come back",
                )
            )
        for cid in source.retired:
            retired.setdefault(cid, source.version)
            if cid in ids:
                found.append(
                    Violation(source.path, cid, "reused-id", "the header retires an ID it still uses")
                )
        for cid in sorted(earlier_ids.keys() - ids - retired.keys()):
            found.append(
                Violation(
                    source.path,
                    cid,
                    "dropped-id",
                    f"{cid} (in version {earlier_ids[cid]}) is missing and not retired in the "
                    "header; IDs are never renumbered: keep it or list it under 'retired'",
                )
            )
        for cid in ids:
            earlier_ids.setdefault(cid, source.version)
        previous = source
    return found


def check_sources(sources: list[PolicySource]) -> None:
    """Raise ValidationFailed with every violation across all given wordings."""
    found: list[Violation] = []
    families: dict[str, list[PolicySource]] = {}
    for source in sources:
        found.extend(check_wording(source))
        families.setdefault(source.family, []).append(source)
    if not found:
        for family_sources in families.values():
            found.extend(check_lineage(family_sources))
    if found:
        raise ValidationFailed(found)
