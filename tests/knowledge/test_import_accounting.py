"""Nothing of a wording is lost: every source character is placed in a unit, kept as a note or
removed by a named rule, and an import whose pages do not balance stops, naming the page.
Amendments come only from the supplement the owner names. Figures only: no wording text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knowledge.importing.accounting import RULES, Ledger, Unaccounted, balance
from knowledge.importing.pipeline import ImportFailed, build
from tests.knowledge import imports
from tests.knowledge.imports import CAR_2021, HOME, NRMA, REAL

pytestmark = pytest.mark.slow  # real wordings imported

# Source characters (whitespace aside) of each real wording and of its supplement, as counted.
SOURCE_CHARACTERS = {NRMA: 108_085, HOME: 87_005, imports.CAR_OLDER: 88_148, CAR_2021: 44_632}


@pytest.mark.parametrize("name", REAL)
def test_every_character_of_a_real_wording_is_accounted_for(name: str) -> None:
    acc = imports.imported(name).report.accounting
    assert acc["source_characters"] == SOURCE_CHARACTERS[name]
    assert acc["unaccounted"] == 0 and acc["overbooked"] == {}  # exact both ways
    removed = acc["removed_by_rule"]
    assert set(removed) <= set(RULES) and all(n > 0 for n in removed.values())
    assert (
        acc["placed_in_units"]
        + acc["headings_kept_in_units"]
        + acc["notes_not_contract_text"]
        + sum(removed.values())
        == acc["source_characters"]
    )
    # most of a wording is its clauses: furniture and marks are a small share
    assert acc["placed_in_units"] > 0.75 * acc["source_characters"]


def test_a_page_that_does_not_balance_stops_the_import_naming_it() -> None:
    ledger = Ledger()
    ledger.read(3, "Twelve chars here")  # 15 characters without spaces
    ledger.read(4, "abc")
    ledger.remove("page-number", 4, "abc")
    with pytest.raises(Unaccounted) as caught:
        balance("wording.pdf", ledger, placed=[(3, 14)], headings=[], notes=[])
    assert caught.value.pages == {3: 1}
    assert "wording.pdf" in str(caught.value) and "page 3: +1" in str(caught.value)
    assert balance("wording.pdf", ledger, placed=[(3, 15)], headings=[], notes=[]).unaccounted == 0


def test_furniture_is_removed_by_named_rules_with_counts() -> None:
    home = imports.imported(HOME).report.accounting["removed_by_rule"]
    assert {"running-footer", "page-number", "table-of-contents"} <= set(home)
    car = imports.imported(CAR_2021)
    removed = car.report.accounting["removed_by_rule"]
    assert removed["stray-mark"] == 2  # two carets of the extraction, never served
    assert "^" not in car.draft


def test_nrma_supplement_amendments_are_all_applied_and_none_invented() -> None:
    import pdfplumber

    report = imports.imported(NRMA).report
    with pdfplumber.open(str(imports.source_of(NRMA))) as pdf:
        supplement = " ".join(pdf.pages[n - 1].extract_text() or "" for n in range(3, 7))
    instructions = len(re.findall(r"is amended by (?!the following)", supplement))
    assert instructions == len(report.amendments) == 4 and report.counts["failures"] == 0
    assert all(a["applied_to"] and a["target_page"] for a in report.amendments)
    assert report.supplement.endswith("pages 3-6")
    assert report.accounting["removed_by_rule"]["superseded-by-amendment"] > 0


def test_no_amendment_comes_from_a_heading_of_the_wording_itself(tmp_path: Path) -> None:
    # A PDS of its own with a "Changes to your policy" section and an amendment-like sentence:
    # without a supplement named, it is the wording's own text, kept whole.
    source = tmp_path / "own.html"
    source.write_text(
        "<h1>Harbour Mutual boat policy</h1><p>Underwritten by Harbour Mutual Insurance Limited.</p>"
        "<h2>What you must tell us</h2><p>Tell us of any change to where your boat is kept.</p>"
        "<h2>Changes to your policy</h2><h3>Change 1 – Amendment to your cover</h3>"
        "<p>Your PDS is amended by replacing the dot point on page 3:</p><ul><li>old point</li>"
        "<li>new point</li></ul><h2>Cancelling your policy</h2><p>You may cancel at any time.</p>"
    )
    result = build(source, "boat", "2026.1", "BOT", None, None)
    assert result.report.amendments == [] and result.report.counts["failures"] == 0
    assert "amended by replacing the dot point" in result.draft and "Cancelling your policy" in result.draft
    with pytest.raises(ImportFailed, match="supplement-pages 9-9 holds no text"):
        build(source, "boat", "2026.1", "BOT", None, None, supplement_pages="9-9")


def test_encoded_markup_is_taken_out_of_clause_text_and_counted(tmp_path: Path) -> None:
    source = tmp_path / "web.html"
    source.write_text(
        "<h1>Harbour Mutual boat policy</h1><p>Underwritten by Harbour Mutual Insurance Limited.</p>"
        "<h2>Towing</h2><p>We pay towing up to €500 &lt;script&gt;alert(1)&lt;/script&gt;after an "
        "insured event; see &lt;a href=&quot;https://example.test/t&quot;&gt;the towing terms&lt;/a&gt;.</p>"
    )
    result = build(source, "boat", "2026.1", "BOT", None, None)
    assert "script" not in result.draft and "alert" not in result.draft and "href" not in result.draft
    assert "see the towing terms." in result.draft
    assert result.report.accounting["removed_by_rule"]["encoded-markup"] > 0
    assert result.report.accounting["unaccounted"] == 0
