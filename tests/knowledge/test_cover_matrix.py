"""Cover levels, options and endorsements found where each wording states them, each matrix
cell checked afresh against the page or line it was read from, and drafted as applies lines.
Counts, names of cover levels and cell values only: no wording text."""

from __future__ import annotations

import dataclasses
import re

import pytest

from knowledge.cover_matrix import INCLUDED, NOT_INCLUDED, OPTIONAL, Cell, cells_not_at_source
from tests.knowledge import imports
from tests.knowledge.imports import CAR_2021, CAR_OLDER, HOME, NRMA, REAL

# (cells, how the wording states them) per wording.
MATRIX = {
    NRMA: (99, ["table on page 10", "table on page 11"]),
    HOME: (6, ["section headings"]),
    CAR_OLDER: (3, ["section headings"]),
    CAR_2021: (11, ["statements under the cover levels"]),
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
