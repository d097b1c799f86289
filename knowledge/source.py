"""Parse policy wording files: a metadata header and one `## ID - Title` section per clause."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from knowledge.errors import ValidationFailed, Violation

REQUIRED_FIELDS = ("family", "code", "version", "document_id", "insurer")
# The import report's Markdown beside a draft (drafts/motor/2026.1.import.md).
REPORT_SUFFIX = ".import.md"
# The one shape of a clause ID: family code, kind, a number of two to four digits (MTR-BEN-03,
# MTR-COV-104, PRO-GEN-1000). Validation narrows it to a wording's own code and kinds
# (knowledge.rules); the importer writes IDs with clause_id() below, from the same bound.
ID_DIGITS = 4
ID_NUMBER = rf"\d{{2,{ID_DIGITS}}}"
CLAUSE_ID = rf"[A-Z]{{3}}-[A-Z]{{3}}-{ID_NUMBER}"


def clause_id(code: str, kind: str, number: int) -> str:
    """An ID in the one shape; a number past it is refused rather than written unreadable."""
    if not 0 < number < 10**ID_DIGITS:
        raise ValueError(
            f"{kind} number {number} is past the {ID_DIGITS}-digit clause IDs ({code}-{kind}-"
            f"{10**ID_DIGITS - 1} is the last); split the wording into families"
        )
    return f"{code}-{kind}-{number:02d}"


HEADING = re.compile(r"^## (?P<id>\S+)(?: - (?P<title>.*))?$")
# One metadata line right under a clause heading: who the clause applies to and what it links to.
APPLIES = re.compile(r"^<!--\s*applies:(?P<body>.*?)-->\s*$")
OLD_SECTION_MARK = re.compile(r"^<!--\s*schedule_section:")
# Plan names hold spaces and commas are rare in them, so plans are split at '|'; the other
# keys name schedule entries or clause IDs, split at ',' (or '|').


@dataclass(frozen=True, kw_only=True)
class Applicability:
    """A clause's applicability and links (the `<!-- applies: … -->` line), as the wording file,
    the version's directory and a fetched clause all carry them; given by keyword only."""

    # Plans or cover levels it applies to (empty: all plans); schedule entries one of which
    # must be on the schedule for it to apply; endorsements that exclude it or change it.
    plans: tuple[str, ...] = ()
    added_by: tuple[str, ...] = ()
    removed_by: tuple[str, ...] = ()
    changed_by: tuple[str, ...] = ()
    # Definitions and cross-referenced clauses fetched with it.
    links: tuple[str, ...] = ()
    # False for notes that are not contract text (never cited).
    citable: bool = True

    def applies(self) -> dict[str, Any]:
        """These fields by name: keyword arguments for another kind that carries them, and the
        applicability as stored in the directory and hashed."""
        return {key: getattr(self, key) for key in APPLIES_KEYS}


# The keys of the applies line, the fields above.
APPLIES_KEYS = tuple(f.name for f in fields(Applicability))


@dataclass(frozen=True)
class Clause(Applicability):
    clause_id: str
    title: str
    # The whole clause as stored and served: heading line and text, byte for byte.
    text: str
    # The part or section heading (`# Part …` line) the clause sits under, if the file has parts.
    part: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


@dataclass(frozen=True)
class PolicySource:
    path: str
    header: dict[str, str]
    clauses: list[Clause] = field(default_factory=list)

    @property
    def family(self) -> str:
        return self.header.get("family", "")

    @property
    def code(self) -> str:
        return self.header.get("code", "")

    @property
    def version(self) -> str:
        return self.header.get("version", "")

    @property
    def retired(self) -> list[str]:
        raw = self.header.get("retired", "")
        return [part.strip() for part in raw.split(",") if part.strip()]

    @property
    def content_hash(self) -> str:
        """Hash of everything that is stored for this version, in a canonical form."""
        body = {
            "header": {k: self.header[k] for k in sorted(self.header)},
            "clauses": [
                [c.clause_id, c.title, c.sha256, {**c.applies(), "part": c.part}] for c in self.clauses
            ],
        }
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def version_key(version: str) -> tuple[int, ...]:
    """Order versions like 2025.1 < 2026.2 < 2027.1."""
    return tuple(int(part) for part in version.split("."))


def parse_wording(path: Path | str, text: str | None = None) -> PolicySource:
    """Read one wording file. Structural problems raise ValidationFailed naming the file."""
    path = Path(path)
    name = str(path)
    if text is None:
        text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise ValidationFailed([Violation(name, None, "header", "file must start with a '---' header")])
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ValidationFailed(
            [Violation(name, None, "header", "header opened with '---' is never closed")]
        ) from None
    header: dict[str, str] = {}
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip():
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise ValidationFailed([Violation(name, None, "header", f"line {number} is not 'field: value'")])
        header[key.strip()] = value.strip()

    clauses: list[Clause] = []
    problems: list[Violation] = []
    # A clause runs from its `## ` heading to the next clause or part heading (`# `).
    breaks = [i for i in range(end + 1, len(lines)) if lines[i].startswith(("## ", "# "))]
    part = None
    for n, start in enumerate(breaks):
        stop = breaks[n + 1] if n + 1 < len(breaks) else len(lines)
        if lines[start].startswith("# "):
            part = lines[start][2:].strip() or None
            continue
        clauses.append(_clause(name, lines[start:stop], problems, part))
    if problems:
        raise ValidationFailed(problems)
    return PolicySource(path=name, header=header, clauses=clauses)


def _clause(file: str, lines: list[str], problems: list[Violation], part: str | None) -> Clause:
    match = HEADING.match(lines[0].rstrip())
    if not match:
        raise ValidationFailed([Violation(file, None, "heading", f"cannot read heading {lines[0]!r}")])
    cid = match["id"]
    body = lines[1:]
    applies: dict[str, object] = {}
    first = next((i for i, line in enumerate(body) if line.strip()), None)
    if first is not None and OLD_SECTION_MARK.match(body[first].strip()):
        problems.append(
            Violation(
                file,
                cid,
                "applies-line",
                "'<!-- schedule_section: X -->' is replaced by '<!-- applies: added_by=X -->'",
            )
        )
        del body[first]
    elif first is not None and (mark := APPLIES.match(body[first].strip())):
        applies = parse_applies(mark["body"], file, cid, problems)
        del body[first]
    heading = lines[0].rstrip()
    text = "\n".join([heading, *body]).strip() + "\n"
    return Clause(cid, (match["title"] or "").strip(), text, part=part, **applies)  # type: ignore[arg-type]


def parse_applies(body: str, file: str, cid: str, problems: list[Violation]) -> dict[str, object]:
    """`plans=A|B; added_by=x; links=ID,ID; citable=no` as Clause fields; bad keys are problems."""
    fields: dict[str, object] = {}
    for part in body.split(";"):
        if not part.strip():
            continue
        key, sep, value = (s.strip() for s in part.partition("="))
        if not sep or key not in APPLIES_KEYS:
            problems.append(
                Violation(
                    file,
                    cid,
                    "applies-key",
                    f"unknown or malformed {part.strip()!r} in the applies line; "
                    f"keys are {', '.join(APPLIES_KEYS)}, each as key=value",
                )
            )
            continue
        if key in fields:
            problems.append(Violation(file, cid, "applies-key", f"'{key}' appears twice in the applies line"))
        if key == "citable":
            if value not in ("yes", "no"):
                problems.append(
                    Violation(file, cid, "applies-key", f"citable must be yes or no, not {value!r}")
                )
            fields[key] = value != "no"
        else:
            split = r"\|" if key == "plans" else r"[,|]"
            fields[key] = tuple(v.strip() for v in re.split(split, value) if v.strip())
    return fields


def applies_line(clause: Clause) -> str | None:
    """The metadata line that parse_wording reads back into the same fields, or None."""
    parts = []
    if clause.plans:
        parts.append("plans=" + "|".join(clause.plans))
    for key in ("added_by", "removed_by", "changed_by", "links"):
        if values := getattr(clause, key):
            parts.append(f"{key}=" + ",".join(values))
    if not clause.citable:
        parts.append("citable=no")
    return f"<!-- applies: {'; '.join(parts)} -->" if parts else None


def load_sources(root: Path | str) -> list[PolicySource]:
    """Every wording file under root (`{family}/{version}.md`), in family and version order.

    Root may also be one family's folder.
    """
    root = Path(root)
    paths = sorted(root.glob("*/*.md")) or sorted(root.glob("*.md"))
    # An import writes its report beside the draft (`2026.1.import.md`): not a wording.
    sources = [
        parse_wording(p) for p in paths if p.name != "README.md" and not p.name.endswith(REPORT_SUFFIX)
    ]
    return sorted(sources, key=lambda s: (s.family, _safe_key(s.version)))


def _safe_key(version: str) -> tuple[int, ...]:
    try:
        return version_key(version)
    except ValueError:
        return (0,)
