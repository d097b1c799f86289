"""Cover levels, options and endorsements found where each wording states them, each matrix
cell checked afresh against the page or line it was read from, and drafted as applies lines.
Counts, names of cover levels and cell values only: no wording text."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from knowledge.importing.cover_matrix import (
    INCLUDED,
    LIMITED,
    NOT_INCLUDED,
    OPTIONAL,
    Cell,
    cells_not_at_source,
)
from knowledge.importing.pipeline import build
from tests.knowledge import imports
from tests.knowledge.imports import CAR_2021, CAR_OLDER, HOME, NRMA, REAL

# (cells, how the wording states them) per wording.
MATRIX = {
    NRMA: (99, ["table on page 10", "table on page 11"]),
    HOME: (6, ["section headings"]),
    CAR_OLDER: (24, ["sections that apply to each type of cover"]),
    CAR_2021: (18, ["statements under the cover levels"]),
}


def cells(name: str) -> list[Cell]:
    found = imports.imported(name).report.matrix["cells"]
    return [Cell(**{**c, "box": tuple(c["box"]) if c["box"] else None}) for c in found]


@pytest.mark.parametrize("name", REAL)
def test_each_matrix_cell_is_what_its_source_says(name: str) -> None:
    matrix = imports.imported(name).report.matrix
    assert (len(matrix["cells"]), matrix["stated_by"]) == MATRIX[name]
    assert cells_not_at_source(imports.source_of(name), cells(name)) == []


def test_a_transcription_error_in_a_cell_is_caught() -> None:
    found = cells(NRMA)
    tick = next(c for c in found if c.value == INCLUDED and c.text == "✓")
    cross = next(c for c in found if c.value == NOT_INCLUDED)
    wrong = [dataclasses.replace(tick, text="✗"), dataclasses.replace(cross, box=tick.box)]
    assert cells_not_at_source(imports.source_of(NRMA), wrong) == wrong
    statement = cells(CAR_2021)[0]
    moved = dataclasses.replace(statement, line=(statement.line or 0) + 1)
    assert cells_not_at_source(imports.source_of(CAR_2021), [moved]) == [moved]


def test_cover_levels_options_and_endorsements_are_listed_in_the_report() -> None:
    nrma = imports.imported(NRMA).report
    assert len(nrma.cover_levels) == 4 and set(nrma.matrix["levels"]) == set(nrma.cover_levels)
    assert {"hire_car", "windscreen", "any_repairer"} <= set(nrma.matrix["options"])
    car = imports.imported(CAR_2021).report
    assert len(car.cover_levels) == 3 and len(car.endorsements) >= 10
    numbered = [e for e in car.endorsements if re.match(r"Endorsement \d+", e["heading"])]
    assert numbered and all(e["entry"].startswith("endorsement_") for e in numbered)
    home = imports.imported(HOME).report
    assert len(home.matrix["options"]) == 6 and home.cover_levels == []


def test_the_matrix_is_drafted_as_applies_lines() -> None:
    report = imports.imported(NRMA).report
    by_row: dict[str, dict[str, str]] = {}
    for c in report.matrix["cells"]:
        by_row.setdefault(c["row"], {})[c["column"]] = c["value"]
    # A benefit only the top level includes: its units outside that level's own part say so.
    only_top = [
        r for r, v in by_row.items() if list(v.values()).count(INCLUDED) == 1 and OPTIONAL not in v.values()
    ]
    assert only_top
    optional = [r for r, v in by_row.items() if OPTIONAL in v.values()]
    assert optional
    drafted = [u for u in report.units if u["plans"] or u["added_by"]]
    assert len(drafted) > 100
    # every unit of one cover level's own part is titled by that level
    one_level = [u for u in report.units if len(u["plans"]) == 1 and u["citable"]]
    assert one_level and all(words(u["plans"][0]) - {"insurance"} <= words(u["title"]) for u in one_level)


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


# A made-up New Zealand car wording whose cover table the extraction left as running text:
# one line per row, a type of cover wrapped onto a second line, the options' statement too.
TYPES_OF_COVER = """# Harakeke Mutual Car Policy

Harakeke Mutual Insurance Limited insures your car on the terms in this policy.

## Types of cover

Cover type Sections that apply Comprehensive Sections 1 to 4 apply.
Third party, fire Sections 2 & 4 apply.
and theft Section 1 applies to loss caused by fire or theft only.
Third party only Section 2 applies.
Extras Sections 5 and 6 only
apply if shown on your schedule.

## Section 1 - Your car

We pay for sudden accidental loss of or damage to your car anywhere in New Zealand.

## Section 2 - Liability to other people

We pay what you are legally liable for when your car damages someone else's property.

## Section 3 - Windscreen and glass

We repair or replace broken glass in your car without an excess applying.

## Section 4 - Getting you home

We pay reasonable travel costs home when your car cannot be driven after an accident.

## Section 5 - Rental vehicle

We pay for a rental car for up to fourteen days while your car is repaired.

## Section 6 - Roadside rescue

We arrange help when your car breaks down on the road.

## Section 6.1 - Towing

We tow your car to the nearest repairer when it cannot be fixed at the roadside.
"""


def test_the_sections_that_apply_to_each_type_of_cover_become_cells(tmp_path: Path) -> None:
    source = tmp_path / "harakeke.md"
    source.write_text(TYPES_OF_COVER)
    report = build(source, "motor", "2026.1", "HMC", "Harakeke Mutual Insurance Limited", None).report
    matrix = report.matrix
    assert matrix["stated_by"] == ["sections that apply to each type of cover"]
    comprehensive, fire_theft, third_party = (
        "Comprehensive",
        "Third party, fire and theft",
        "Third party only",
    )
    assert matrix["levels"] == [comprehensive, fire_theft, third_party]
    grid = {(c["row"].split(" - ")[0], c["column"]): c for c in matrix["cells"]}
    assert len(matrix["cells"]) == len(grid) == 18  # 3 types of cover x 6 sections, each once
    value = {k: c["value"] for k, c in grid.items()}
    assert [value[f"Section {n}", comprehensive] for n in range(1, 7)] == [INCLUDED] * 4 + [OPTIONAL] * 2
    assert [value[f"Section {n}", fire_theft] for n in range(1, 7)] == [
        *(LIMITED, INCLUDED, NOT_INCLUDED, INCLUDED),
        *(OPTIONAL, OPTIONAL),
    ]
    assert [value[f"Section {n}", third_party] for n in range(1, 7)] == [
        *(NOT_INCLUDED, INCLUDED, NOT_INCLUDED, NOT_INCLUDED),
        *(OPTIONAL, OPTIONAL),
    ]
    # a qualified inclusion is the section in part, its qualifier the cell's text
    assert "fire or theft only" in grid["Section 1", fire_theft]["text"]
    assert {"rental_vehicle", "roadside_rescue"} <= set(matrix["options"])
    # every cell is at its source line; one read wrong is caught
    found = [Cell(**{**c, "box": None}) for c in matrix["cells"]]
    assert cells_not_at_source(source, found) == []
    wrong = [dataclasses.replace(found[0], text="Sections 1 to 3 apply.")]
    assert cells_not_at_source(source, wrong) == wrong
    # drafted as applies lines: the levels that have a section, the option that adds one
    applies = {u["heading_path"][-1].split(" - ")[0]: (u["plans"], u["added_by"]) for u in report.units}
    assert applies["Section 1"] == ([comprehensive, fire_theft], [])
    assert applies["Section 2"] == ([], [])
    assert applies["Section 3"] == ([comprehensive], [])
    assert applies["Section 5"] == ([], ["rental_vehicle"])
    assert applies["Section 6.1"] == ([], ["roadside_rescue"])  # a subsection of an option


def test_a_row_that_cannot_be_read_is_listed_for_the_owner_not_dropped() -> None:
    from knowledge.importing.cover_matrix import Matrix, _from_tables
    from knowledge.importing.extract.blocks import Block

    def row(*cells: str) -> Block:
        return Block("row", " | ".join(c for c in cells if c), page=4, cells=cells)

    blocks = [
        row("Benefit", "Gold", "Silver", "Bronze"),
        row("Towing", "✓", "✓", "✗"),
        row("Legal liability"),  # a sub-heading in one merged cell
        row("Liability to others", "✓", "✓", "✓"),
        row("Hire car", "Covered under Towing", "✗"),  # two levels' cells merged
        row("Keys and locks", "✓", "✗", "✗"),
    ]
    m = Matrix()
    _from_tables(blocks, ["Gold", "Silver", "Bronze"], m)
    assert m.rows == ["Towing", "Liability to others", "Keys and locks"]
    assert m.kinds["Liability to others"] == "liability" and m.kinds["Keys and locks"] == "liability"
    assert [(u["text"], u["page"]) for u in m.unread] == [("Hire car | Covered under Towing | ✗", 4)]


# NRMA's summary table (pages 10 and 11) as printed, written by hand from the page images: each
# row's cells left to right, a cell spanning levels once. I included, N not included, O optional,
# L limited or covered elsewhere ("Covered under …", "✓ (up to …)"). Values only, no wording text.
NRMA_ROWS_BY_HAND = (
    # page 10: cover, then "Other benefits"
    "LLN", "IIII", "IINN", "LLL", "IIIN", "IIIN", "LLNN", "IONN", "LIIN",
    "IINN", "IINN", "IINN", "IIIN", "INNN", "IIII",
    # page 11: other benefits, "Options you can add", liability, "Additional features"
    "IINN", "IIII", "IINN", "INNN", "IINN", "IONN", "IONN", "OONN", "IIII", "IIII", "IIII",
)  # fmt: skip
CODE = {INCLUDED: "I", NOT_INCLUDED: "N", OPTIONAL: "O", LIMITED: "L"}


# The older AXA car wording's "Your cover" statement, by hand: sections A to L, Comprehensive then
# the fire-and-theft level (which has section G for those two causes alone: in part).
CAR_OLDER_ROWS_BY_HAND = ("IN", "II", "II", "IN", "IN", "IN", "IL", "II", "OO", "OO", "OO", "OO")
# The 2021 AXA car booklet's "Choice of cover", by hand: parts A to F, Comprehensive, third party
# fire and theft (part A for fire and theft only; not D or E), third party only (not A, D or E).
CAR_2021_ROWS_BY_HAND = ("ILN", "III", "III", "INN", "INN", "III")


@pytest.mark.parametrize(
    ("name", "by_hand"),
    [(NRMA, NRMA_ROWS_BY_HAND), (CAR_OLDER, CAR_OLDER_ROWS_BY_HAND), (CAR_2021, CAR_2021_ROWS_BY_HAND)],
)
def test_table_rows_read_against_the_hand_list(name: str, by_hand: tuple[str, ...]) -> None:
    """At least 95 % of the printed rows read, in order, every cell of each read row right; a
    row the import could not read is listed for the owner, not dropped."""
    matrix = imports.imported(name).report.matrix
    # Each row's cells left to right: in the order of the levels, whatever order they were found in.
    read: dict[tuple[int, str], list[dict]] = {}
    for c in matrix["cells"]:
        read.setdefault((c["page"], c["row"]), []).append(c)
    place = {level: n for n, level in enumerate(matrix["levels"])}
    rows = [
        "".join(CODE[c["value"]] for c in sorted(row, key=lambda c: place.get(c["column"], 0)))
        for row in read.values()
    ]
    matched, at = 0, 0
    for pattern in rows:  # each read row is the next hand row with its cells, in order
        assert pattern in by_hand[at:], f"a row read as {pattern} after hand row {at}"
        found = by_hand.index(pattern, at)
        matched, at = matched + 1, found + 1
    assert matched == len(rows) >= 0.95 * len(by_hand)
    assert len(rows) + len(matrix["unread"]) == len(by_hand)
