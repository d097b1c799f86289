"""An independent reading of a wording's pages (for a PDF, PDFium's text layer, not
pdfplumber's words, which the import reads; for Markdown, the file's text split at its page
rules, without the import's own parsing) to check imported units against: every paragraph,
list item and table cell of a unit must be found, its words in order and together, on the
pages the unit came from.

Two allowances, where the check was wrong about the page: a label line the import writes (a
heading that says nothing alone, repeated with a colon over the text it heads) is looked for
on any page up to the unit's last, since the heading is printed once over a column that runs
on to the next pages; and a piece of the text a supplement puts into a unit (an amendment's
replacement, applied) is looked for where the supplement prints it, since that text is not
on the unit's page at all. Any other piece must be on the unit's own pages."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

_WORD = re.compile(r"\w+")
_LIGATURES = {"ﬀ": "ff", "ﬃ": "ffi", "ﬄ": "ffl", "ﬁ": "fi", "ﬂ": "fl", "ﬆ": "st", "ﬅ": "st"}


def words(text: str) -> str:
    for glyph, letters in _LIGATURES.items():
        text = text.replace(glyph, letters)
    return " ".join(w.lower() for w in _WORD.findall(text))


@cache
def page_words(source: Path, number: int) -> str:
    if source.suffix == ".md":
        return _markdown_page_words(source, number)
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(str(source))
    try:
        if number > len(pdf):
            return ""
        page = pdf[number - 1].get_textpage()
        return words(page.get_text_range())
    finally:
        pdf.close()


_PAGE_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$", re.M)


def _markdown_page_words(source: Path, number: int) -> str:
    """A Markdown wording's page read on its own: the extraction tools mark each page break
    with a rule; a link reads as its text, never its address."""
    pages = _PAGE_RULE.split(source.read_text(encoding="utf-8"))
    if number > len(pages):
        return ""
    return words(re.sub(r"\]\([^)]*\)", "]", pages[number - 1]))


def _across_break(piece: str, pages: list[int], source: Path) -> bool:
    """A piece a page break cuts: its first words end one page (before the page's foot, at
    most 20 words) and the rest starts the next (after its running head, at most 20 words)."""
    said = words(piece).split()
    for n in range(min(pages), max(pages) + 1):
        end = page_words(source, n).split()[-(len(said) + 20) :]
        start = page_words(source, n + 1).split()[: len(said) + 20]
        for k in range(1, len(said)):
            head, rest = " ".join(said[:k]), " ".join(said[k:])
            if f" {head} " in f" {' '.join(end)} " and f" {rest} " in f" {' '.join(start)} ":
                return True
    return False


def pieces(unit: dict) -> list[str]:
    """A unit's body (its heading line aside) as the pieces the page prints in one run: its
    paragraphs, its list items, each table cell."""
    body = unit["text"].split("\n\n", 1)[1] if " › " in unit["text"].split("\n\n", 1)[0] else unit["text"]
    out = []
    for para in body.split("\n\n"):
        for line in para.split("\n"):
            line = re.sub(r"^-\s+", "", line.strip())
            out.extend(cell for cell in line.split(" | ") if words(cell))
    return out


def _label(piece: str) -> bool:
    """A label line the import writes into a unit: a heading that says nothing alone repeated,
    with a colon, over the text it heads ("What is not covered:"), when its unit joins the unit
    above it (knowledge.importing.segment.merge_generic)."""
    from knowledge.importing.segment import is_generic

    text = piece.strip()
    return text.endswith(":") and is_generic(text[:-1], False)


def _supplied(piece: str, unit: dict, amendments: Sequence[dict], source: Path) -> bool:
    """A piece of an amendment's replacement applied to the unit, found where the supplement
    prints it (the instruction's page and the next)."""
    for a in amendments:
        if a.get("applied_to") != unit["id"] or not a.get("instruction_page"):
            continue
        if f" {words(piece)} " not in f" {words(a['replacement_text'])} ":
            continue
        page = int(a["instruction_page"])
        if f" {words(piece)} " in f" {page_words(source, page)} {page_words(source, page + 1)} ":
            return True
    return False


def misread(source: Path, units: list[dict], amendments: Sequence[dict] = ()) -> list[tuple[str, str]]:
    """(unit ID, piece) for each piece not found, its words in order, on the unit's pages
    (a piece across two pages is looked for in the two pages' text together). A label line
    that repeats a heading is looked for on any page up to the unit's last: the heading may be
    printed once, over a column that runs on to the next pages. A piece an amendment put into
    the unit (`amendments`: the import report's) is looked for where the supplement prints it."""
    wrong = []
    for unit in units:
        pages = unit.get("pages") or ([unit["page"]] if unit.get("page") else [])
        if not pages:
            continue
        text = " ".join(page_words(source, n) for n in range(min(pages), max(pages) + 2) if n > 0)
        for piece in pieces(unit):
            if f" {words(piece)} " in f" {text} ":
                continue
            if _label(piece) and any(
                f" {words(piece)} " in f" {page_words(source, n)} " for n in range(1, max(pages) + 1)
            ):
                continue
            if _supplied(piece, unit, amendments, source):
                continue
            if _across_break(piece, pages, source):
                continue
            wrong.append((unit["id"], piece))
    return wrong
