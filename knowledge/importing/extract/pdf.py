"""A PDF wording as blocks: each page's lines (see pdf_layout) read as headings by their size
and weight, paragraphs, items and table rows, with the page numbers the wording prints.

PDF text comes from pdfplumber (MIT, on pdfminer.six). Compared with pypdf (BSD) on the
NRMA PDS and the AXA home wording: pypdf is about five times faster, but its layout mode
gives text only, while pdfplumber gives every word with its position, font and size. Those
are what tell a heading from a paragraph (size, weight), a side note or a second column
from the main text (position) and a running header from the body (position on the page),
so pdfplumber it is.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from knowledge.importing.accounting import Ledger
from knowledge.importing.bounds import ExtractionFailed, check_pages
from knowledge.importing.extract.blocks import (
    BULLET,
    END,
    PAGE_NUMBER,
    Block,
    heading_block,
    joined,
    row_block,
    text_block,
)
from knowledge.importing.extract.pdf_layout import page_lines
from knowledge.importing.extract.pdf_words import Line
from knowledge.settings import ImportSettings

# Wordings print defined terms in bold: these at the start of a line are words, not a term row.
PRONOUNS = frozenset("we us our you your they their he she it what where when who if".split())


def from_pdf(path: Path, ledger: Ledger, settings: ImportSettings) -> list[Block]:
    import pdfplumber

    try:
        pdf = pdfplumber.open(str(path))
        count = len(pdf.pages)
    except Exception as exc:  # pdfminer raises many types for a damaged file
        raise ExtractionFailed(
            f"{path}: cannot be opened as a PDF ({type(exc).__name__}: {exc}); export it again from "
            "the insurer's document (or ask for a DOCX) and import that"
        ) from exc
    check_pages(path, count, settings)
    pages: list[tuple[int, float, list[Line]]] = []
    with pdf:
        for number, page in enumerate(pdf.pages, start=1):
            # Page by page: a page's layout is freed once its lines are read, so memory stays
            # bounded by one page and the lines, whatever the page count.
            try:
                pages.append((number, page.height, page_lines(page, ledger, number)))
            except Exception as exc:
                raise ExtractionFailed(
                    f"{path}: page {number} cannot be read ({type(exc).__name__}: {exc}); export the "
                    "wording again and import that"
                ) from exc
            finally:
                page.close()
    sizes: Counter[float] = Counter()
    for _, _, lines in pages:
        for ln in lines:
            sizes[ln.size] += len(ln.text)
    if not sizes:
        return []
    body = sizes.most_common(1)[0][0]
    heading_sizes = sorted({s for s in sizes if s >= body + 1.0 and sizes[s] >= 20}, reverse=True)
    blocks: list[Block] = []
    for number, height, lines in pages:
        on_page: Counter[float] = Counter()
        for ln in lines:
            on_page[ln.size] += len(ln.text)
        page_body = max(body, on_page.most_common(1)[0][0]) if on_page else body
        printed = next(
            (
                ln.text.strip().split()[-1 if ln.text.lower().startswith("page") else 0]
                for ln in lines
                if PAGE_NUMBER.match(ln.text.strip())
                and (ln.top > height * 0.85 or ln.bottom < height * 0.12)
            ),
            None,
        )
        if printed and "of" in printed:
            printed = None
        sizes_here = [s for s in heading_sizes if s >= page_body + 1.0]
        blocks.extend(_page_blocks(lines, number, printed, page_body, sizes_here, heading_sizes, ledger))
    # The printed page numbers: most pages print (file page - offset); section tabs and
    # inserts that print other numbers do not move it.
    offsets = Counter(b.page - int(b.printed_page) for b in blocks if b.printed_page and b.page)
    if offsets:
        offset = offsets.most_common(1)[0][0]
        blocks = [
            replace(b, printed_page=str(b.page - offset) if b.page and b.page - offset >= 1 else None)
            for b in blocks
        ]
    return blocks


def _level(size: float, sizes: list[float], body: float) -> int:
    """Heading level of a size, 1 the largest. Display sizes (twice the body and more) within
    15 % of a larger one share its level: section titles set a little smaller to fit."""
    level, top = 1, sizes[0] if sizes else size
    for s in sizes:
        if s < top * 0.85 or (s < top and s < 2 * body):
            level, top = level + 1, s
        if s == size:
            break
    return level


def _page_blocks(
    lines: list[Line],
    page: int,
    printed: str | None,
    body: float,
    heading_sizes: list[float],
    all_sizes: list[float],
    ledger: Ledger,
) -> list[Block]:
    """Lines of one page as blocks; a heading's level is its size's rank in the document
    (at most 4), a bold line at body size is the lowest level."""
    reader = _PageReader(page, printed, ledger)
    for ln in lines:
        if ln.cells:
            reader.table_row(ln)
            continue
        text = ln.text.strip()
        if _tick_row(text):  # a row of ticks and crosses in a table, not a heading
            reader.text_line(ln, text)
            continue
        if level := _heading_level(ln, text, body, heading_sizes, all_sizes):
            reader.heading(ln, text, level)
            continue
        if _is_term_row(ln, text, reader.last):
            text = reader.term(ln, text, len(all_sizes) + 1)
        reader.text_line(ln, text)
    reader.flush()
    return reader.out


def _tick_row(text: str) -> bool:
    """A row of ticks and crosses (or no word at all): a table's, never a heading."""
    return len(re.findall(r"[A-Za-z]{2,}", text)) < 1 or bool(re.search(r"[✓✗✔✘]", text))


def _heading_level(
    ln: Line, text: str, body: float, heading_sizes: list[float], all_sizes: list[float]
) -> int:
    """A line's heading level: by its size's rank when set larger than the body, the lowest
    level for a short bold line at body size; 0 for a line of text."""
    words = len(text.split())
    if ln.size in heading_sizes and words <= 14 and ln.column == "main":
        return _level(ln.size, all_sizes, body)
    if (
        ln.bold
        and ln.column == "main"
        and words <= 9
        and text[:1].isupper() | text[:1].isdigit()
        and not END.search(text)
        and (not BULLET.match(text) or re.match(r"\d{1,2}\.\s", text))
        and abs(ln.size - body) < 1.0
    ):
        return len(all_sizes) + 1
    return 0


def _is_term_row(ln: Line, text: str, last: Line | None) -> bool:
    """A term in bold at the start of a row, its meaning after it: a definitions table."""
    return bool(
        ln.bold_prefix
        and ln.column == "main"
        and ln.bold_prefix[:1].isupper()
        and ln.bold_prefix.lower().strip(" ,") not in PRONOUNS
        and not ln.bold_prefix.endswith(",")
        and text[len(ln.bold_prefix) :].strip()[:1].isupper()
        and not BULLET.match(text)
        and (last is None or ln.top - last.bottom > ln.size * 0.6)
    )


@dataclass
class _PageReader:
    """The blocks of one page as its lines are read, with the paragraph being gathered."""

    page: int
    printed: str | None
    ledger: Ledger
    out: list[Block] = field(default_factory=list)
    current: list[str] = field(default_factory=list)  # the lines of the paragraph being gathered
    current_note: bool = False
    current_column: str = ""
    last: Line | None = None  # the line read last

    def flush(self) -> None:
        """The paragraph gathered so far as a block."""
        text = " ".join(self.current)
        if self.current and (
            b := text_block(text, self.page, self.printed, self.current_note, ledger=self.ledger)
        ):
            self.out.append(replace(b, column=self.current_column) if self.current_column else b)
        self.current = []

    def table_row(self, ln: Line) -> None:
        self.flush()
        if row := row_block(list(ln.cells), self.page, self.ledger, boxes=ln.boxes):
            self.out.append(replace(row, printed_page=self.printed))
        self.last = ln

    def term(self, ln: Line, text: str, level: int) -> str:
        """The bold term of a definitions table's row as a heading; the rest of the line, its
        meaning, is returned to be read as text."""
        self.flush()
        if h := heading_block(ln.bold_prefix, self.page, level, self.printed, self.ledger):
            self.out.append(h)
        self.current_note = False
        return text[len(ln.bold_prefix) :].strip()

    def heading(self, ln: Line, text: str, level: int) -> None:
        self.flush()
        prev = self.out[-1] if self.out else None
        head = heading_block(text, self.page, level, self.printed, self.ledger)
        if head is None:
            pass
        elif (
            prev
            and prev.kind == "heading"
            and prev.level == level
            and self.last is not None
            and ln.top - self.last.bottom < ln.size
        ):  # a heading over two lines
            merged = f"{prev.text} {head.text}"
            self.out[-1] = replace(prev, text=merged, spans=joined(prev.spans, head.spans))
        else:
            self.out.append(head)
        self.last = ln

    def text_line(self, ln: Line, text: str) -> None:
        note = ln.column in ("side", "margin")
        if self._starts_paragraph(ln, text, note):
            self.flush()
            self.current_note = note
            self.current_column = ln.column if ln.column in ("right", "margin") else ""
        self.current.append(text)
        self.last = ln

    def _starts_paragraph(self, ln: Line, text: str, note: bool) -> bool:
        last = self.last
        gap = ln.top - last.bottom if last is not None else 0
        # A line wholly beside the one above it, not below it (a page number in the corner
        # under the last line, a block set beside another), does not carry on its paragraph.
        apart = last is not None and (ln.x0 > last.x1 + 1 or ln.x1 < last.x0 - 1)
        return bool(
            not self.current
            or BULLET.match(text)
            or note != self.current_note
            or apart
            or (last is not None and (gap > ln.size * 0.9 or ln.column != last.column))
            or (self.current and self.current[-1].endswith(":"))
        )
