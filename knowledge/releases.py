"""Release records: approvals a person reviewed, kept as data in policies/releases.toml."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path

from knowledge.errors import RegistryError, ValidationFailed, Violation
from knowledge.manifest import Registry, overlaps
from knowledge.source import PolicySource


@dataclass(frozen=True)
class ReleaseRecord:
    family: str
    version: str
    effective_from: date | None
    effective_to: date | None
    approved_by: str
    approved_on: date | datetime | None  # TOML gives a date (a day) or an offset date-time
    note: str = ""

    @property
    def label(self) -> str:
        return f"{self.family} {self.version}"

    @property
    def approved_at(self) -> datetime | None:
        """The recorded moment of approval: a day alone is taken as its start, in UTC."""
        if isinstance(self.approved_on, datetime):
            on = self.approved_on
            return on if on.tzinfo else on.replace(tzinfo=UTC)
        if isinstance(self.approved_on, date):
            return datetime.combine(self.approved_on, time(), UTC)
        return None


def load_releases(path: Path | str) -> list[ReleaseRecord]:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValidationFailed([Violation(str(path), None, "toml", str(exc))]) from exc
    records = []
    for n, raw in enumerate(data.get("release", []), start=1):
        missing = [k for k in ("family", "version", "approved_by") if not raw.get(k)]
        if missing:
            raise ValidationFailed(
                [Violation(str(path), f"release #{n}", "missing-metadata", f"missing {', '.join(missing)}")]
            )
        records.append(
            ReleaseRecord(
                family=raw["family"],
                version=str(raw["version"]),
                effective_from=raw.get("effective_from"),
                effective_to=raw.get("effective_to"),
                approved_by=raw["approved_by"],
                approved_on=raw.get("approved_on"),
                note=raw.get("note", ""),
            )
        )
    return records


def check_releases(path: str, records: list[ReleaseRecord], sources: list[PolicySource]) -> list[Violation]:
    """Each approval names an existing version, has a start, and overlaps no other approval."""
    found: list[Violation] = []
    known = {(s.family, s.version) for s in sources}
    for r in records:
        if (r.family, r.version) not in known:
            found.append(
                Violation(path, r.label, "unknown-version", "no wording file defines this family and version")
            )
        if r.effective_from is None:
            found.append(
                Violation(
                    path,
                    r.label,
                    "approval-without-start",
                    "an approved version needs an effective_from date",
                )
            )
        elif r.effective_to is not None and r.effective_to <= r.effective_from:
            found.append(
                Violation(
                    path,
                    r.label,
                    "empty-interval",
                    f"effective_to {r.effective_to} is not after {r.effective_from}",
                )
            )
    dated = [r for r in records if r.effective_from is not None]
    for i, a in enumerate(dated):
        for b in dated[i + 1 :]:
            if a.family != b.family:
                continue
            if overlaps(a.effective_from, a.effective_to, b.effective_from, b.effective_to):  # type: ignore[arg-type]
                found.append(
                    Violation(
                        path,
                        b.label,
                        "overlapping-approval",
                        f"[{b.effective_from}, {b.effective_to or 'open'}) overlaps {a.version} "
                        f"[{a.effective_from}, {a.effective_to or 'open'})",
                    )
                )
    return found


def apply_releases(registry: Registry, records: list[ReleaseRecord]) -> list[str]:
    """Approve each recorded release in start order; already-applied ones are left alone.

    Every recorded version must be ingested first: nothing is approved otherwise.
    """
    manifest, _ = registry.read()
    missing = [r.label for r in records if r.version not in manifest.families.get(r.family, {})]
    if missing:
        raise RegistryError(
            f"release records name versions not ingested yet: {', '.join(missing)}; "
            "run 'knowledge ingest' first"
        )
    done = []
    for r in sorted(records, key=lambda r: (r.family, r.effective_from or date.min)):
        # The approval's time is the record's, not this run's: start-dev applies the records on
        # every start, and the wording page's "Approved" column is about the person's decision.
        if registry.approve(
            r.family, r.version, r.effective_from, r.effective_to, r.approved_by, approved_at=r.approved_at
        ):
            done.append(
                f"approved {r.label} from {r.effective_from} to {r.effective_to or 'open'} by {r.approved_by}"
            )
    return done
