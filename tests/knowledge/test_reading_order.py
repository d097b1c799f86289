"""Every unit of each shared wording checked in reading order against an independent reading
of its pages (tests/knowledge/reading.py: PDFium's text layer for a PDF, the file's own text page
by page for Markdown): each paragraph, item and cell found, its words in order and together.
All four read as printed: none may be misread again."""

from __future__ import annotations

import pytest

from tests.knowledge import imports
from tests.knowledge.reading import misread

pytestmark = pytest.mark.slow  # real wordings imported

# Pieces not found in order on their page, as measured; the import before issue 39 had 83
# (NRMA) and 41 (AXA home), then 77 and 34; margin tabs, column rules drawn in pieces and
# columns that run on independently read as printed: 46 and 18; a label line repeating a
# column's heading printed on an earlier page found there (reading.py): 46 and 10; a page
# number beside the last line no longer read onto it: 39 and 10; tables printed without rules
# read row by row and blocks set side by side block by block (pdf_grid): 8 and 10; a page
# number on the last line's row read apart, one printed twice over itself read once, a space
# drawn inside a letter no word break: 4 and 10; an amendment's text looked for where the
# supplement prints it (reading.py): 0 and 10; a contents page's column of page numbers read
# with its titles: 0 and 6; a sub-list's marks, a bold word's plain ending and a raised "th"
# read in their line and word, a term in its own column beside its meaning read as a term:
# 0 and 0.
# The two Markdown wordings (a PDF converted by another tool: its own page rules and links)
# are read against their own text, page by page: 0 and 0 once a piece a page break cuts is
# looked for either side of it.
CEILING = {imports.NRMA: 0, imports.HOME: 0, imports.CAR_OLDER: 0, imports.CAR_2021: 0}


@pytest.mark.parametrize("name", list(CEILING))
def test_units_read_in_the_pages_order(name: str) -> None:
    report = imports.imported(name).report
    wrong = misread(imports.source_of(name), report.units, report.amendments)
    pieces = len(wrong)
    assert pieces <= CEILING[name], [f"{unit}: {len(text)} characters" for unit, text in wrong]
