"""The synthetic Kowhai Mutual travel wording (corpus/wordings/kowhai-travel.md) rendered as
an insurer would publish it: a PDF (reportlab, BSD) with a running header, page numbers and
a sentence cut by a page break, and a DOCX (python-docx, MIT). Made at test time or on
demand (`python -m knowledge render-sample --out DIR`); no rendered file is committed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "corpus" / "wordings" / "kowhai-travel.md"
PAGE_BREAK = "<!-- page break -->"
HEADER = "Kowhai Mutual Travel Insurance 2026.1 - SYNTHETIC SAMPLE, not a real contract"


@dataclass(frozen=True)
class Element:
    kind: str  # heading, para, item, table, break
    text: str = ""
    level: int = 0
    rows: tuple[tuple[str, ...], ...] = ()


def elements(source: Path = SAMPLE) -> list[Element]:
    out: list[Element] = []
    rows: list[tuple[str, ...]] = []
    for line in [*source.read_text(encoding="utf-8").splitlines(), ""]:
        line = line.strip()
        if line.startswith("|"):
            cells = tuple(c.strip() for c in line.strip("|").split("|"))
            if not all(re.fullmatch(r"-{3,}", c) for c in cells):
                rows.append(cells)
            continue
        if rows:
            out.append(Element("table", rows=tuple(rows)))
            rows = []
        if line == PAGE_BREAK:
            out.append(Element("break"))
        elif not line or line.startswith("<!--"):
            continue
        elif m := re.match(r"^(#{1,3})\s+(.*)$", line):
            out.append(Element("heading", m[2], len(m[1])))
        elif line.startswith("- "):
            out.append(Element("item", line[2:]))
        else:
            out.append(Element("para", line))
    return out


def render_pdf(out: Path, source: Path = SAMPLE, repeat: int = 1) -> Path:
    """The wording as a PDF; `repeat` copies of its body make a long document for probes."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    body = ParagraphStyle("body", fontName="Helvetica", fontSize=10, leading=13, spaceAfter=6)
    item = ParagraphStyle("item", parent=body, leftIndent=12, bulletIndent=0, spaceAfter=3)
    heads = {
        1: ParagraphStyle("h1", fontName="Helvetica-Bold", fontSize=18, leading=22, spaceAfter=10),
        2: ParagraphStyle(
            "h2", fontName="Helvetica-Bold", fontSize=14, leading=18, spaceBefore=8, spaceAfter=6
        ),
        3: ParagraphStyle("h3", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceAfter=4),
    }
    cell = ParagraphStyle("cell", parent=body, fontSize=9, leading=11, spaceAfter=0)

    def esc(text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    story: list = []  # type: ignore[type-arg]
    parts = elements(source)
    for copy in range(repeat):
        for e in parts:
            if e.kind == "heading":
                text = e.text if repeat == 1 else f"{e.text} ({copy + 1})"
                story.append(Paragraph(esc(text), heads[e.level]))
            elif e.kind == "para":
                story.append(Paragraph(esc(e.text), body))
            elif e.kind == "item":
                story.append(Paragraph(esc(e.text), item, bulletText="•"))
            elif e.kind == "break":
                story.append(PageBreak())
            elif e.kind == "table":
                table = Table([[Paragraph(esc(c), cell) for c in r] for r in e.rows], repeatRows=1)
                table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
                story += [table, Spacer(1, 6)]

    def furniture(canvas, doc) -> None:  # type: ignore[no-untyped-def]
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(20 * mm, A4[1] - 12 * mm, HEADER)
        canvas.drawRightString(A4[0] - 20 * mm, 10 * mm, f"Page {doc.page}")
        canvas.restoreState()

    out.parent.mkdir(parents=True, exist_ok=True)
    doc = SimpleDocTemplate(str(out), pagesize=A4, topMargin=22 * mm, bottomMargin=20 * mm)
    doc.build(story, onFirstPage=furniture, onLaterPages=furniture)
    return out


def render_docx(out: Path, source: Path = SAMPLE) -> Path:
    import docx
    from docx.enum.text import WD_BREAK

    document = docx.Document()
    broken = False
    for e in elements(source):
        if e.kind == "heading":
            document.add_heading(e.text, level=e.level)
        elif e.kind == "item":
            document.add_paragraph(e.text, style="List Bullet")
        elif e.kind == "para":
            paragraph = document.add_paragraph()
            if broken:
                paragraph.add_run().add_break(WD_BREAK.PAGE)
                broken = False
            paragraph.add_run(e.text)
        elif e.kind == "break":
            broken = True
        elif e.kind == "table":
            table = document.add_table(rows=len(e.rows), cols=len(e.rows[0]))
            table.style = "Table Grid"
            for row, cells in zip(table.rows, e.rows, strict=True):
                for c, value in zip(row.cells, cells, strict=True):
                    c.text = value
    out.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(out))
    return out


def render(out_dir: Path) -> tuple[Path, Path]:
    return render_pdf(out_dir / "kowhai-travel.pdf"), render_docx(out_dir / "kowhai-travel.docx")
