"""A DOCX wording as blocks: its paragraphs by style (headings, list items) and its tables'
rows, numbered by their place in the document's body."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from knowledge.importing.accounting import Ledger
from knowledge.importing.bounds import ExtractionFailed
from knowledge.importing.extract.blocks import Block, heading_block, row_block, text_block


def from_docx(path: Path, ledger: Ledger | None = None) -> list[Block]:
    import docx  # python-docx (MIT)

    ledger = ledger if ledger is not None else Ledger()
    try:
        document = docx.Document(str(path))
    except Exception as exc:  # python-docx raises several types for a damaged package
        raise ExtractionFailed(
            f"{path}: not a readable DOCX ({type(exc).__name__}: {exc}); open it in a word processor, "
            "save it again as DOCX (or export a PDF) and import that"
        ) from exc
    blocks: list[Block] = []
    body = document.element.body
    for number, child in enumerate(body.iterchildren(), start=1):
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = docx.text.paragraph.Paragraph(child, document)
            ledger.read(None, paragraph.text)
            text = " ".join(paragraph.text.split())
            if not text:
                continue
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            if m := re.match(r"(?:Heading|Title)\s*(\d?)", style):
                if b := heading_block(text, None, int(m[1] or 1), None, ledger, number):
                    blocks.append(b)
            elif b := text_block(text, None, ledger=ledger, line=number):
                if "List" in style and b.kind != "item":
                    b = replace(b, kind="item", text=f"• {b.text}")
                blocks.append(b)
        elif tag == "tbl":
            table = docx.table.Table(child, document)
            for row in table.rows:
                cells = []
                for cell in row.cells:  # a merged cell is listed once per grid column it spans
                    if all(cell._tc is not c._tc for c in cells):
                        cells.append(cell)
                ledger.read(None, "".join(c.text for c in cells))
                if b := row_block([c.text for c in cells if c.text.strip()], None, ledger, number):
                    blocks.append(b)
    return blocks
