"""The team's own test wordings, one per structure the import must read, rendered at test time.

Harbour Mutual's motor policy is synthetic (written here, not any insurer's text) and laid
out the way published PDSs are: a contents page with dotted leaders and page numbers (titles
with the ligatures a typesetter uses), a summary table of cover levels with a caption, a
footnoted level name, sub-headings inside the table (legal liability, optional benefits you
can add, what we will not pay) and limits in the row labels; a page of side-by-side "what is
covered / what is not covered" columns; sections named as the table's rows; definitions.

`TABLE` is the table as printed, written by hand: the tests read the import against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LEVELS = ("Comprehensive", "Third Party Fire & Theft", "Third Party Only")
CAPTION = "Table 1 – Your cover at a glance"
FOOTNOTE = "1 Comprehensive includes everything in Third Party Fire & Theft and more."
Y, N, OPT = "✓", "✗", "Optional"


@dataclass(frozen=True)
class Row:
    group: str  # the sub-heading the row sits under, "" for the table's first rows
    label: str  # as printed, limit included
    cells: tuple[str, str, str]  # per level, in LEVELS order
    kind: str  # cover, liability, option, exclusion


# The summary table, row by row under its sub-headings, as printed (the hand-written list the
# reading is checked against); a sub-heading says the kind of every row under it.
GROUPS = {
    "": "cover",
    "Legal liability": "liability",
    "Optional benefits you can add": "option",
    "What we will not pay": "exclusion",
}
_PRINTED: dict[str, tuple[tuple[str, tuple[str, str, str]], ...]] = {
    "": (
        ("Accidental loss or damage to your car", (Y, N, N)),
        ("Fire and theft", (Y, Y, N)),
        ("Windscreen and window glass", (Y, N, N)),
        ("Emergency travel and accommodation – $750 per event", (Y, Y, N)),
        ("Child seats – $650 per seat", (Y, N, N)),
    ),
    "Legal liability": (
        ("Damage to other people's property", (Y, Y, Y)),
        ("Uninsured motorist protection – $5,000", (N, Y, Y)),
        ("Liability while towing a trailer", (Y, Y, Y)),
    ),
    "Optional benefits you can add": (
        ("Hire car after an accident", (OPT, N, N)),
        ("Roadside rescue", (OPT, OPT, N)),
    ),
    "What we will not pay": (
        ("Mechanical failure", (N, N, N)),
        ("Wear and tear", (N, N, N)),
    ),
}
TABLE: tuple[Row, ...] = tuple(
    Row(group, label, cells, GROUPS[group]) for group, rows in _PRINTED.items() for label, cells in rows
)

# The sections after the table, each named as a row (labels without their limits).
SECTIONS: tuple[tuple[str, str], ...] = (
    (
        "Accidental loss or damage to your car",
        "We cover sudden accidental loss or damage to your car during the period of insurance. "
        "We choose whether to repair your car or pay you its market value.",
    ),
    ("Fire and theft", "We cover loss of your car by theft and damage to your car by fire."),
    (
        "Windscreen and window glass",
        "Cracked or shattered windscreens and car windows are mended or swapped for new glass at our cost.",
    ),
    (
        "Emergency travel and accommodation",
        "If your car cannot be driven after an insured event more than 100 km from home, we pay "
        "reasonable travel and accommodation costs up to $750 for each event.",
    ),
    ("Child seats", "We replace a child seat damaged in an insured event, up to $650 for each seat."),
    (
        "Damage to other people's property",
        "We cover your legal liability for damage your car causes to other people's property, "
        "up to $20 million.",
    ),
    (
        "Uninsured motorist protection",
        "If an uninsured driver damages your car and is at fault, we pay up to $5,000 for the repairs.",
    ),
    (
        "Liability while towing a trailer",
        "We cover your legal liability while your car is towing a trailer or caravan.",
    ),
    (
        "Hire car after an accident",
        "If you added this benefit, we pay for a hire car for up to 14 days while your car is repaired.",
    ),
    ("Roadside rescue", "If you added this benefit, we arrange towing when your car breaks down."),
)

# The causes page: what is covered beside what is not, one ruled row per cause, as printed.
# The right-hand column says "covered" in its prose (which once made the page a cover table).
# Sections under "What we will not pay", named as the table's rows of crosses.
EXCLUSIONS: tuple[tuple[str, str], ...] = (
    ("Mechanical failure", "We do not pay for mechanical, electrical or computer failure of your car."),
    ("Wear and tear", "We do not pay for wear and tear, or for damage that happens gradually."),
)

COLUMN_HEADS = ("What your policy covers:", "What your policy does not cover:")
CAUSES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "1. Storm or flood",
        (
            "We cover damage to your car caused by storm or flood, including water that enters the "
            "cabin through a broken window.",
        ),
        (
            "Loss or damage:",
            "• to tyres by stones thrown up by the storm;",
            "• by rust or corrosion of the body, which is only covered if the storm caused it;",
            "• caused by driving your car into water deeper than its doors.",
        ),
    ),
    (
        "2. Fire or explosion",
        (
            "We cover damage to your car caused by fire, explosion or lightning, and we also pay "
            "to clean smoke from the cabin of your car.",
        ),
        (
            "Loss or damage:",
            "• to the battery itself, which is only covered if the fire spread from it;",
            "• while your car is left with its engine running, which is never covered.",
            "The cost of repairing the cause of the fire unless it is covered elsewhere in this policy.",
        ),
    ),
    (
        "3. Theft or attempted theft",
        ("We cover loss of your car by theft and damage caused while someone tries to steal it.",),
        (
            "Loss or damage:",
            "• while your keys are left in or on your car;",
            "• caused by a person you allowed to drive your car, unless the theft is covered by law.",
        ),
    ),
)

DEFINITIONS: tuple[tuple[str, str], ...] = (
    ("Market value", "The amount your car would sell for just before the loss, as we assess it."),
    ("Period of insurance", "The dates shown on your schedule during which this policy is in force."),
    ("Modification", "Any change to your car's engine, suspension, wheels or body from its specifications."),
)

# The contents page as printed: its titles hold ligatures (ﬁ, ﬂ) as typeset PDFs do.
CONTENTS = (
    ("Your cover at a glance", 2),
    ("Causes of loss or damage (ﬂood, ﬁre, theft)", 3),
    ("Beneﬁts in detail", 4),
    ("Deﬁnitions", 5),
)

_FONTS = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
)


def _fonts() -> tuple[str, str]:
    """A font with ticks, crosses and ligatures (DejaVu Sans, packaged by every Linux distribution)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    missing = [str(p) for p in _FONTS if not p.exists()]
    if missing:
        raise RuntimeError(
            f"the test wordings need the DejaVu fonts ({', '.join(missing)}): install fonts-dejavu-core"
        )
    if "HarbourSans" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("HarbourSans", str(_FONTS[0])))
        pdfmetrics.registerFont(TTFont("HarbourSans-Bold", str(_FONTS[1])))
        pdfmetrics.registerFontFamily(
            "HarbourSans",
            normal="HarbourSans",
            bold="HarbourSans-Bold",
            italic="HarbourSans",
            boldItalic="HarbourSans-Bold",
        )
    return "HarbourSans", "HarbourSans-Bold"


def _summary_table_page(h2, head, cell, small, regular: str) -> list:  # type: ignore[no-untyped-def,type-arg]
    """Page 2: the summary table, its caption a spanning row, a footnoted level, sub-headings."""
    from reportlab.lib import colors
    from reportlab.lib.units import mm
    from reportlab.platypus import PageBreak, Paragraph, Spacer, Table, TableStyle

    story: list = [Paragraph("Your cover at a glance", h2)]  # type: ignore[type-arg]
    data = [
        [Paragraph(CAPTION, head), "", "", ""],
        [
            Paragraph("Benefit", head),
            Paragraph(f"{LEVELS[0]}<super>1</super>", head),
            Paragraph(LEVELS[1].replace("&", "&amp;"), head),
            Paragraph(LEVELS[2], head),
        ],
    ]
    style = [
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
        ("SPAN", (0, 0), (-1, 0)),
        ("FONTNAME", (0, 0), (-1, -1), regular),
        ("ALIGN", (1, 2), (-1, -1), "CENTER"),
    ]
    group = ""
    for row in TABLE:
        if row.group != group:
            group = row.group
            data.append([Paragraph(group, head), "", "", ""])
            style.append(("SPAN", (0, len(data) - 1), (-1, len(data) - 1)))
        data.append([Paragraph(row.label, cell), *row.cells])
    table = Table(data, colWidths=[70 * mm, 34 * mm, 34 * mm, 34 * mm])
    table.setStyle(TableStyle(style))
    return [*story, table, Spacer(1, 6), Paragraph(FOOTNOTE, small), PageBreak()]


def _causes_page(h2, head, body, bold: str) -> list:  # type: ignore[no-untyped-def,type-arg]
    """Page 3: side-by-side columns, what is covered beside what is not."""
    from reportlab.lib import colors
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import PageBreak, Paragraph, Table, TableStyle

    def flow(lines: tuple[str, ...]) -> list:  # type: ignore[type-arg]
        return [
            Paragraph(line[2:], body, bulletText="•") if line.startswith("• ") else Paragraph(line, body)
            for line in lines
        ]

    column_rows = [[Paragraph(COLUMN_HEADS[0], head), Paragraph(COLUMN_HEADS[1], head)]]
    for cause, covered, excluded in CAUSES:
        left = [Paragraph(cause, ParagraphStyle("cause", parent=body, fontName=bold)), *flow(covered)]
        column_rows.append([left, flow(excluded)])
    columns = Table(column_rows, colWidths=[85 * mm, 85 * mm])
    columns.setStyle(
        TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black), ("VALIGN", (0, 0), (-1, -1), "TOP")])
    )
    return [Paragraph("Causes", h2), columns, PageBreak()]


def render_motor_pdf(out: Path) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Table

    regular, bold = _fonts()
    body = ParagraphStyle(
        "body", fontName=regular, fontSize=10, leading=13, spaceAfter=6, bulletFontName=regular
    )
    h1 = ParagraphStyle("h1", fontName=bold, fontSize=18, leading=22, spaceAfter=10)
    h2 = ParagraphStyle("h2", fontName=bold, fontSize=14, leading=18, spaceBefore=8, spaceAfter=6)
    cell = ParagraphStyle("cell", parent=body, fontSize=9, leading=11, spaceAfter=0)
    small = ParagraphStyle("small", parent=body, fontSize=8, leading=10)
    story: list = []  # type: ignore[type-arg]

    # Page 1: title, who insures, contents with dotted leaders.
    story.append(Paragraph("Harbour Mutual Motor Vehicle Policy", h1))
    story.append(
        Paragraph(
            "This policy is underwritten by Harbour Mutual Insurance Limited, Wellington. "
            "A synthetic wording for tests, not a real contract. Amounts are in NZD.",
            body,
        )
    )
    story.append(Paragraph("Contents", h2))
    contents = Table(
        [
            [Paragraph(title, body), Paragraph("." * 60, body), Paragraph(str(page), body)]
            for title, page in CONTENTS
        ],
        colWidths=[70 * mm, 80 * mm, 12 * mm],
    )
    story += [contents, PageBreak()]

    head = ParagraphStyle("head", parent=cell, fontName=bold)
    story += _summary_table_page(h2, head, cell, small, regular)
    story += _causes_page(h2, head, body, bold)

    # Page 4: the benefits in detail, each section named as its row.
    story.append(Paragraph("Benefits in detail", h2))
    for title, text in SECTIONS:
        story.append(
            Paragraph(title, ParagraphStyle("h3b", parent=body, fontName=bold, fontSize=12, leading=15))
        )
        story.append(Paragraph(text.replace("&", "&amp;"), body))
    story.append(Paragraph("What we will not pay", h2))
    for title, text in EXCLUSIONS:
        story.append(
            Paragraph(title, ParagraphStyle("h3c", parent=body, fontName=bold, fontSize=12, leading=15))
        )
        story.append(Paragraph(text, body))
    story.append(PageBreak())

    # Page 5: definitions.
    story.append(Paragraph("Definitions", h2))
    for term, meaning in DEFINITIONS:
        story.append(Paragraph(f"<b>{term}</b> {meaning}", ParagraphStyle("def", parent=body)))

    def furniture(canvas, doc) -> None:  # type: ignore[no-untyped-def]
        canvas.saveState()
        canvas.setFont(regular, 8)
        canvas.drawString(20 * mm, A4[1] - 12 * mm, "Harbour Mutual motor policy wording")
        canvas.drawRightString(A4[0] - 20 * mm, 10 * mm, str(doc.page))
        canvas.restoreState()

    out.parent.mkdir(parents=True, exist_ok=True)
    doc = SimpleDocTemplate(str(out), pagesize=A4, topMargin=22 * mm, bottomMargin=20 * mm)
    doc.build(story, onFirstPage=furniture, onLaterPages=furniture)
    return out


def render_motor_docx(out: Path) -> Path:
    """The same wording as a DOCX: headings by style, the summary table with its caption and
    sub-headings as merged rows, the causes as a two-column table, definitions as paragraphs."""
    import docx

    document = docx.Document()
    document.add_heading("Harbour Mutual Motor Vehicle Policy", level=1)
    document.add_paragraph(
        "This policy is underwritten by Harbour Mutual Insurance Limited, Wellington. "
        "A synthetic wording for tests, not a real contract. Amounts are in NZD."
    )
    document.add_heading("Your cover at a glance", level=2)
    table = document.add_table(rows=0, cols=4)
    table.style = "Table Grid"

    def merged(text: str) -> None:
        cells = table.add_row().cells
        cells[0].merge(cells[3]).text = text

    merged(CAPTION)
    for cell, text in zip(table.add_row().cells, ("Benefit", f"{LEVELS[0]}¹", *LEVELS[1:]), strict=True):
        cell.text = text
    group = ""
    for row in TABLE:
        if row.group != group:
            group = row.group
            merged(group)
        for cell, text in zip(table.add_row().cells, (row.label, *row.cells), strict=True):
            cell.text = text
    document.add_paragraph(FOOTNOTE.replace("1 ", "¹ ", 1))
    document.add_heading("Benefits in detail", level=2)
    for title, text in SECTIONS:
        document.add_heading(title, level=3)
        document.add_paragraph(text)
    document.add_heading("What we will not pay", level=2)
    for title, text in EXCLUSIONS:
        document.add_heading(title, level=3)
        document.add_paragraph(text)
    document.add_heading("Definitions", level=2)
    for term, meaning in DEFINITIONS:
        document.add_heading(term, level=3)
        document.add_paragraph(meaning)
    out.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(out))
    return out
