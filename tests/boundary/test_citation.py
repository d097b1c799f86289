"""A citation is stored by its own form and read back as it was, rows stored before included."""

from __future__ import annotations

from agent.boundary.citation import Citation, Quote

RATE = "We pay up to NZD 60 a day."
STORED = {"clause_id": "MTR-BEN-03", "title": "Hire car", "version": "2026.2", "quote": RATE}


def test_a_citation_reads_back_from_its_stored_form() -> None:
    served = Citation(clause_id="MTR-BEN-03", quote=RATE, title="Hire car", version="2026.2")
    assert served.as_dict() == STORED and list(served.as_dict()) == list(STORED)  # the keys, in order
    assert Citation.of(served.as_dict()) == served
    # A staff answer's first quote of a clause keeps the whole clause with it, and reads it back.
    first = Citation(clause_id="MTR-BEN-03", quote=RATE, title="Hire car", version="2026.2", full_text="All.")
    assert first.as_dict() == {**STORED, "full_text": "All."}
    assert Citation.of(first.as_dict()) == first


def test_rows_stored_before_read_as_they_were_written() -> None:
    # A turn record's or a draft's citation, and an answer's from before the whole clause was kept.
    [old] = Citation.all_of([STORED])
    assert old.full_text is None and old.as_dict() == STORED
    assert Citation.all_of(None) == []  # an item not answered stores none


def test_a_citation_is_a_quote_checked() -> None:
    """What a verdict compares and what a handler asks to cite: a citation stands wherever a
    quote does, and is never equal to the bare quote."""
    served = Citation.of(STORED)
    assert isinstance(served, Quote) and (served.clause_id, served.quote) == ("MTR-BEN-03", RATE)
    assert served != Quote("MTR-BEN-03", RATE)
