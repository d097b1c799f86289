"""Applicability and links are data in the wording, and the rules for real documents hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge.clauses import Directory
from knowledge.errors import ValidationFailed
from knowledge.rules import check_sources
from knowledge.source import applies_line, load_sources, parse_wording
from tests.knowledge.test_rules import BODY, refused, wording, write

TOWING = "## MTR-BEN-01 - Towing and storage after an accident\n"
TRAVEL = "## MTR-BEN-02 - Emergency travel and accommodation far from home\n"
DEF = "## MTR-DEF-01 - What we mean by your car, in this policy\n\nYour car is the vehicle named.\n"
END = "## MTR-END-05 - Endorsement that takes towing out of your cover\n\nTowing is not covered.\n"


def test_applies_line_becomes_clause_fields_and_leaves_the_text(tmp_path: Path) -> None:
    line = (
        "<!-- applies: plans=Comprehensive|Third Party Fire and Theft; added_by=roadside; "
        "removed_by=MTR-END-05; changed_by=MTR-END-05; links=MTR-DEF-01; citable=no -->"
    )
    clauses = f"{TOWING}{line}\n\n{BODY}\n{DEF}\n{END}"
    source = parse_wording(write(tmp_path, wording(clauses=clauses)))
    towing = source.clauses[0]
    assert towing.plans == ("Comprehensive", "Third Party Fire and Theft")
    assert (towing.added_by, towing.removed_by, towing.changed_by) == (
        ("roadside",),
        ("MTR-END-05",),
        ("MTR-END-05",),
    )
    assert (towing.links, towing.citable) == (("MTR-DEF-01",), False)
    assert "applies" not in towing.text
    assert (
        parse_wording(
            "x.md", wording(clauses=f"{TOWING}{applies_line(towing)}\n\n{BODY}\n{DEF}\n{END}")
        ).clauses[0]
        == towing
    )
    check_sources([source])


def test_applicability_is_part_of_the_content_hash(tmp_path: Path) -> None:
    plain = parse_wording("a.md", wording(clauses=f"{TOWING}\n{BODY}\n{DEF}"))
    linked = parse_wording(
        "a.md", wording(clauses=f"{TOWING}<!-- applies: links=MTR-DEF-01 -->\n\n{BODY}\n{DEF}")
    )
    assert plain.clauses[0].text == linked.clauses[0].text
    assert plain.content_hash != linked.content_hash


def test_unknown_applies_key_is_refused_with_the_keys_named(tmp_path: Path) -> None:
    path = write(tmp_path, wording(clauses=f"{TOWING}<!-- applies: section=roadside -->\n\n{BODY}"))
    message = refused(tmp_path)
    assert f"{path}: MTR-BEN-01: [applies-key]" in message and "added_by" in message


def test_old_schedule_section_line_is_refused_with_its_replacement(tmp_path: Path) -> None:
    write(tmp_path, wording(clauses=f"{TOWING}<!-- schedule_section: roadside -->\n\n{BODY}"))
    assert "added_by=X" in refused(tmp_path)


@pytest.mark.parametrize(
    "line, rule",
    [("links=MTR-DEF-09", "unknown-link"), ("removed_by=MTR-END-09", "unknown-endorsement")],
)
def test_link_or_endorsement_must_exist_in_the_wording(tmp_path: Path, line: str, rule: str) -> None:
    path = write(tmp_path, wording(clauses=f"{TOWING}<!-- applies: {line} -->\n\n{BODY}\n{DEF}"))
    assert f"{path}: MTR-BEN-01: [{rule}]" in refused(tmp_path)


def test_definitions_endorsements_and_three_digit_numbers_are_valid(tmp_path: Path) -> None:
    clauses = f"## MTR-COV-104 - Fire and theft cover for your car\n\n{BODY}\n{DEF}\n{END}"
    write(tmp_path, wording(clauses=clauses))
    check_sources(load_sources(tmp_path))


def test_header_kinds_narrow_the_kinds_of_a_family(tmp_path: Path) -> None:
    path = write(tmp_path, wording(kinds="BEN, EXC", clauses=f"{TOWING}\n{BODY}\n{DEF}"))
    assert f"{path}: MTR-DEF-01: [malformed-id]" in refused(tmp_path)


def test_new_document_id_needs_replaces(tmp_path: Path) -> None:
    write(tmp_path, wording("2025.1"), "2025.1")
    newer = write(tmp_path, wording("2026.2", document_id="KM-MOTOR-B"))
    message = refused(tmp_path)
    assert f"{newer}: [family-identity]" in message and "replaces: KM-MOTOR" in message
    write(tmp_path, wording("2026.2", document_id="KM-MOTOR-B", replaces="KM-MOTOR"))
    check_sources(load_sources(tmp_path))


def test_id_reused_for_a_new_subject_is_refused_naming_both_versions(tmp_path: Path) -> None:
    write(tmp_path, wording("2025.1"), "2025.1")
    other = "Windscreen chips are repaired at an approved glazier without any charge or excess.\n"
    clauses = f"{TOWING}\n{other}\n{TRAVEL}\n{BODY}"
    newer = write(tmp_path, wording("2026.2", clauses=clauses))
    message = refused(tmp_path)
    assert f"{newer}: MTR-BEN-01: [id-reused-for-new-subject]" in message
    assert "version 2026.2" in message and "version 2025.1" in message


def test_directory_written_before_applicability_was_data_still_reads() -> None:
    old = {
        "family": "motor",
        "version": "2026.2",
        "document_id": "KM-MOTOR",
        "content_hash": "x",
        "clauses": [
            {
                "clause_id": "MTR-BEN-03",
                "title": "Hire car",
                "sha256": "s",
                "object_version": None,
                "schedule_section": "alternative_transport",
            },
        ],
    }
    entry = Directory.from_json(json.dumps(old).encode()).entries[0]
    assert entry.added_by == ("alternative_transport",)
    assert (entry.plans, entry.links, entry.citable, entry.part) == ((), (), True, None)
    assert Directory.from_json(Directory.from_json(json.dumps(old).encode()).to_json()).entries[0] == entry


def test_parse_refuses_every_bad_applies_line_at_once(tmp_path: Path) -> None:
    clauses = f"{TOWING}<!-- applies: when=x -->\n\n{BODY}\n{TRAVEL}<!-- applies: citable=maybe -->\n\n{BODY}"
    with pytest.raises(ValidationFailed) as caught:
        parse_wording("m.md", wording(clauses=clauses))
    assert len(caught.value.violations) == 2


def test_an_endorsement_named_by_its_clause_id_is_stored_as_its_schedule_entry(tmp_path: Path, store) -> None:
    """A schedule lists "endorsement_5", never MTR-END-05: the directory holds what the runtime
    reads against the claimant's schedule."""
    from knowledge.clauses import ClauseLibrary
    from knowledge.ingest import ingest
    from knowledge.manifest import Registry

    end = END.replace("\n\n", "\n<!-- applies: added_by=endorsement_5 -->\n\n", 1)
    line = "<!-- applies: removed_by=MTR-END-05; changed_by=MTR-END-05 -->"
    ingest(store, parse_wording(write(tmp_path, wording(clauses=f"{TOWING}{line}\n\n{BODY}\n{end}"))))
    manifest, _ = Registry(store).read()
    towing = ClauseLibrary(store).directory(manifest.entry("motor", "2026.2")).get("MTR-BEN-01")
    assert towing is not None
    assert (towing.removed_by, towing.changed_by) == (("endorsement_5",), ("endorsement_5",))
