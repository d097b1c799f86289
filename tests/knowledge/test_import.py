"""`knowledge import` takes real wordings (read from ../shared/wordings, never copied here)
and documents made in the test, and gives drafts that validate once reviewed.

The expectations are counts and rule names only: no wording text is in this file.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from agent.cli import wording as cli
from knowledge.errors import ValidationFailed
from knowledge.importing.pipeline import accept_review, build, import_reviewed
from knowledge.importing.segment import GENERIC
from knowledge.rules import MAX_CLAUSE_CHARS, SAME_SUBJECT, check_lineage, check_sources, subject_similarity
from knowledge.source import parse_wording
from tests.knowledge import imports
from tests.knowledge.imports import AS, CAR_2021, CAR_OLDER, HOME, NRMA
from tests.support import wording

pytestmark = pytest.mark.slow  # real wordings imported

# What the reports say, exactly: units, titles to review, links, amendments, failures. Issue 39
# (reading order): NRMA's section tabs no longer make note units, and its definitions' terms
# set on two lines ("Accidental damage") are whole terms, no longer one-word terms ("damage")
# linked from every unit; AXA home's boxed columns read column by column. A page number read
# apart from the footer code beside it: the code is a running footer on every page, no longer
# text under an empty label in two AXA home units (their link to "policy" went with it). AXA
# home's legal-protection terms set in a column beside their meanings, the meaning starting in
# bold, are terms ("Adviser", "Costs": two units more). A section's own list of definitions
# (AXA home's family legal protection) applies inside that section only: 662 links → 554, none
# to "Costs" from a buildings or contents clause. AXA home's contents page (no "Contents"
# heading; each entry a heading over a line of its parts) is left out: three units fewer.
EXPECTED = {
    NRMA: {"units": 292, "titles_to_review": 292, "links": 403, "amendments": 4, "failures": 0},
    HOME: {"units": 228, "titles_to_review": 228, "links": 552, "amendments": 0, "failures": 0},
    CAR_OLDER: {"units": 188, "titles_to_review": 188, "links": 228, "amendments": 0, "failures": 0},
    CAR_2021: {"units": 109, "titles_to_review": 109, "links": 170, "amendments": 0, "failures": 0},
}
CARRIED_OVER = 12  # IDs of the older car edition that the 2021 booklet keeps, by text


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Each wording imported once for the run (tests.knowledge.imports), with its review steps
    done (the drafted titles accepted): (the import, the reviewed source). The 2021 car booklet
    has the older edition's reviewed draft as its previous version."""
    out = tmp_path_factory.mktemp("drafts")
    done = {}
    for name in (NRMA, HOME, CAR_OLDER):
        result = imports.imported(name)
        draft = out / ("car-older.md" if name == CAR_OLDER else f"{Path(name).stem}.md")
        text = accept_review(result.draft)
        draft.write_text(text)
        source = parse_wording(draft, text)
        check_sources([source])
        done[name] = (result, source)
    family, version, code = AS[CAR_2021]
    done[CAR_2021] = import_reviewed(
        wording(CAR_2021), family, version, code, previous=out / "car-older.md", draft=out / "car-2021.md"
    )
    return done


@pytest.mark.parametrize("name", [NRMA, HOME, CAR_OLDER, CAR_2021])
def test_wording_imports_to_a_draft_that_validates_after_review(imported: dict, name: str) -> None:
    result, source = imported[name]
    counts = {k: result.report.counts[k] for k in EXPECTED[name]}
    assert counts == EXPECTED[name]
    with pytest.raises(ValidationFailed) as caught:
        check_sources([parse_wording(source.path, result.draft)])
    assert {v.rule for v in caught.value.violations} == {"import-review-pending"}
    assert result.report.review_steps[0].startswith("Review in the page:")
    assert result.report.review_steps[1].startswith("Titles:")
    check_sources([source])


@pytest.mark.parametrize("name", [NRMA, HOME, CAR_OLDER, CAR_2021])
def test_drafted_titles_are_unique_specific_and_clauses_fit(imported: dict, name: str) -> None:
    result, source = imported[name]
    titles = [c.title for c in source.clauses]
    assert len({t.lower() for t in titles}) == len(titles)
    assert not [t for t in titles if GENERIC.match(t.strip())]
    paths = {" ".join(u["heading_path"]).lower() for u in result.report.units}
    assert not [t for t in titles if t.lower() in paths]
    assert max(len(c.text) for c in source.clauses) <= MAX_CLAUSE_CHARS
    assert all(u["title_review"] for u in result.report.units)


def test_locale_and_insurer_come_from_the_wording(imported: dict) -> None:
    found = {name: (imported[name][0].report.currency, imported[name][0].report.insurer) for name in AS}
    axa = ("GBP", "AXA Insurance UK plc")  # not the assistance company that underwrites one section
    assert found == {NRMA: ("AUD", "Insurance Australia Limited"), HOME: axa, CAR_OLDER: axa, CAR_2021: axa}
    header = imported[NRMA][1].header
    assert header["currency"] == "AUD" and header["insurer"]


def test_amendments_are_consolidated_with_provenance(imported: dict) -> None:
    result, source = imported[NRMA]
    clauses = {c.clause_id: c.text for c in source.clauses}

    def words(text: str) -> str:
        return " ".join(re.sub(r"[^\w$]+", " ", re.sub(r"^[•\-–]\s*", "", text)).split())

    assert len(result.report.amendments) == 4
    for amendment in result.report.amendments:
        assert amendment["target_page"] and amendment["replaced_text"] and amendment["replacement_text"]
        patched = words(clauses[amendment["applied_to"]])
        assert words(amendment["replacement_text"]) in patched
        # the superseded text is not served beside its replacement
        assert words(amendment["replaced_text"]) not in patched
    # the supplementary document's change notes themselves are not units of the draft
    assert not [u for u in result.report.units if re.match(r"change \d", u["heading_path"][-1], re.I)]


def test_plans_and_optional_sections_are_data(imported: dict) -> None:
    nrma = imported[NRMA][1]
    plans = {p for c in nrma.clauses for p in c.plans}
    assert len(plans) == 4
    home = imported[HOME][1]
    assert len({s for c in home.clauses for s in c.added_by}) == 6  # the optional extras
    older = imported[CAR_OLDER][1]
    # Its optional sections I to L are options; D to F ("only included if you have
    # comprehensive cover") and A are the comprehensive level's, as its type-of-cover table says.
    assert len({s for c in older.clauses for s in c.added_by}) == 4
    assert older.header["plans"] == "Comprehensive | Third party fire and theft"
    only_top = [c for c in older.clauses if c.plans]
    assert len(only_top) >= 15 and all(c.plans == ("Comprehensive",) for c in only_top)
    # The booklet's cover levels say which parts they leave out; its endorsements exclude parts.
    car = imported[CAR_2021][1]
    levels = {c.part[:6]: c.plans for c in car.clauses if c.part and c.part.startswith("Part ")}
    assert len(set(levels["Part A"])) == 2 and len(set(levels["Part E"])) == 1
    assert levels["Part B"] == ()  # every cover level
    # An endorsement is named by the schedule entry that lists it (its own added_by), which
    # is what the runtime reads against a claimant's schedule.
    ends = {c.added_by[0] for c in car.clauses if "-END-" in c.clause_id and c.added_by}
    assert {"endorsement_9", "endorsement_11"} <= ends
    removed = [c for c in car.clauses if c.removed_by]
    assert removed and all(set(c.removed_by) <= ends for c in removed)


def test_car_editions_carry_ids_over_by_subject(imported: dict) -> None:
    older, newer = imported[CAR_OLDER][1], imported[CAR_2021][1]
    assert imported[CAR_2021][0].report.counts["carried_over"] == CARRIED_OVER
    before = {c.clause_id: c for c in older.clauses}
    kept = [c for c in newer.clauses if c.clause_id in before]
    assert len(kept) == CARRIED_OVER
    assert all(subject_similarity(before[c.clause_id].text, c.text) >= SAME_SUBJECT for c in kept)
    assert newer.header["replaces"] == older.header["document_id"]
    assert check_lineage([older, newer]) == []


def test_an_id_reused_for_another_subject_is_refused(imported: dict) -> None:
    older, newer = imported[CAR_OLDER][1], imported[CAR_2021][1]
    before = {c.clause_id: c for c in older.clauses}
    kept = next(c for c in newer.clauses if c.clause_id in before)
    other = min(
        (c for c in newer.clauses if c.clause_id not in before),
        key=lambda c: subject_similarity(before[kept.clause_id].text, c.text),
    )
    heading = kept.text.split("\n", 1)[0]
    swapped = dataclasses.replace(kept, text=heading + "\n" + other.text.split("\n", 1)[1])
    clauses = [swapped if c is kept else c for c in newer.clauses]
    found = check_lineage([older, dataclasses.replace(newer, clauses=clauses)])
    assert [(v.clause, v.rule) for v in found] == [(kept.clause_id, "id-reused-for-new-subject")]
    assert "version 2021.1" in found[0].detail and "version 2020.1" in found[0].detail


SYNTHETIC = [
    ("h1", "Harbour Mutual Boat Insurance"),
    ("p", "This boat policy is underwritten by Harbour Mutual Insurance Limited. Amounts are in euro."),
    ("h2", "Definitions"),
    ("h3", "Mooring"),
    ("p", "A mooring is the fixed buoy or berth named on your schedule where the vessel is kept."),
    ("h2", "Section 1 - Damage to your boat"),
    ("h3", "What is covered"),
    ("p", "We pay for sudden damage to the hull and engine, up to €40,000, while at the mooring:"),
    ("li", "storm and lightning"),
    ("li", "fire and explosion"),
    ("li", "theft of the whole boat"),
    ("h3", "What is not covered"),
    ("p", "We do not pay for rot, osmosis or worn sails, or for racing; see Section 2 for towing."),
    ("h2", "Section 2 - Towing and salvage"),
    ("p", "We pay salvage and towing charges after an insured event, up to €5,000, without any excess."),
    ("h2", "Making a complaint"),
    ("p", "Write to the complaints desk at the address on your schedule; we reply within ten days."),
]


def _html() -> str:
    return "<html><body>" + "".join(f"<{t}>{x}</{t}>" for t, x in SYNTHETIC) + "</body></html>"


def _docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    for tag, text in SYNTHETIC:
        if tag.startswith("h"):
            document.add_heading(text, level=int(tag[1]))
        elif tag == "li":
            document.add_paragraph(text, style="List Bullet")
        else:
            document.add_paragraph(text)
    table = document.add_table(rows=2, cols=2)
    for row, cells in zip(table.rows, [("Cover", "Limit"), ("Hull and engine", "€40,000")], strict=True):
        for cell, value in zip(row.cells, cells, strict=True):
            cell.text = value
    document.save(str(path))
    return path


@pytest.mark.parametrize("kind", ["html", "docx"])
def test_a_docx_or_html_wording_imports(tmp_path: Path, kind: str) -> None:
    if kind == "html":
        source = tmp_path / "boat.html"
        source.write_text(_html())
    else:
        source = _docx(tmp_path / "boat.docx")
    result, draft = import_reviewed(source, "boat", "2026.1", "BOT")  # raises unless it validates
    report = result.report
    assert (report.currency, report.insurer) == ("EUR", "Harbour Mutual Insurance Limited")
    kinds = [c.clause_id.split("-")[1] for c in draft.clauses]
    assert {"DEF", "COV", "EXC"} <= set(kinds)
    cover = next(c for c in draft.clauses if c.clause_id.split("-")[1] == "COV" and "storm" in c.text)
    mooring = next(c for c in draft.clauses if c.clause_id.split("-")[1] == "DEF")
    assert mooring.clause_id in cover.links  # uses a defined term
    exclusion = next(c for c in draft.clauses if "osmosis" in c.text)
    towing = next(c for c in draft.clauses if "salvage" in c.text)
    assert towing.clause_id in exclusion.links  # "see Section 2"
    assert next(c for c in draft.clauses if "complaints desk" in c.text).citable  # quotable (issue 39.7)
    assert report.counts["units"] == len(draft.clauses) and report.counts["failures"] == 0


def test_import_command_writes_the_draft_and_both_reports(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "boat.html"
    source.write_text(_html())
    out = tmp_path / "drafts" / "boat" / "2026.1.md"
    args = [
        "import",
        str(source),
        "--family",
        "boat",
        "--version",
        "2026.1",
        "--code",
        "BOT",
        "--out",
        str(out),
    ]
    assert cli.main(args) == 0
    report = json.loads(out.with_suffix(".import.json").read_text())
    assert report["counts"]["units"] == len(parse_wording(out).clauses)
    assert "Review steps" in out.with_suffix(".import.md").read_text()
    assert "validates once the review steps" in capsys.readouterr().out


def test_an_unreadable_file_names_what_to_do(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "scan.pdf"
    source.write_bytes(b"not a pdf")
    assert cli.main(["import", str(source), "--family", "boat", "--version", "2026.1"]) == 1
    assert "export it again" in capsys.readouterr().err


def test_amendments_that_cannot_be_applied_are_failures_that_say_what_to_do(tmp_path: Path) -> None:
    # The other tool's extraction of the NRMA PDS has no printed page numbers and flattens the
    # dot-point table, so its changes cannot be placed: each is a failure, none is guessed.
    result = build(
        wording("AU_NRMA_motor_PDS_2022.llamaparse.md"),
        "motor",
        "2022.1",
        "MTR",
        None,
        None,
        supplement_pages="3-6",
    )
    failures = result.report.failures
    assert result.report.counts["failures"] == len(failures) == 4
    assert all(f["file"].endswith(".md") and f["page"] and f["unit"] and f["action"] for f in failures)
    assert parse_wording(tmp_path / "d.md", result.draft).header["review"] == "titles, failures"
    assert any(step.startswith("Failure (") for step in result.report.review_steps)
