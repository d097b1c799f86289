"""The blocks every reader makes: a Block with the page and spans its characters came from,
the cleaning of markup and stray marks out of its text, and the shapes of list marks, page
numbers and sentence ends the readers share."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace

from knowledge.importing.accounting import Ledger, nonspace

Spans = tuple[tuple[int, int], ...]  # (page, characters) the block's text came from


@dataclass(frozen=True)
class Block:
    kind: str  # "heading", "para", "item" (a list item or numbered item) or "row" (a table row)
    text: str
    page: int | None = None  # the file's own page (1-based) where the block starts
    level: int = 0  # heading level, 1 is the top
    note: bool = False  # a side note beside the text, not the text itself
    printed_page: str | None = None  # the page number printed on that page, if found
    spans: Spans = ()  # where its characters came from, for the accounting
    line: int | None = None  # the source line (Markdown, HTML) or paragraph (DOCX), 1-based
    cells: tuple[str, ...] = ()  # a table row's cells
    boxes: tuple[tuple[float, float, float, float] | None, ...] = ()  # each cell's box on its PDF page
    column: str = ""  # "right": the second of two side-by-side columns (a PDF page with a gutter);
    # "margin": a label printed in the page's outer margin beside the text (a note)


def spans(text: str, page: int | None) -> Spans:
    n = nonspace(text)
    return ((page or 0, n),) if n else ()


def placed_chars(block: Block) -> int:
    """The source characters a block's text holds: without the list mark and cell separators
    the importer writes around them."""
    if block.cells:
        return sum(nonspace(c) for c in block.cells)
    n = nonspace(block.text) - block.text.startswith("•")
    return n - block.text.count(" | ") if block.kind == "row" else n


def cut(block: Block, pieces: list[str]) -> list[Block]:
    """A block's text cut into pieces (between words), its spans shared out in order."""
    left = [list(s) for s in block.spans]
    out = []
    for piece in pieces:
        need, taken = placed_chars(replace(block, text=piece, cells=())), {}
        while need and left:
            page, n = left[0]
            k = min(n, need)
            taken[page] = taken.get(page, 0) + k
            need -= k
            left[0][1] -= k
            if not left[0][1]:
                left.pop(0)
        out.append(replace(block, text=piece, spans=tuple(taken.items()), cells=(), boxes=()))
    return out


def joined(a: Spans, b: Spans) -> Spans:
    out: dict[int, int] = {}
    for page, n in (*a, *b):
        out[page] = out.get(page, 0) + n
    return tuple(out.items())


# "o" set as a sub-list's mark (a word processor's second-level bullet) is one too.
BULLET = re.compile(r"^\s*(?:[•▪●◦■\-–*o]|\d{1,2}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\)|[ivx]{1,4}[.)])\s+")
GLYPH = re.compile(r"^\s*(?:[•▪●◦■]|[\-–*o](?=\s))")
PAGE_NUMBER = re.compile(r"^(?:page\s+)?\d{1,3}(?:\s+of\s+\d{1,3})?$", re.I)
END = re.compile(r"[.:;!?)\]”’\"]$")


# Entity-encoded markup in a wording's text (a web page's copy, a CMS export): never clause text.
ENCODED_BLOCK = re.compile(r"&lt;(script|style|iframe)\b.*?&lt;/\1\s*&gt;", re.I | re.S)
ENCODED_TAG = re.compile(r"&lt;/?[a-zA-Z][^&]*?&gt;")
LITERAL_BLOCK = re.compile(r"<(script|style|iframe)\b[^>]*>.*?</\1\s*>", re.I | re.S)
LITERAL_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
# Marks an extraction leaves that are no text: a caret, runs of #, private-use icon glyphs.
STRAY = re.compile(r"\^|(?<![\w#])#{2,}(?![\w#])|[\ue000-\uf8ff\ufffd\u25a1]")


def clean(text: str, page: int | None, ledger: Ledger) -> str:
    """Markup, entities and stray marks out of a text, each booked under its rule."""
    text = ledger.step("encoded-markup", page, text, ENCODED_TAG.sub(" ", ENCODED_BLOCK.sub(" ", text)))
    if "&" in text:
        text = ledger.step("character-entity", page, text, html.unescape(text))
    if "<" in text:
        bare = LITERAL_TAG.sub(" ", LITERAL_BLOCK.sub(" ", text))
        # a tag taken out before punctuation leaves no space there ("terms</a>." is "terms.")
        text = ledger.step("encoded-markup", page, text, re.sub(r"\s+(?=[.,;:!?)])", "", bare))
    return ledger.step("stray-mark", page, text, STRAY.sub(" ", text))


def text_block(
    text: str,
    page: int | None,
    printed: str | None = None,
    note: bool = False,
    *,
    ledger: Ledger,
    line: int | None = None,
) -> Block | None:
    text = " ".join(clean(text, page, ledger).split())
    if not text:
        return None
    kind = "item" if BULLET.match(text) else "para"
    if GLYPH.match(text):
        # The glyph becomes the draft's Markdown list mark: booked, not placed.
        rest = ledger.step("list-marker", page, text, GLYPH.sub("", text).strip())
        return Block("item", f"• {rest}", page, 0, note, printed, spans(rest, page), line) if rest else None
    return Block(kind, text, page, 0, note, printed, spans(text, page), line)


def heading_block(
    text: str, page: int | None, level: int, printed: str | None, ledger: Ledger, line: int | None = None
) -> Block | None:
    text = " ".join(clean(text, page, ledger).split())
    return Block("heading", text, page, level, False, printed, spans(text, page), line) if text else None


def row_block(
    cells: list[str], page: int | None, ledger: Ledger, line: int | None = None, boxes: tuple = ()
) -> Block | None:  # type: ignore[type-arg]
    cells = [" ".join(clean(c, page, ledger).split()) for c in cells]
    if not any(cells):
        return None
    text = " | ".join(c for c in cells if c)
    n = sum(nonspace(c) for c in cells)
    return Block("row", text, page, 0, False, None, ((page or 0, n),), line, tuple(cells), boxes)
