"""Parse policy wording files: a metadata header and one `## ID - Title` section per clause."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from knowledge.errors import ValidationFailed, Violation

REQUIRED_FIELDS = ("family", "code", "version", "document_id", "insurer")
HEADING = re.compile(r"^## (?P<id>\S+)(?: - (?P<title>.*))?$")
SECTION_MARK = re.compile(r"^<!--\s*schedule_section:\s*(?P<name>[a-z0-9_]+)\s*-->\s*$")


@dataclass(frozen=True)
class Clause:
    clause_id: str
    title: str
    # The whole clause as stored and served: heading line and text, byte for byte.
    text: str
    # The schedule section that switches an optional benefit on, if any.
    schedule_section: str | None = None

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
            "clauses": [[c.clause_id, c.title, c.sha256, c.schedule_section] for c in self.clauses],
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
    starts = [i for i in range(end + 1, len(lines)) if lines[i].startswith("## ")]
    for n, start in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        clauses.append(_clause(name, lines[start:stop]))
    return PolicySource(path=name, header=header, clauses=clauses)


def _clause(file: str, lines: list[str]) -> Clause:
    match = HEADING.match(lines[0].rstrip())
    if not match:
        raise ValidationFailed([Violation(file, None, "heading", f"cannot read heading {lines[0]!r}")])
    body = lines[1:]
    section = None
    first = next((i for i, line in enumerate(body) if line.strip()), None)
    if first is not None and (mark := SECTION_MARK.match(body[first].strip())):
        section = mark["name"]
        del body[first]
    heading = lines[0].rstrip()
    text = "\n".join([heading, *body]).strip() + "\n"
    return Clause(match["id"], (match["title"] or "").strip(), text, section)


def load_sources(root: Path | str) -> list[PolicySource]:
    """Every wording file under root (`{family}/{version}.md`), in family and version order.

    Root may also be one family's folder.
    """
    root = Path(root)
    paths = sorted(root.glob("*/*.md")) or sorted(root.glob("*.md"))
    sources = [parse_wording(p) for p in paths if p.name != "README.md"]
    return sorted(sources, key=lambda s: (s.family, _safe_key(s.version)))


def _safe_key(version: str) -> tuple[int, ...]:
    try:
        return version_key(version)
    except ValueError:
        return (0,)
