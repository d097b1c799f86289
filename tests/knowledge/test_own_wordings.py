"""The team's own test wordings (tests/knowledge/own_wordings.py), rendered at test time, read
as printed: every character booked exactly once, the summary table's rows against the list
written by hand, sub-headings, footnotes and captions in their place, the matrix reaching the
sections the rows name, side-by-side columns kept apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.importing.accounting import Ledger, Unaccounted, balance, nonspace
from knowledge.importing.applicability import slug
from knowledge.importing.cover_matrix import (
    INCLUDED,
    NOT_INCLUDED,
    OPTIONAL,
    Cell,
    cells_not_at_source,
    row_label,
)
from knowledge.importing.pipeline import Imported, build
from tests.knowledge import imports
from tests.knowledge import own_wordings as own
from tests.knowledge.reading import misread, pieces, words


@pytest.fixture(scope="module")
def motor_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return own.render_motor_pdf(tmp_path_factory.mktemp("own") / "harbour-motor.pdf")


@pytest.fixture(scope="module")
def motor(motor_pdf: Path) -> Imported:
    return build(motor_pdf, "motor", "2026.1", "MTR", None, None)


@pytest.fixture(scope="module")
def motor_docx(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return own.render_motor_docx(tmp_path_factory.mktemp("own-docx") / "harbour-motor.docx")


@pytest.fixture(scope="module")
def rendered(motor_pdf: Path, motor_docx: Path, motor: Imported) -> dict[str, tuple[Path, Imported]]:
    """The wording as PDF and as DOCX, each imported."""
    return {
        "pdf": (motor_pdf, motor),
        "docx": (motor_docx, build(motor_docx, "motor", "2026.1", "MTR", None, None)),
    }


# ---------------------------------------------------------------- 1. a ledger exact both ways


def test_a_contents_page_with_ligatures_is_booked_exactly_once(motor: Imported) -> None:
    # Its titles print "ﬁ" and "ﬂ" as one glyph each: read as one character and placed as two,
    # they were booked twice and stopped the import as "unaccounted" (a false alarm).
    acc = motor.report.accounting
    assert acc["unaccounted"] == 0 and acc["overbooked"] == {}
    assert acc["removed_by_rule"]["table-of-contents"] > 0
    assert (
        acc["placed_in_units"]
        + acc["headings_kept_in_units"]
        + acc["notes_not_contract_text"]
        + sum(acc["removed_by_rule"].values())
        == acc["source_characters"]
    )


def test_an_over_booking_is_reported_and_a_loss_still_stops_the_import() -> None:
    ledger = Ledger()
    ledger.read(1, "abcdef")
    ledger.read(2, "ghij")
    ledger.remove("table-of-contents", 1, "abcdef")
    ledger.remove("page-number", 1, "ab")  # the same two characters under a second rule
    result = balance("w.pdf", ledger, placed=[(2, 4)], headings=[], notes=[])
    assert result.overbooked == {1: 2} and result.as_dict()["overbooked"] == {"1": 2}
    with pytest.raises(Unaccounted) as caught:
        balance("w.pdf", ledger, placed=[(2, 3)], headings=[], notes=[])
    assert caught.value.pages == {2: 1} and "page 2: +1" in str(caught.value)


def test_a_real_loss_stops_the_import_naming_the_page_and_the_text(motor_pdf: Path) -> None:
    # The import's own steps, with one paragraph dropped between segmenting and accounting
    # as a faulty rule would: the balance names page 4, and the message quotes what is missing.
    from knowledge.importing.extract.read import extract
    from knowledge.importing.pipeline import BODY_BUDGET, _account, unplaced_lines
    from knowledge.importing.segment import segment

    ledger = Ledger()
    units, _ = segment(extract(motor_pdf, ledger), BODY_BUDGET, ledger)
    fire = next(u for u in units if u.path[-1] == "Fire and theft")
    lost = fire.blocks.pop()
    with pytest.raises(Unaccounted) as caught:
        _account(str(motor_pdf), ledger, units)
    assert caught.value.pages == {4: nonspace(lost.text)}
    texts = unplaced_lines(motor_pdf, caught.value.pages, units)
    assert texts == {4: [lost.text]}
    message = str(Unaccounted(str(motor_pdf), caught.value.pages, texts))
    assert f"page 4: +{nonspace(lost.text)} characters); not in the draft on page 4: '{lost.text}'" in message


# ---------------------------------------- 3, 4. the table as printed, reaching the clauses

VALUE = {own.Y: INCLUDED, own.N: NOT_INCLUDED, own.OPT: OPTIONAL}


@pytest.mark.parametrize("kind", ["pdf", "docx"])
def test_the_summary_table_is_read_against_the_hand_written_list(rendered: dict, kind: str) -> None:
    source, motor = rendered[kind]
    assert motor.report.accounting["unaccounted"] == 0 and motor.report.accounting["overbooked"] == {}
    matrix = motor.report.matrix
    # level names as printed, the footnote's mark left out; the caption is no row
    assert matrix["levels"] == list(own.LEVELS)
    assert own.CAPTION not in matrix["rows"] and not any(r.startswith("Benefit") for r in matrix["rows"])
    values = {(c["row"], c["column"]): c["value"] for c in matrix["cells"]}
    read = [row for row in own.TABLE if row.label in matrix["rows"]]
    assert len(read) == len(own.TABLE)  # every row, those after each sub-heading included
    wrong = [
        (row.label, level)
        for row in own.TABLE
        for level, printed in zip(own.LEVELS, row.cells, strict=True)
        if values.get((row.label, level)) != VALUE[printed]
    ]
    assert wrong == []
    # the sub-heading a row sits under says what it is
    assert {row.label: matrix["kinds"][row.label] for row in own.TABLE} == {
        r.label: r.kind for r in own.TABLE
    }
    cells = [Cell(**{**c, "box": tuple(c["box"]) if c["box"] else None}) for c in matrix["cells"]]
    assert cells_not_at_source(source, cells) == []


@pytest.mark.parametrize("kind", ["pdf", "docx"])
def test_exclusions_are_never_options_nor_one_levels(rendered: dict, kind: str) -> None:
    motor = rendered[kind][1]
    exclusions = {r.label for r in own.TABLE if r.kind == "exclusion"}
    options = {slug(r.label) for r in own.TABLE if r.kind == "option"}
    assert set(motor.report.options) == options
    assert not exclusions & {u["title"].split(":")[0] for u in motor.report.units if u.get("added_by")}
    for title, _ in own.EXCLUSIONS:
        unit = next(u for u in motor.report.units if u["title"].startswith(title))
        assert not unit.get("added_by") and not unit.get("plans")


@pytest.mark.parametrize("kind", ["pdf", "docx"])
def test_each_row_reaches_the_section_its_label_names(rendered: dict, kind: str) -> None:
    motor = rendered[kind][1]
    # "Child seats – $650 per seat" names the section "Child seats": its limit does not stop the match.
    for row in own.TABLE:
        if row.kind == "exclusion":
            continue
        name = row_label(row.label)
        unit = next(u for u in motor.report.units if u["text"].startswith(f"Benefits in detail › {name}\n"))
        holds = [lv for lv, printed in zip(own.LEVELS, row.cells, strict=True) if printed != own.N]
        assert list(unit.get("plans") or own.LEVELS) == holds, name
        if row.kind == "option":
            assert unit["added_by"] == [slug(name)], name
        else:
            assert not unit.get("added_by"), name


# ---------------------------------------------------------------- 2. side-by-side columns stay apart


def test_what_is_not_covered_is_never_read_as_cover(motor: Imported, motor_pdf: Path) -> None:
    units = [u for u in motor.report.units if 3 in (u.get("pages") or [])]
    for cause, covered, excluded in own.CAUSES:
        unit = next(u for u in units if cause in u["text"].split("\n\n", 1)[0] or cause[3:] in u["title"])
        text = unit["text"]
        head = text.index(own.COLUMN_HEADS[1])  # the second column's own head, kept as printed
        for line in covered:
            assert 0 <= text.find(line) < head, (cause, line)  # the cover, before the head
        for line in excluded:
            assert text.find(line.removeprefix("• ")) > head, (cause, line)  # only after it
    # each unit's text is found, in order, on its page as a second extractor reads it
    assert misread(motor_pdf, motor.report.units) == []


@pytest.mark.slow
def test_the_home_wordings_storm_cover_holds_no_exclusion_of_it() -> None:
    # AXA's home PDF, page 6: "1. Storm or flood" in the first column, what is not covered by it
    # in the second. The cover's units hold only first-column words; the second column's are a
    # unit under the page's own "does not cover" head.
    import pdfplumber

    source = imports.source_of(imports.HOME)
    home = imports.imported(imports.HOME).report.units
    first_line = {u["id"]: u["text"].split("\n")[0] for u in home}
    storm = [u for u in home if 6 in (u.get("pages") or []) and "1. Storm or flood" in first_line[u["id"]]]
    cover = [u for u in storm if "not cover" not in first_line[u["id"]]]
    beside = [u for u in storm if first_line[u["id"]].endswith("› What your policy does not cover")]
    assert beside
    with pdfplumber.open(str(source)) as pdf:
        page = pdf.pages[5]
        left = words(page.crop((0, 0, 302, page.height)).extract_text() or "")
        right = words(page.crop((302, 0, page.width, page.height)).extract_text() or "")
    for u in beside:
        assert all(words(p) in right for p in pieces(u)), u["id"]
    for u in cover:
        assert not any(words(p) in right and words(p) not in left for p in pieces(u)), u["id"]


# ------------------------------------------ 7, 8. units to answer from, the wording's currency


def test_the_currency_is_the_one_the_wording_names(motor: Imported) -> None:
    # "$" amounts in a wording that says "Amounts are in NZD": New Zealand dollars, not US.
    assert motor.report.currency == "NZD"
    assert "currency: NZD" in motor.draft


def test_one_definition_per_term(motor: Imported) -> None:
    definitions = [u for u in motor.report.units if u["kind"] == "DEF"]
    assert [u["title"].split("'")[1] for u in definitions] == [term for term, _ in own.DEFINITIONS]
    for unit, (_, meaning) in zip(definitions, own.DEFINITIONS, strict=True):
        assert unit["text"].endswith(meaning)
