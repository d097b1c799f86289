"""The team's own test wordings (tests/knowledge/own_wordings.py), rendered at test time, read
as printed: every character booked exactly once, the summary table's rows against the list
written by hand, sub-headings, footnotes and captions in their place, the matrix reaching the
sections the rows name, side-by-side columns kept apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge.accounting import Ledger, Unaccounted, balance
from knowledge.importer import Imported, build
from tests.knowledge import own_wordings as own


@pytest.fixture(scope="module")
def motor_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return own.render_motor_pdf(tmp_path_factory.mktemp("own") / "harbour-motor.pdf")


@pytest.fixture(scope="module")
def motor(motor_pdf: Path) -> Imported:
    return build(motor_pdf, "motor", "2026.1", "MTR", None, None)


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
