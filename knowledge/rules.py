"""Validation rules for wordings, their lineage across versions, and release records.

Every check returns Violations naming file, clause and rule; callers raise them together
so a policy owner sees every problem in one run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from knowledge.errors import ValidationFailed, Violation
from knowledge.source import ID_NUMBER, REQUIRED_FIELDS, PolicySource, version_key

MAX_CLAUSE_CHARS = 1500
# Every kind a clause ID may name; a family's header may narrow them with `kinds: COV, EXC, …`.
# DEF holds a defined term, END an endorsement.
KINDS = ("GEN", "COV", "BEN", "LIM", "EXC", "EXS", "CLM", "CON", "DEF", "END")
VERSION = re.compile(r"^\d{4}\.\d+$")
CODE = re.compile(r"^[A-Z]{3}$")
# Below this share of shared words (see subject_similarity) two texts under one ID are taken
# to be about different subjects. Measured on the Kowhai corpus: a clause rewritten between
# versions scores 0.71 and up; two different clauses of one version score 0.49 at most, and
# those are near twins across families (general conditions of motor and home).
SAME_SUBJECT = 0.35
_WORD = re.compile(r"[a-z]{3,}")
_COMMON = frozenset(
    "the and for you your our are any not with this that from will has have all but can may "
    "who its was were which when where been being into under what than then them they their "
    "each other also does such only must".split()
)


def subject_similarity(a: str, b: str) -> float:
    """Share of distinct content words two clause bodies have in common (Jaccard), 0 to 1.
    A leading `## ` heading line is left out: titles are redrafted, the subject is the text."""
    x = set(_WORD.findall(_body(a).lower())) - _COMMON
    y = set(_WORD.findall(_body(b).lower())) - _COMMON
    return len(x & y) / len(x | y) if x | y else 1.0


def _body(text: str) -> str:
    return text.split("\n", 1)[1] if text.startswith("## ") and "\n" in text else text


def kinds_of(source: PolicySource) -> tuple[str, ...]:
    declared = [k.strip() for k in source.header.get("kinds", "").split(",") if k.strip()]
    return tuple(declared) or KINDS


def id_pattern(source: PolicySource) -> re.Pattern[str]:
    """The one clause-ID pattern: CODE-KIND- and two to four digits (source.ID_NUMBER)."""
    return re.compile(rf"^{re.escape(source.code)}-({'|'.join(kinds_of(source))})-{ID_NUMBER}$")


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
    if source.header.get("review"):
        broke(
            None,
            "import-review-pending",
            f"an imported draft still waits for review ({source.header['review']}): do the review steps "
            "in its import report, then delete the header's review line",
        )

    kinds = kinds_of(source)
    for kind in kinds:
        if kind not in KINDS:
            broke(None, "unknown-kind", f"header kinds names {kind!r}; kinds are {', '.join(KINDS)}")
    pattern = id_pattern(source)
    seen: set[str] = set()
    ids = {c.clause_id for c in source.clauses}
    for clause in source.clauses:
        cid = clause.clause_id
        if not pattern.match(cid):
            broke(
                cid,
                "malformed-id",
                f"ID must look like {source.code or 'XXX'}-KIND-NN (two to four digits), "
                f"KIND one of {', '.join(kinds)}",
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
        for link in clause.links:
            if link not in ids:
                broke(cid, "unknown-link", f"links names {link}, which is not a clause of this wording")
            elif link == cid:
                broke(cid, "unknown-link", "a clause cannot link to itself")
        for key in ("added_by", "removed_by", "changed_by"):
            for entry in getattr(clause, key):
                if pattern.match(entry) and entry not in ids:
                    broke(
                        cid,
                        "unknown-endorsement",
                        f"{key} names {entry}, which is not a clause of this wording",
                    )
    for cid in source.retired:
        if not pattern.match(cid):
            broke(cid, "malformed-id", "a retired ID in the header is not a valid clause ID")
    return found


def check_lineage(sources: Iterable[PolicySource]) -> list[Violation]:
    """Rules across the versions of one family: IDs are never dropped silently or reused."""
    found: list[Violation] = []
    ordered = sorted(sources, key=lambda s: version_key(s.version))
    earlier_ids: dict[str, str] = {}  # clause ID -> first version that had it
    last_text: dict[str, tuple[str, str]] = {}  # clause ID -> (latest version with its text, text)
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
                before = previous.header.get(key)
                if key == "document_id" and source.header.get("replaces") == before:
                    continue  # a new document lineage, declared
                if source.header.get(key) != before:
                    hint = (
                        f"; a wording that replaces the document says so with 'replaces: {before}'"
                        if key == "document_id"
                        else ""
                    )
                    found.append(
                        Violation(
                            source.path,
                            None,
                            "family-identity",
                            f"{key} {source.header.get(key)!r} differs from "
                            f"{before!r} in {previous.path}{hint}",
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
        for clause in source.clauses:
            cid = clause.clause_id
            # Stored versions are read back without their text; only texts at hand are compared.
            if clause.text and cid in last_text:
                version, text = last_text[cid]
                score = subject_similarity(text, clause.text)
                if score < SAME_SUBJECT:
                    found.append(
                        Violation(
                            source.path,
                            cid,
                            "id-reused-for-new-subject",
                            f"the text of {cid} in version {source.version} shares {score:.0%} of its "
                            f"words with {cid} in version {version} (at least {SAME_SUBJECT:.0%} for one "
                            "subject); give the new subject a new ID and retire or keep the old one",
                        )
                    )
            if clause.text:
                last_text[cid] = (source.version, clause.text)
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
