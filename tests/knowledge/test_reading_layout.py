"""Reading order of PDF layouts the import must read as the page does, each on a small PDF
drawn in the test (reportlab): a label printed in the margin beside the text, two columns
that run on independently, a column rule drawn in pieces, a heading's rows kept apart from a
side note that runs past it, a table printed without rules, blocks set side by side, page
numbers beside the last line or printed twice, a contents page's numbers, marks and endings
set apart from their words, terms in a column beside their meanings. Synthetic text only."""

from __future__ import annotations

from pathlib import Path

from knowledge.importing.accounting import Ledger
from knowledge.importing.extract.blocks import Block
from knowledge.importing.extract.read import extract

LOREM = (
    "We pay the reasonable cost to repair your boat after an insured event and we choose the "
    "repairer with you before any work starts on the hull or the engine of the boat"
).split()


EXCESS = (
    "Your excess is the amount you pay towards each claim and it is shown on your schedule "
    "for each section of cover you hold with us."
).split()


def _lines(text_words: list[str], per_line: int) -> list[str]:
    return [" ".join(text_words[i : i + per_line]) for i in range(0, len(text_words), per_line)]


def _pdf(path: Path, draw) -> Path:  # type: ignore[no-untyped-def]
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    for page in range(3):
        draw(c, page)
        c.showPage()
    c.save()
    return path


def _part_page(c, page: int, text: list[str]) -> None:  # type: ignore[no-untyped-def]
    """A page as every layout here starts it: the part's heading, then a paragraph's lines."""
    c.setFont("Helvetica-Bold", 13)
    c.drawString(60, 780, f"Part {page + 1} boat cover")
    c.setFont("Helvetica", 10)
    for n, line in enumerate(text):
        c.drawString(60, 750 - 13 * n, line)


def _body(blocks: list[Block]) -> list[Block]:
    return [b for b in blocks if not b.note]


def test_a_label_in_the_margin_is_not_read_into_the_lines_beside_it(tmp_path: Path) -> None:
    """A section's tab printed in the outer margin beside a paragraph, on every page: the
    paragraph reads as printed, and the label is booked as page furniture by its own rule."""
    text = _lines(LOREM * 2, 9)

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        _part_page(c, page, text)
        c.setFont("Helvetica-Bold", 10)
        for n, line in enumerate(("Claims and", "what we pay")):
            c.drawRightString(560, 745 - 12 * n, line)

    ledger = Ledger()
    blocks = extract(_pdf(tmp_path / "tab.pdf", draw), ledger)
    paras = [b.text for b in _body(blocks) if b.kind == "para"]
    assert paras == [" ".join(text)] * 3
    assert ledger.removed["margin-label"]


def test_a_side_note_printed_once_in_the_margin_is_a_note(tmp_path: Path) -> None:
    text = _lines(LOREM * 2, 9)

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        _part_page(c, page, text)
        if page == 1:
            c.setFont("Helvetica", 8)
            for n, line in enumerate(("Ask us before", "you arrange it")):
                c.drawString(470, 745 - 10 * n, line)

    blocks = extract(_pdf(tmp_path / "note.pdf", draw))
    assert [b.text for b in _body(blocks) if b.kind == "para"] == [" ".join(text)] * 3
    assert [b.text for b in blocks if b.note] == ["Ask us before you arrange it"]


def test_two_columns_that_run_on_are_read_one_after_the_other(tmp_path: Path) -> None:
    """A bold line inside the first column's paragraph (defined terms in bold) does not start a
    row across the page: the second column's paragraph is not cut at its height."""
    left = _lines([*LOREM, "and", "its", "trailer."], 6)
    right = _lines(EXCESS, 6)

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 13)
        c.drawString(60, 780, f"Section {page + 1} boat cover")
        for n, line in enumerate(left):
            c.setFont("Helvetica-Bold" if n == 2 else "Helvetica", 10)
            c.drawString(60, 750 - 13 * n, line)
        c.setFont("Helvetica", 10)
        for n, line in enumerate(right):
            c.drawString(320, 750 - 13 * n, line)

    blocks = extract(_pdf(tmp_path / "columns.pdf", draw))
    paras = [b.text for b in _body(blocks) if b.kind == "para" and b.page == 2]
    assert paras == [" ".join(left), " ".join(right)]


def test_a_column_rule_drawn_in_pieces_is_the_columns_edge(tmp_path: Path) -> None:
    """Boxed columns whose dividing rule is drawn as a stroke per line, the first column set
    flush to the rule and the second starting on it: no wide space tells the columns apart,
    the rule does."""
    left = _lines([*LOREM, "and", "its", "trailer."], 6)
    right = _lines(EXCESS, 6)

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        for n in range(40):  # the rule, one short stroke per line
            c.line(300, 760 - 13 * n, 300, 747 - 13 * n)
        c.setFont("Helvetica", 10)
        for n, line in enumerate(left):
            c.drawRightString(292, 750 - 13 * n, line)
        for n, line in enumerate(right):
            c.drawString(300.5, 750 - 13 * n, line)

    blocks = extract(_pdf(tmp_path / "ruled.pdf", draw))
    assert [b.text for b in blocks if b.page == 2] == [" ".join(left), " ".join(right)]


def test_a_page_number_under_the_last_line_is_not_read_onto_it(tmp_path: Path) -> None:
    """A page number printed in the corner just under the page's last line, wholly beside it
    rather than below it, is the page's number, not the paragraph's last word."""
    text = _lines([*LOREM, "and", "its", "trailer."], 9)

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        _part_page(c, page, text)
        bottom = 750 - 13 * (len(text) - 1)
        c.drawString(540, bottom - 12, str(page + 7))

    ledger = Ledger()
    blocks = extract(_pdf(tmp_path / "folio.pdf", draw), ledger)
    assert [b.text for b in blocks if b.kind == "para"] == [" ".join(text)] * 3
    assert ledger.removed["page-number"]


def _folio(path: Path, number_at) -> tuple[list[Block], Ledger]:  # type: ignore[no-untyped-def]
    """Three pages of one paragraph at the page's foot, each page's number drawn by
    `number_at(canvas, page, y)` (y: the last line's baseline)."""
    text = _lines([*LOREM, "and", "its", "trailer."], 9)

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 13)
        c.drawString(60, 120, f"Part {page + 1} boat cover")
        c.setFont("Helvetica", 10)
        for n, line in enumerate(text):
            c.drawString(60, 95 - 13 * n, line)
        number_at(c, page, 95 - 13 * (len(text) - 1))

    ledger = Ledger()
    blocks = extract(_pdf(path, draw), ledger)
    assert [b.text for b in blocks if b.kind == "para"] == [" ".join(text)] * 3
    return blocks, ledger


def test_a_page_number_on_the_last_lines_row_is_not_read_onto_it(tmp_path: Path) -> None:
    """A page number in the outer margin on the very row of the page's last line, far left of
    it: the page's number, not the line's first word."""
    _, ledger = _folio(tmp_path / "beside.pdf", lambda c, page, y: c.drawString(20, y, str(page + 7)))
    assert ledger.removed["page-number"]


def test_a_page_number_printed_twice_over_itself_is_read_once(tmp_path: Path) -> None:
    """A page number drawn twice at one place (an overprint the eye sees once) is one number:
    read twice, "9 9" is no page number and stays as text."""

    def twice(c, page: int, y: float) -> None:  # type: ignore[no-untyped-def]
        for _ in range(2):
            c.drawString(540, 25, str(page + 7))

    blocks, ledger = _folio(tmp_path / "twice.pdf", twice)
    assert [b.printed_page for b in blocks if b.kind == "para"] == ["7", "8", "9"]
    assert sum(ledger.removed["overprinted"].values()) == 3 and ledger.removed["page-number"]


TITLES = ("Marine cover", "Mooring cover", "Moving your boat")


def test_a_space_drawn_inside_a_letter_does_not_cut_the_word(tmp_path: Path) -> None:
    """A title whose first letter is kerned back over the space drawn before it: the space
    lies inside the letter, and the word is read whole ("Marine", not "M arine")."""

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        c.setFont("Helvetica", 24)
        c.drawString(62, 760, " ")
        c.drawString(60, 760, TITLES[page])
        c.setFont("Helvetica", 10)
        for n, line in enumerate(_lines(LOREM, 9)):
            c.drawString(60, 720 - 13 * n, line)

    blocks = extract(_pdf(tmp_path / "kerned.pdf", draw))
    assert [b.text for b in blocks if b.kind == "heading"] == list(TITLES)


# A benefits table as wordings print it: unruled columns (the benefit, its limit, the page
# that tells more), a band heading over each group of rows, cells wrapping onto a second line.
Row = tuple[tuple[str, ...], tuple[str, ...], str]
BENEFITS: tuple[str | Row, ...] = (
    "Damage to your boat",
    (("Accidental damage",), ("Up to the sum insured",), "12"),
    (("Repairs on the water",), ("We arrange a marina repairer to fix", "your boat where it lies"), "12"),
    "Other benefits",
    (("Emergency towing and", "berthing"), ("Up to $1,200",), "14"),
    (("Personal gear",), ("Up to $750 for items on board",), "15"),
    (("Replacement sails",), ("If we agree your sails are a total loss,", "we pay for new sails"), "15"),
    (("Fuel spill clean up",), ("Up to $5,000",), "16"),
)


def _benefits(c, page: int) -> None:  # type: ignore[no-untyped-def]
    c.setFont("Helvetica-Bold", 12)
    c.drawString(60, 790, f"Part {page + 1} your cover at a glance")
    c.setFont("Helvetica", 10)
    c.drawString(60, 770, "Each benefit is paid on top of the sum insured unless we say otherwise.")
    c.drawString(540, 40, str(page + 3))
    if page != 1:  # the table on one page only (a row on every page's foot would be a footer)
        for n, line in enumerate(_lines(LOREM, 9)):
            c.drawString(60, 745 - 13 * n, line)
        return
    y = 745.0
    for row in BENEFITS:
        if isinstance(row, str):  # a band heading over the rows below it
            c.setFont("Helvetica-Bold", 10)
            c.drawString(60, y, row)
            y -= 17
            continue
        name, value, ref = row
        c.setFont("Helvetica", 9)
        for n, line in enumerate(name):
            c.drawString(60, y - 11 * n, line)
        for n, line in enumerate(value):
            c.drawString(200, y - 11 * n, line)
        c.drawRightString(520, y, ref)
        y -= 11 * max(len(name), len(value)) + 6


def test_an_unruled_table_is_read_row_by_row(tmp_path: Path) -> None:
    """Three columns aligned down the page with no rule between them: each row's benefit,
    limit and page are read together (a row), not the first column down and then the second;
    a band heading between the rows stays a heading."""
    blocks = extract(_pdf(tmp_path / "benefits.pdf", _benefits))
    page = [b for b in blocks if b.page == 2]
    rows = [b.cells for b in page if b.kind == "row"]
    printed = [row for row in BENEFITS if not isinstance(row, str)]
    assert rows == [(" ".join(name), " ".join(value), ref) for name, value, ref in printed]
    headings = [b.text for b in page if b.kind == "heading"]
    assert headings[-2:] == ["Damage to your boat", "Other benefits"]


CONTACTS = (
    ("Go online", "harbourmutual.co.nz"),
    ("Phone us", "0800 555 0199"),
    ("Come and see us", "at any branch"),
)


def test_blocks_side_by_side_are_read_block_by_block(tmp_path: Path) -> None:
    """Three short blocks set side by side in a box (how to reach us), two lines each: each
    block is read whole, not the first line across the three and then the second."""
    text = _lines(LOREM, 9)

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        _part_page(c, page, text)
        c.setFont("Helvetica", 11)
        for n, (head, detail) in enumerate(CONTACTS):
            c.drawString(90 + 160 * n, 200, head)
            c.drawString(90 + 160 * n, 189, detail)
        c.rect(60, 170, 480, 50)

    blocks = extract(_pdf(tmp_path / "contacts.pdf", draw))
    page = [b for b in blocks if b.page == 2]
    assert [b.text for b in page if b.kind == "para"] == [" ".join(text)]
    assert [b.cells for b in page if b.kind == "row"] == [tuple(" ".join(c) for c in CONTACTS)]


# A contents page as wordings print it: each part's title in bold over its sections, the page
# numbers in a column of their own far to the right.
CONTENTS = (
    ("Your boat", "3", (("Hull and fittings", "3"), ("Engines and drives", "5"), ("Sails and rigging", "6"))),
    ("Liability to others", "8", (("Injury to people", "8"), ("Damage to property", "9"))),
    ("Your trailer", "10", ()),
    (
        "General conditions",
        "11",
        (("Making a claim", "11"), ("Cancelling your cover", "13"), ("Complaints", "14"), ("Privacy", "15")),
    ),
    ("Definitions", "16", ()),
)


def test_a_contents_pages_numbers_are_read_with_their_titles(tmp_path: Path) -> None:
    """The column of page numbers is no second column of text: each title is read with its
    number, not all the titles and then all the numbers."""

    def draw(c, page: int) -> None:  # type: ignore[no-untyped-def]
        if page != 1:
            c.setFont("Helvetica", 10)
            for n, line in enumerate(_lines(LOREM, 9)):
                c.drawString(60, 750 - 13 * n, line)
            return
        c.setFont("Helvetica-Bold", 18)
        c.drawString(60, 760, "Section")
        c.drawString(430, 760, "Page")
        y = 730.0
        for title, number, entries in CONTENTS:
            c.setFont("Helvetica-Bold", 12)
            c.drawString(60, y, title)
            c.drawString(430, y, number)
            c.setFont("Helvetica", 12)
            for n, (entry, at) in enumerate(entries, start=1):
                c.drawString(60, y - 15.5 * n, entry)
                c.drawString(430, y - 15.5 * n, at)
            y -= 15.5 * (len(entries) + 1) + 16

    blocks = extract(_pdf(tmp_path / "contents.pdf", draw))
    read = " ".join(b.text for b in blocks if b.page == 2)
    printed = " ".join(
        f"{title} {number} " + " ".join(f"{entry} {at}" for entry, at in entries)
        for title, number, entries in CONTENTS
    )
    assert " ".join(read.split()) == " ".join(f"Section Page {printed}".split())


def _one_page(draw):  # type: ignore[no-untyped-def]
    """A drawing on the second page only, the others a paragraph of text: a line on every
    page's top or foot would be read as a running header or footer."""

    def on(c, page: int) -> None:  # type: ignore[no-untyped-def]
        if page == 1:
            draw(c)
            return
        c.setFont("Helvetica", 10)
        for n, line in enumerate(_lines(LOREM, 9)):
            c.drawString(60, 750 - 13 * n, line)

    return on


def _text_line(c, x: float, y: float, parts: list[tuple[str, str, float, float]]) -> None:  # type: ignore[no-untyped-def]
    """One printed line in runs of (text, font, size, rise): a word's bold stem and its plain
    ending, a raised ordinal, drawn touching as a typesetter sets them."""
    t = c.beginText(x, y)
    for text, font, size, rise in parts:
        t.setFont(font, size)
        t.setRise(rise)
        t.textOut(text)
    c.drawText(t)


def test_marks_endings_and_ordinals_set_apart_are_read_in_their_words(tmp_path: Path) -> None:
    """A sub-list's "o" marks in another typeface set a little lower than their lines, a
    defined term in bold with its plural ending in plain type, and an ordinal's "th" raised
    and smaller: each read where it stands in its line ("1/250th", "Claims"), not as a line of
    its own nor a word apart."""
    items = ("We will cancel your cover and tell you in writing", "We may refuse any claim still open")

    def draw(c) -> None:  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 13)
        c.drawString(60, 780, "Paying your premium")
        c.setFont("Helvetica", 10)
        c.drawString(60, 750, "If you do not pay an instalment by its due date:")
        for n, item in enumerate(items):
            c.setFont("Courier", 10)
            c.drawString(78, 733 - 14 * n - 3.5, "o")
            c.setFont("Helvetica", 10)
            c.drawString(96, 733 - 14 * n, item)
        plain, bold = ("Helvetica", 10, 0), ("Helvetica-Bold", 10, 0)
        _text_line(
            c,
            60,
            690,
            [("Your daily rate is 1/250", *plain), ("th", "Helvetica", 6.5, 3), (" of your pay.", *plain)],
        )
        _text_line(c, 60, 670, [("We pay for ", *plain), ("Claim", *bold), ("s made in the period.", *plain)])

    blocks = [b for b in extract(_pdf(tmp_path / "marks.pdf", _one_page(draw))) if b.page == 2]
    assert [b.text for b in blocks if b.kind == "item"] == [f"• {item}" for item in items]
    paras = [b.text for b in blocks if b.kind == "para"]
    assert (
        "Your daily rate is 1/250th of your pay." in paras
        and "We pay for Claims made in the period." in paras
    )


def test_a_term_in_its_own_column_beside_its_meaning_is_a_term(tmp_path: Path) -> None:
    """Definitions set as two columns, the term in bold on the left and its meaning on the
    right, the meaning starting with a defined word in bold (or wholly in bold): the term is
    read as a term (a heading over its meaning), however the meaning's first words are set."""
    terms = (
        ("Adviser", ["Our", " panel lawyer appointed to act for you."]),
        ("Costs", ["Legal Costs and Adverse Costs.", ""]),
    )

    def draw(c) -> None:  # type: ignore[no-untyped-def]
        c.setFont("Helvetica-Bold", 13)
        c.drawString(60, 780, "Definitions")
        c.setFont("Helvetica", 10)
        c.drawString(60, 750, "Where these words appear in bold they have these meanings.")
        for n, (term, (bold, plain)) in enumerate(terms):
            c.setFont("Helvetica-Bold", 10)
            c.drawString(60, 725 - 25 * n, term)
            _text_line(c, 200, 725 - 25 * n, [(bold, "Helvetica-Bold", 10, 0), (plain, "Helvetica", 10, 0)])

    blocks = [b for b in extract(_pdf(tmp_path / "terms.pdf", _one_page(draw))) if b.page == 2]
    assert [b.text for b in blocks if b.kind == "heading"][-2:] == ["Adviser", "Costs"]
    assert [b.text for b in blocks if b.kind == "para"][-2:] == [
        "Our panel lawyer appointed to act for you.",
        "Legal Costs and Adverse Costs.",
    ]
