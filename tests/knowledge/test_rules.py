"""Each validation rule refuses a malformed source, naming file, clause and rule."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from knowledge.errors import ValidationFailed
from knowledge.releases import ReleaseRecord, check_releases
from knowledge.rules import check_sources
from knowledge.source import load_sources, parse_wording

BODY = "We pay for this benefit up to NZD 500 for each event. The excess does not apply.\n"
TOWING = "MTR-BEN-01 - Towing and storage after an accident"
TRAVEL = "Emergency travel and accommodation far from home"


def clause_text(*headings: str) -> str:
    """A wording's clauses, one under each heading ("ID - title"), each with the same body."""
    return "\n".join(f"## {heading}\n\n{BODY}" for heading in headings)


def wording(version: str = "2026.2", clauses: str | None = None, **header: str) -> str:
    fields = {
        "family": "motor",
        "code": "MTR",
        "version": version,
        "document_id": "KM-MOTOR",
        "insurer": "Kowhai Mutual",
    } | header
    head = "\n".join(f"{k}: {v}" for k, v in fields.items() if v is not None)
    if clauses is None:
        clauses = clause_text(TOWING, f"MTR-BEN-02 - {TRAVEL}")
    return f"---\n{head}\n---\n\n> Synthetic.\n\n{clauses}"


def write(tmp_path: Path, text: str, version: str = "2026.2") -> Path:
    path = tmp_path / "motor" / f"{version}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def refused(tmp_path: Path) -> str:
    with pytest.raises(ValidationFailed) as caught:
        check_sources(load_sources(tmp_path))
    return str(caught.value)


def test_valid_wording_passes(tmp_path: Path) -> None:
    write(tmp_path, wording())
    check_sources(load_sources(tmp_path))


def test_duplicate_id_is_refused(tmp_path: Path) -> None:
    clauses = clause_text(TOWING, "MTR-BEN-01 - Towing again under the same number")
    path = write(tmp_path, wording(clauses=clauses))
    assert f"{path}: MTR-BEN-01: [duplicate-id]" in refused(tmp_path)


def test_clause_over_1500_characters_is_refused(tmp_path: Path) -> None:
    long_body = "We pay reasonable towing costs. " * 60
    clauses = f"## MTR-BEN-01 - Towing and storage after an accident\n\n{long_body}\n"
    path = write(tmp_path, wording(clauses=clauses))
    message = refused(tmp_path)
    assert f"{path}: MTR-BEN-01: [clause-too-long]" in message
    assert "the limit is 1,500" in message


@pytest.mark.parametrize("title", ["", "Towing"])
def test_empty_or_one_word_title_is_refused(tmp_path: Path, title: str) -> None:
    heading = f"MTR-BEN-01 - {title}" if title else "MTR-BEN-01"
    path = write(tmp_path, wording(clauses=clause_text(heading)))
    assert f"{path}: MTR-BEN-01: [title-too-short]" in refused(tmp_path)


@pytest.mark.parametrize("bad_id", ["MTR-BEN-3", "HOM-BEN-01", "MTR-XYZ-01", "mtr-ben-01"])
def test_malformed_id_is_refused(tmp_path: Path, bad_id: str) -> None:
    path = write(tmp_path, wording(clauses=clause_text(f"{bad_id} - Towing and storage after an accident")))
    assert f"{path}: {bad_id}: [malformed-id]" in refused(tmp_path)


@pytest.mark.parametrize("field", ["family", "code", "version", "document_id", "insurer"])
def test_missing_metadata_is_refused(tmp_path: Path, field: str) -> None:
    path = write(tmp_path, wording(**{field: None}))  # type: ignore[arg-type]
    message = refused(tmp_path)
    assert f"{path}: [missing-metadata] header field '{field}'" in message


def test_id_dropped_without_retirement_is_refused(tmp_path: Path) -> None:
    write(tmp_path, wording(version="2025.1"), version="2025.1")
    # 2026.2 renumbers MTR-BEN-02 as MTR-BEN-03: the old ID silently disappears.
    clauses = clause_text(TOWING, f"MTR-BEN-03 - {TRAVEL}")
    path = write(tmp_path, wording(clauses=clauses))
    assert f"{path}: MTR-BEN-02: [dropped-id]" in refused(tmp_path)


def test_dropped_id_is_allowed_when_retired(tmp_path: Path) -> None:
    write(tmp_path, wording(version="2025.1"), version="2025.1")
    write(tmp_path, wording(clauses=clause_text(TOWING), retired="MTR-BEN-02"))
    check_sources(load_sources(tmp_path))


def test_retired_id_reappearing_is_refused(tmp_path: Path) -> None:
    write(tmp_path, wording(version="2025.1"), version="2025.1")
    write(
        tmp_path,
        wording(
            version="2026.2",
            clauses=clause_text(TOWING),
            retired="MTR-BEN-02",
        ),
    )
    path = write(tmp_path, wording(version="2027.1"), version="2027.1")
    assert f"{path}: MTR-BEN-02: [reused-id]" in refused(tmp_path)


def test_file_without_header_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "motor" / "2026.2.md"
    path.parent.mkdir(parents=True)
    path.write_text("## MTR-BEN-01 - Towing and storage\n\ntext\n")
    with pytest.raises(ValidationFailed, match=r"2026.2.md: \[header\]"):
        parse_wording(path)


def release(version: str, start: date | None, end: date | None = None) -> ReleaseRecord:
    return ReleaseRecord("motor", version, start, end, "Policy Owner", date(2026, 6, 1))


def two_versions(tmp_path: Path) -> list:
    write(tmp_path, wording(version="2025.1"), version="2025.1")
    write(tmp_path, wording())
    return load_sources(tmp_path)


def test_approval_without_effective_start_is_refused(tmp_path: Path) -> None:
    found = check_releases("policies/releases.toml", [release("2026.2", None)], two_versions(tmp_path))
    assert [str(v) for v in found] == [
        "policies/releases.toml: motor 2026.2: [approval-without-start] "
        "an approved version needs an effective_from date"
    ]


def test_overlapping_approvals_are_refused(tmp_path: Path) -> None:
    records = [release("2025.1", date(2025, 7, 1), date(2026, 8, 1)), release("2026.2", date(2026, 7, 1))]
    found = check_releases("policies/releases.toml", records, two_versions(tmp_path))
    assert len(found) == 1
    assert str(found[0]).startswith("policies/releases.toml: motor 2026.2: [overlapping-approval]")
    assert "2025.1" in str(found[0])


def test_release_of_unknown_version_is_refused(tmp_path: Path) -> None:
    found = check_releases("r.toml", [release("2030.1", date(2030, 1, 1))], two_versions(tmp_path))
    assert "[unknown-version]" in str(found[0])


def test_the_shipped_corpus_and_releases_are_valid() -> None:
    from knowledge.releases import load_releases
    from tests.conftest import POLICIES

    sources = load_sources(POLICIES)
    check_sources(sources)
    assert check_releases("releases.toml", load_releases(POLICIES / "releases.toml"), sources) == []
