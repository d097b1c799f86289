"""Layout-aware text of a wording (PDF, DOCX, HTML, Markdown) as a flat list of blocks.

Every format comes out the same way: headings with a level, paragraphs, list items and
table rows, each with the page it came from, running headers, footers and page numbers
removed, and sentences cut by a line or page break joined again. The segmenter reads
blocks and never the file.

PDF text comes from pdfplumber (MIT, on pdfminer.six). Compared with pypdf (BSD) on the
NRMA PDS and the AXA home wording: pypdf is about five times faster, but its layout mode
gives text only, while pdfplumber gives every word with its position, font and size. Those
are what tell a heading from a paragraph (size, weight), a side note or a second column
from the main text (position) and a running header from the body (position on the page),
so pdfplumber it is.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import cache
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path

from knowledge.importing.accounting import Ledger, nonspace
from knowledge.importing.bounds import ExtractionFailed, check_docx, check_pages, check_size
from knowledge.settings import ImportSettings

__all__ = ["Block", "ExtractionFailed", "extract"]

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


BULLET = re.compile(r"^\s*(?:[•▪●◦■\-–*]|\d{1,2}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\)|[ivx]{1,4}[.)])\s+")
GLYPH = re.compile(r"^\s*(?:[•▪●◦■]|[\-–*](?=\s))")
PAGE_NUMBER = re.compile(r"^(?:page\s+)?\d{1,3}(?:\s+of\s+\d{1,3})?$", re.I)
_END = re.compile(r"[.:;!?)\]”’\"]$")
SUPPORTED = (".pdf", ".docx", ".html", ".htm", ".md", ".markdown")
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


def extract(
    path: Path | str, ledger: Ledger | None = None, settings: ImportSettings | None = None
) -> list[Block]:
    """The wording's blocks; every character read is booked in the ledger (see accounting)."""
    path = Path(path)
    ledger = ledger if ledger is not None else Ledger()
    settings = settings or ImportSettings()
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise ExtractionFailed(
            f"{path}: cannot import {suffix or 'a file without extension'}; use PDF, DOCX, HTML or MD"
        )
    if not path.exists():
        raise ExtractionFailed(f"{path}: no such file")
    check_size(path, settings)
    if suffix == ".pdf":
        blocks = _from_pdf(path, ledger, settings)
    elif suffix == ".docx":
        check_docx(path, settings)
        blocks = _from_docx(path, ledger)
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise ExtractionFailed(
                f"{path}: not UTF-8 text (byte {exc.start}); save it again as UTF-8 and import that"
            ) from exc
        blocks = _from_html(text, ledger) if suffix in (".html", ".htm") else _from_markdown(text, ledger)
    blocks = rejoin(drop_furniture(blocks, ledger), ledger)
    if not any(b.kind != "heading" for b in blocks):
        raise ExtractionFailed(
            f"{path}: no text could be read (a scanned PDF has none); export the wording with its text "
            "layer or as DOCX and import that"
        )
    return blocks


# ---------------------------------------------------------------- cleaning, every format


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def drop_furniture(blocks: list[Block], ledger: Ledger | None = None) -> list[Block]:
    """Running headers, footers and page numbers: short lines at the top or bottom of a page
    that recur on many pages (digits ignored), and lines that are only a page number."""
    ledger = ledger if ledger is not None else Ledger()
    pages = {b.page for b in blocks if b.page is not None}
    if len(pages) < 3:
        kept = []
        for b in blocks:
            if PAGE_NUMBER.match(b.text.strip()):
                ledger.remove_spans("page-number", b.spans)
            else:
                kept.append(b)
        return kept
    edges: Counter[str] = Counter()
    by_page: dict[int | None, list[int]] = {}
    for i, b in enumerate(blocks):
        by_page.setdefault(b.page, []).append(i)
    top: set[int] = set()
    foot: set[int] = set()
    for page, idx in by_page.items():
        if page is None:
            continue
        edge = 2 if len(idx) >= 6 else 1  # on a short page the second block is the text
        top.update(idx[:edge])
        foot.update(idx[-edge:])
        for shape in {_shape(blocks[i].text) for i in idx[:edge] + idx[-edge:]}:
            edges[shape] += 1
    threshold = max(3, len(pages) // 4)
    # A label in the margin that several pages print (a section's tab: a name, a few words)
    # is the page's furniture; one printed once, or one that says something, is a side note.
    labels: dict[str, set[int | None]] = {}
    for b in blocks:
        if b.column == "margin" and len(b.text.split()) <= 6:
            labels.setdefault(_shape(b.text), set()).add(b.page)
    kept = []
    for i, b in enumerate(blocks):
        text = b.text.strip()
        if PAGE_NUMBER.match(text):
            ledger.remove_spans("page-number", b.spans)
            continue
        if b.column == "margin" and len(labels.get(_shape(text), ())) >= 2:
            ledger.remove_spans("margin-label", b.spans)
            continue
        if (i in top or i in foot) and edges[_shape(text)] >= threshold and len(text.split()) <= 12:
            ledger.remove_spans("running-header" if i in top else "running-footer", b.spans)
            continue
        kept.append(b)
    return kept


# A line that repeats its section's title as "… continued" at the top of a page.
_CONTINUED_LINE = re.compile(r"^.{3,80}\bcontinued\.?$", re.I)


def rejoin(blocks: list[Block], ledger: Ledger | None = None) -> list[Block]:
    """A paragraph or item that stops mid-sentence, followed (on the same or a later page, in
    this or the next column) by a paragraph that starts in lower case, is one sentence cut
    by the layout; a side note or a heading between the two does not end the sentence."""
    ledger = ledger if ledger is not None else Ledger()
    out: list[Block] = []
    for n, b in enumerate(blocks):
        after = blocks[n + 1] if n + 1 < len(blocks) else None
        last = next((o for o in reversed(out) if not o.note), None)
        if (
            b.kind == "para"
            and _CONTINUED_LINE.match(b.text)
            and len(b.text.split()) <= 10
            and last is not None
            and last.kind in ("para", "item")
            and not _END.search(last.text)
            and after is not None
            and after.text[:1].islower()
        ):
            # "Part A: Loss and damage continued" between the halves of a sentence cut by a page
            ledger.remove_spans("repeated-heading", b.spans)
            continue
        at = next((n for n in range(len(out) - 1, -1, -1) if not out[n].note), None)
        prev = out[at] if at is not None else None
        between = out[at + 1 :] if at is not None else []
        if (
            b.kind == "para"
            and not b.note
            and prev is not None
            and prev.kind in ("para", "item")
            and not _END.search(prev.text)
            and b.text[:1].islower()
            and (not between or all(x.note for x in between))
        ):
            out[at] = replace(prev, text=f"{prev.text} {b.text}", spans=joined(prev.spans, b.spans))
            continue
        out.append(b)
    return out


def _block(
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


def _heading(
    text: str, page: int | None, level: int, printed: str | None, ledger: Ledger, line: int | None = None
) -> Block | None:
    text = " ".join(clean(text, page, ledger).split())
    return Block("heading", text, page, level, False, printed, spans(text, page), line) if text else None


def _row(
    cells: list[str], page: int | None, ledger: Ledger, line: int | None = None, boxes: tuple = ()
) -> Block | None:  # type: ignore[type-arg]
    cells = [" ".join(clean(c, page, ledger).split()) for c in cells]
    if not any(cells):
        return None
    text = " | ".join(c for c in cells if c)
    n = sum(nonspace(c) for c in cells)
    return Block("row", text, page, 0, False, None, ((page or 0, n),), line, tuple(cells), boxes)


# ---------------------------------------------------------------- Markdown (extraction tools' output)

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_MD_NOISE = re.compile(r"^(?:NO_CONTENT_HERE|!\[.*\]\(.*\)|<!--.*-->)$")


def _plain(text: str) -> str:
    text = re.sub(r"<br\s*/?>", " ", text)
    text = re.sub(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text.replace("\\", "").strip()


def _from_markdown(text: str, ledger: Ledger | None = None) -> list[Block]:
    ledger = ledger if ledger is not None else Ledger()
    blocks: list[Block] = []
    page = 1
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        ledger.read(page, line)
        if re.fullmatch(r"-{3,}|\*{3,}|_{3,}", line):
            ledger.remove("page-break-mark", page, line)
            page += 1  # the extraction tools mark page breaks with a rule
            continue
        if not line:
            continue
        if _MD_NOISE.match(line):
            ledger.remove("extraction-placeholder", page, line)
            continue
        if m := _MD_HEADING.match(line):
            heading = ledger.step("markdown-syntax", page, line, _plain(m[2]))
            heading = ledger.step("heading-punctuation", page, heading, heading.strip(" :"))
            if b := _heading(heading, page, len(m[1]), None, ledger, number):
                blocks.append(b)
            continue
        if line.startswith("|"):
            cells = [_plain(c) for c in line.strip("|").split("|")]
            ledger.step("markdown-syntax", page, "".join(line.strip("|").split("|")), "".join(cells))
            ledger.remove("table-ruling", page, line.count("|"))
            if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
                ledger.remove("table-ruling", page, "".join(cells))
                continue
            if b := _row([c for c in cells if c], page, ledger, number):
                blocks.append(b)
            continue
        bare = ledger.step("markdown-syntax", page, line, _plain(line))
        if b := _block(re.sub(r"^[-*+]\s+", "• ", bare), page, ledger=ledger, line=number):
            blocks.append(b)
    return blocks


# ---------------------------------------------------------------- HTML


class _Html(HTMLParser):
    KINDS = {f"h{n}": ("heading", n) for n in range(1, 7)} | {
        "p": ("para", 0),
        "li": ("item", 0),
        "tr": ("row", 0),
    }
    SKIP = ("script", "style", "nav", "header", "footer")

    def __init__(self, ledger: Ledger) -> None:
        super().__init__()
        self.ledger = ledger
        self.blocks: list[Block] = []
        self.open: list[tuple[str, list[str], int]] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:  # type: ignore[type-arg]
        if tag in self.SKIP:
            self.skip += 1
        elif tag in self.KINDS:
            self.open.append((tag, [], self.getpos()[0]))
        elif tag in ("td", "th") and self.open and self.open[-1][0] == "tr":
            self.open[-1][1].append("\x1f")  # a cell boundary
        elif tag == "br" and self.open:
            self.open[-1][1].append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in self.KINDS and self.open and self.open[-1][0] == tag:
            _, parts, line = self.open.pop()
            kind, level = self.KINDS[tag]
            raw = "".join(parts)
            if kind == "row":
                if b := _row([c for c in raw.split("\x1f") if c.strip()], None, self.ledger, line):
                    self.blocks.append(b)
            elif kind == "heading":
                if b := _heading(raw, None, level, None, self.ledger, line):
                    self.blocks.append(b)
            elif b := _block(raw, None, ledger=self.ledger, line=line):
                if kind == "item" and b.kind != "item":
                    b = replace(b, kind="item", text=f"• {b.text}")
                self.blocks.append(b)

    def handle_data(self, data: str) -> None:
        self.ledger.read(None, data)
        if self.skip:
            self.ledger.remove("html-script-or-style", None, data)
            return
        if self.open:
            self.open[-1][1].append(data)
        elif data.strip() and (b := _block(data, None, ledger=self.ledger, line=self.getpos()[0])):
            self.blocks.append(b)


def _from_html(text: str, ledger: Ledger | None = None) -> list[Block]:
    parser = _Html(ledger if ledger is not None else Ledger())
    parser.feed(text)
    parser.close()
    return parser.blocks


# ---------------------------------------------------------------- DOCX


def _from_docx(path: Path, ledger: Ledger | None = None) -> list[Block]:
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
                if b := _heading(text, None, int(m[1] or 1), None, ledger, number):
                    blocks.append(b)
            elif b := _block(text, None, ledger=ledger, line=number):
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
                if b := _row([c.text for c in cells if c.text.strip()], None, ledger, number):
                    blocks.append(b)
    return blocks


# ---------------------------------------------------------------- PDF

# Wordings print defined terms in bold: these at the start of a line are words, not a term row.
PRONOUNS = frozenset("we us our you your they their he she it what where when who if".split())
_BOLD = re.compile(r"bold|heavy|black|semibold|demi", re.I)


@dataclass
class _Line:
    top: float
    bottom: float
    x0: float
    x1: float
    text: str
    size: float
    bold: bool
    column: str  # "main", "right" (a second column), "side" (a narrow side note column) or "margin"
    bold_prefix: str = ""  # leading bold words of a line that goes on in normal weight
    cells: tuple[str, ...] = ()  # a table row: its cells, read as a table
    boxes: tuple[tuple[float, float, float, float] | None, ...] = ()


def _rows(words: list[dict]) -> list[list[dict]]:
    """Words in rows: those whose tops are within 2.5 points of the row's first word."""
    rows: list[list[dict]] = []
    for w in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if rows and abs(rows[-1][0]["top"] - w["top"]) <= 2.5:
            rows[-1].append(w)
        else:
            rows.append([w])
    return rows


def _lines_of(words: list[dict], column: str) -> list[_Line]:
    lines = []
    for row in _rows(words):
        row.sort(key=lambda w: w["x0"])
        chars = sum(len(w["text"]) for w in row)
        bold = sum(len(w["text"]) for w in row if _BOLD.search(w["fontname"])) > chars / 2
        size = Counter(round(w["size"], 1) for w in row).most_common(1)[0][0]
        prefix = []
        for w in row:
            if not _BOLD.search(w["fontname"]):
                break
            prefix.append(w["text"])
        lines.append(
            _Line(
                min(w["top"] for w in row),
                max(w["bottom"] for w in row),
                row[0]["x0"],
                row[-1]["x1"],
                " ".join(w["text"] for w in row),
                size,
                bold,
                column,
                " ".join(prefix) if not bold and 0 < len(prefix) <= 6 and len(prefix) < len(row) else "",
            )
        )
    return lines


def _median_size(words) -> float:  # type: ignore[no-untyped-def]
    sizes = sorted(w["size"] for w in words)
    return sizes[len(sizes) // 2] if sizes else 0.0


def _gutter(words: list[dict], width: float) -> float | None:
    """The x of a gap between two columns, if the page has one: rows with text on both sides
    of it are split by a wide space there (not a word space, as in ragged single-column
    text), and almost no row has a word across it."""
    if len(words) < 40:
        return None
    rows: dict[int, list[dict]] = {}
    for w in words:
        rows.setdefault(round(w["top"] / 3), []).append(w)
    best: tuple[int, int] | None = None
    # A column's left edge is where words start: only those places are tried.
    candidates = sorted({int(w["x0"]) - 2 for w in words if width * 0.2 < w["x0"] < width * 0.8})
    for x in [c for n, c in enumerate(candidates) if n == 0 or c - candidates[n - 1] > 2]:
        crossing = 0
        starts: Counter[int] = Counter()
        for row in rows.values():
            if any(w["x0"] < x - 2 and w["x1"] > x + 2 for w in row):
                crossing += 1
                continue
            right = [w["x0"] for w in row if w["x0"] >= x]
            left = [w["x1"] for w in row if w["x1"] <= x]
            if right and (not left or min(right) - max(left) >= 12):
                starts[round(min(right) / 4)] += 1
        # A column has a left edge: its rows start at one x (justified text's wide spaces do not).
        good = (
            sum(n for key, n in starts.items() if abs(key - starts.most_common(1)[0][0]) <= 1)
            if starts
            else 0
        )
        # A side-note column (near the edge, in smaller type) may hold only a few rows.
        side = x > width * 0.65 and _median_size(w for w in words if w["x0"] >= x) < _median_size(
            w for w in words if w["x1"] <= x
        )
        if good >= (3 if side else 5) and crossing <= max(2, len(rows) // 12):
            score = good - 3 * crossing
            if best is None or score > best[1]:
                best = (x, score)
    return best[0] if best else None


# A table whose cells say included or not (ticks, crosses, Yes/No, Optional) is read as a
# table: a cover table. Other ruled boxes (a wording laid out in boxed columns) stay text.
TICKS = frozenset("✓✗✔✘✕✖")
VALUE_WORDS = frozenset("yes no optional included covered".split())


# A cell that is a value and nothing else.
_VALUE_CELL = re.compile(
    r"^(?:[✓✗✔✘✕✖]|yes|no|optional(?: extra)?|included|not included|covered|not covered|n/?a|[-–]"
    r"|(?:up to )?(?:[A-Z]{3} ?)?[$£€]\s?[\d,.]+(?:\s*\w+){0,3})$",
    re.I,
)


def _tables(page, words: list[dict]) -> list[_Line]:  # type: ignore[no-untyped-def]
    """Rows of the page's cover tables, each cell's words assigned by where they sit; the
    words used are taken out of `words` (the rest of the page is read as lines)."""
    cues = sum(1 for w in words if w["text"] in TICKS or w["text"].lower().strip(".,") in VALUE_WORDS)
    if cues < 4 or not (page.rects or page.lines):
        return []
    rows_out: list[_Line] = []
    for table in page.find_tables():
        rows = [r for r in table.rows if any(c is not None for c in r.cells)]
        width = max((len(r.cells) for r in rows), default=0)
        if len(rows) < 3 or width < 3:
            continue
        x0, top, x1, bottom = table.bbox
        inside = [
            w
            for w in words
            if x0 <= (w["x0"] + w["x1"]) / 2 <= x1 and top <= (w["top"] + w["bottom"]) / 2 <= bottom
        ]
        texts: list[list[list[dict]]] = [[[] for _ in r.cells] for r in rows]
        for w in inside:
            cx, cy = (w["x0"] + w["x1"]) / 2, (w["top"] + w["bottom"]) / 2
            for r, row in enumerate(rows):
                for c, box in enumerate(row.cells):
                    if box and box[0] <= cx <= box[2] and box[1] <= cy <= box[3]:
                        texts[r][c].append(w)
                        break
                else:
                    continue
                break
        placed = {id(w) for row in texts for cell in row for w in cell}
        if len(placed) < len(inside) * 0.95:
            continue  # the ruling does not hold the words: read the page as text
        values = sum(
            1
            for row in texts
            for cell in row[1:]
            if _VALUE_CELL.match(" ".join(w["text"] for w in cell).strip(" .,"))
        )
        if values < 3:
            continue  # boxed columns of prose that says "covered": a layout, read as columns
        short = [cell for row in texts[1:] for cell in row[1:] if cell]
        if not short or sum(1 for cell in short if len(cell) <= 8) < 0.6 * len(short):
            continue  # long text in boxes is a layout, not a table of values
        words[:] = [w for w in words if id(w) not in placed]
        for row, cells in zip(rows, texts, strict=True):
            joined_cells = tuple(
                " ".join(w["text"] for w in sorted(cell, key=lambda w: (round(w["top"]), w["x0"])))
                for cell in cells
            )
            if not any(joined_cells):
                continue
            used = [w for cell in cells for w in cell]
            rows_out.append(
                _Line(
                    min(w["top"] for w in used),
                    max(w["bottom"] for w in used),
                    row.bbox[0],
                    row.bbox[2],
                    " | ".join(c for c in joined_cells if c),
                    _median_size(used),
                    False,
                    "main",
                    "",
                    joined_cells,
                    tuple(row.cells),
                )
            )
    return rows_out


@cache
def _ligatures() -> dict[str, str]:
    from pdfplumber.utils.text import LIGATURES

    return dict(LIGATURES)


def _page_lines(page, ledger: Ledger, number: int) -> list[_Line]:  # type: ignore[no-untyped-def]
    # Counted as the words are read: pdfplumber expands a ligature glyph ("ﬁ") to its letters,
    # so the source count does too, or each ligature would be booked twice.
    ledger.read(number, "".join(_ligatures().get(c["text"], c["text"]) for c in page.chars))
    words = page.extract_words(extra_attrs=["size", "fontname"], x_tolerance=1.5, keep_blank_chars=False)
    # A section's number printed huge beside its title is a tab, not part of the title.
    typical = _median_size(words)
    for w in words:
        if w["text"].isdigit() and w["size"] >= 2.5 * typical:
            ledger.remove("section-tab-number", number, w["text"])
    words = [w for w in words if not (w["text"].isdigit() and w["size"] >= 2.5 * typical)]
    # A label in the outer margin beside the text (a section's tab) is read apart from the
    # lines it sits beside; its number printed large is the tab's, as above.
    label = _margin_label(words, page.width)
    taken = {id(w) for w in label}
    for w in label:
        if w["text"].isdigit() and w["size"] >= 1.5 * typical:
            ledger.remove("section-tab-number", number, w["text"])
    label = [w for w in label if not (w["text"].isdigit() and w["size"] >= 1.5 * typical)]
    words = [w for w in words if id(w) not in taken]
    margin = _lines_of(label, "margin")
    table_rows = _tables(page, words)
    gutter = _ruled(page, _gutter(words, page.width), words)
    if gutter is None:
        if table_rows or margin:
            return _reading_order(_lines_of(words, "main") + table_rows + margin)
        return _lines_of(words, "main")
    side = page.width - gutter < page.width * 0.32
    crossing = [w for w in words if w["x0"] < gutter - 3 and w["x1"] > gutter + 3]
    full_rows = {round(w["top"]) for w in crossing}
    full = [w for w in words if round(w["top"]) in full_rows]
    # A row whose words meet across the gutter at a word space is one line of text that runs
    # over it (a paragraph set across the page above the columns), not two columns' lines.
    for row in _rows(words):
        before = [w["x1"] for w in row if w["x0"] < gutter]
        after = [w["x0"] for w in row if w["x0"] >= gutter]
        if before and after and min(after) - max(before) < 0.6 * _median_size(row):
            full.extend(w for w in row if round(w["top"]) not in full_rows)
    taken = {id(w) for w in full}
    rest = [w for w in words if id(w) not in taken]
    left = [w for w in rest if w["x0"] < gutter]
    right = [w for w in rest if w["x0"] >= gutter]
    lines = _lines_of(full, "main") + _lines_of(left, "main") + _lines_of(right, "side" if side else "right")
    return _reading_order(lines + table_rows + margin)


def _margin_label(words: list[dict], width: float) -> list[dict]:
    """The words of a label printed in the outer margin beside the text (a section's tab, a
    side heading): a stack of at most six short lines in the right-hand part of the page, each
    apart from the text on its row by a wide space, with nothing else in that margin for three
    lines above and below, and lines of text running beside it. Read with the text, its words
    land in the middle of the lines it sits beside; a label alone on its rows is left as it
    is read (a line of its own)."""
    if len(words) < 20:
        return []
    typical = _median_size(words)
    ends: list[list[dict]] = []  # the last run of each row, after a wide space, near the edge
    for row in _rows(words):
        row = sorted(row, key=lambda w: w["x0"])
        runs = [[row[0]]]
        for w in row[1:]:
            if w["x0"] - runs[-1][-1]["x1"] >= 2 * typical:
                runs.append([w])
            else:
                runs[-1].append(w)
        if runs[-1][0]["x0"] >= 0.6 * width and len(runs[-1]) <= 5:
            ends.append(runs[-1])
    stacks: list[list[dict]] = []
    lines_in: list[int] = []
    for run in sorted(ends, key=lambda r: min(w["top"] for w in r)):
        top = min(w["top"] for w in run)
        x0, x1 = min(w["x0"] for w in run), max(w["x1"] for w in run)
        last = stacks[-1] if stacks else None
        if (
            last
            and top - max(w["bottom"] for w in last) <= 1.5 * typical
            and x0 < max(w["x1"] for w in last)
            and x1 > min(w["x0"] for w in last)
        ):
            last.extend(run)
            lines_in[-1] += 1
        else:
            stacks.append(list(run))
            lines_in.append(1)
    out: list[dict] = []
    for stack, lines in zip(stacks, lines_in, strict=True):
        if lines > 6 or not re.search(r"[A-Za-z]{2,}", " ".join(w["text"] for w in stack)):
            continue
        ids = {id(w) for w in stack}
        x0, x1 = min(w["x0"] for w in stack), max(w["x1"] for w in stack)
        top, bottom = min(w["top"] for w in stack), max(w["bottom"] for w in stack)
        others = [w for w in words if id(w) not in ids]
        if any(
            w["x1"] > x0 - 2
            and w["x0"] < x1 + 2
            and w["bottom"] > top - 3 * typical
            and w["top"] < bottom + 3 * typical
            for w in others
        ):
            continue  # a column or a table's cells, not a label
        beside = [w for w in others if w["x1"] < x0 and w["bottom"] > top and w["top"] < bottom]
        if len(beside) >= 3:
            out.extend(stack)
    return out


def _ruled(page, gutter: float | None, words: list[dict]) -> float | None:  # type: ignore[no-untyped-def]
    """The gutter on the rule printed between two boxed columns, where there is one: words
    start a few points right of the rule (or on it, in a box drawn round the column), so a
    gutter found from where words start can fall past the first words of the second column
    and read them into the first. No word crosses such a rule, so the split is just left of it."""
    # A rule may be drawn as one stroke or as a stroke per table row: pieces at one x that
    # meet are one rule. A rule that a word runs across (within the rule's height) is no
    # column's edge: a box inside a column, a table's ruling.
    pieces: dict[int, list[tuple[float, float]]] = {}
    for e in page.edges:
        if e["orientation"] == "v" and page.width * 0.3 < e["x0"] < page.width * 0.7:
            pieces.setdefault(round(e["x0"]), []).append((e["top"], e["bottom"]))
    rules = []
    for x, spans in sorted(pieces.items()):
        runs: list[list[float]] = []
        for top, bottom in sorted(spans):
            if runs and top <= runs[-1][1] + 2:
                runs[-1][1] = max(runs[-1][1], bottom)
            else:
                runs.append([top, bottom])
        top, bottom = max(runs, key=lambda r: r[1] - r[0])
        crossed = any(
            w["x0"] < x - 1 and w["x1"] > x + 1 and w["top"] < bottom and w["bottom"] > top for w in words
        )
        if bottom - top > 0.2 * page.height and not crossed and not (rules and x - rules[-1] <= 3):
            rules.append(x)  # (the two edges of one stroke drawn as a thin box are one rule)
    if gutter is not None:
        # A gutter found from where words start can be an indent inside the second column (its
        # bullets' text); the rule left of it is the column's edge.
        near = [x for x in rules if -40 <= x - gutter <= 15]
        return min(near, key=lambda x: abs(x - gutter)) - 1 if near else gutter
    return rules[0] - 1 if len(rules) == 1 else None


def _reading_order(lines: list[_Line]) -> list[_Line]:
    """Bands from top to bottom, broken at full-width rows and at headings of the first
    column; in each band the first column, then the second, then side notes."""
    mains = sorted((ln for ln in lines if ln.column == "main"), key=lambda ln: ln.top)
    others = sorted((ln for ln in lines if ln.column != "main"), key=lambda ln: ln.top)
    # A heading stands apart from the line above it; a line of bold terms inside a paragraph
    # ("you, your family and") follows it at the paragraph's line spacing and breaks nothing.
    breaks = [
        ln.top
        for n, ln in enumerate(mains)
        if (
            ln.bold
            and len(ln.text.split()) <= 10
            and (n == 0 or ln.top - mains[n - 1].bottom > 0.5 * ln.size or ln.cells)
        )
        or re.match(r"\d{1,2}\.\s", ln.text)
    ]

    def cuts_a_paragraph(y: float) -> bool:
        # Columns that run on independently (no row of the first lines up with the second):
        # a break there would read the second column's paragraph in pieces between the first's.
        # (A side note beside a heading is read after its band, as before.)
        second = [ln for ln in others if ln.column == "right"]
        for a, b in pairwise(second):
            if a.top < y - 4 <= b.top:
                ends = _END.search(a.text.strip()) and (b.text[:1].isupper() or BULLET.match(b.text))
                return b.top - a.bottom < 0.5 * b.size and not ends
        return False

    breaks = [y for y in breaks if not cuts_a_paragraph(y)]
    # A side note or margin label is read whole in the band where it starts: its lines that
    # run on (at its line spacing) past a heading of the text beside it stay with it.
    anchor: dict[int, float] = {}
    for n, ln in enumerate(others):
        prev = next((o for o in reversed(others[:n]) if o.column == ln.column), None)
        runs_on = (
            ln.column in ("side", "margin") and prev is not None and ln.top - prev.bottom < 0.9 * ln.size
        )
        anchor[id(ln)] = anchor[id(prev)] if runs_on and prev is not None else ln.top
    out: list[_Line] = []
    bounds = [*breaks, float("inf")]
    start = float("-inf")
    for stop in bounds:
        out.extend(ln for ln in mains if start <= ln.top < stop)
        out.extend(ln for ln in others if start - 4 <= anchor[id(ln)] < stop - 4)
        start = stop
    return out


def _from_pdf(path: Path, ledger: Ledger, settings: ImportSettings) -> list[Block]:
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
    pages: list[tuple[int, float, list[_Line]]] = []
    with pdf:
        for number, page in enumerate(pdf.pages, start=1):
            # Page by page: a page's layout is freed once its lines are read, so memory stays
            # bounded by one page and the lines, whatever the page count.
            try:
                pages.append((number, page.height, _page_lines(page, ledger, number)))
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
    lines: list[_Line],
    page: int,
    printed: str | None,
    body: float,
    heading_sizes: list[float],
    all_sizes: list[float],
    ledger: Ledger,
) -> list[Block]:
    """Lines of one page as blocks; a heading's level is its size's rank in the document
    (at most 4), a bold line at body size is the lowest level."""
    out: list[Block] = []
    current: list[str] = []
    current_note = False
    last: _Line | None = None

    current_column = ""

    def flush() -> None:
        nonlocal current
        if current and (b := _block(" ".join(current), page, printed, current_note, ledger=ledger)):
            out.append(replace(b, column=current_column) if current_column else b)
        current = []

    for ln in lines:
        if ln.cells:
            flush()
            if row := _row(list(ln.cells), page, ledger, boxes=ln.boxes):
                out.append(replace(row, printed_page=printed))
            last = ln
            continue
        text = ln.text.strip()
        words = len(text.split())
        level = 0
        if len(re.findall(r"[A-Za-z]{2,}", text)) < 1 or re.search(r"[✓✗✔✘]", text):
            level = 0  # a row of ticks and crosses in a table, not a heading
        elif ln.size in heading_sizes and words <= 14 and ln.column == "main":
            level = _level(ln.size, all_sizes, body)
        elif (
            ln.bold
            and ln.column == "main"
            and words <= 9
            and text[:1].isupper() | text[:1].isdigit()
            and not _END.search(text)
            and (not BULLET.match(text) or re.match(r"\d{1,2}\.\s", text))
            and abs(ln.size - body) < 1.0
        ):
            level = len(all_sizes) + 1
        elif (
            ln.bold_prefix
            and ln.column == "main"
            and ln.bold_prefix[:1].isupper()
            and ln.bold_prefix.lower().strip(" ,") not in PRONOUNS
            and not ln.bold_prefix.endswith(",")
            and text[len(ln.bold_prefix) :].strip()[:1].isupper()
            and not BULLET.match(text)
            and (last is None or ln.top - last.bottom > ln.size * 0.6)
        ):
            # A term in bold at the start of a row, its meaning after it: a definitions table.
            flush()
            if h := _heading(ln.bold_prefix, page, len(all_sizes) + 1, printed, ledger):
                out.append(h)
            text = text[len(ln.bold_prefix) :].strip()
            current_note = False
        if level:
            flush()
            prev = out[-1] if out else None
            head = _heading(text, page, level, printed, ledger)
            if head is None:
                pass
            elif (
                prev
                and prev.kind == "heading"
                and prev.level == level
                and last is not None
                and ln.top - last.bottom < ln.size
            ):  # a heading over two lines
                out[-1] = replace(prev, text=f"{prev.text} {head.text}", spans=joined(prev.spans, head.spans))
            else:
                out.append(head)
            last = ln
            continue
        note = ln.column in ("side", "margin")
        gap = ln.top - last.bottom if last is not None else 0
        # A line wholly beside the one above it, not below it (a page number in the corner
        # under the last line, a block set beside another), does not carry on its paragraph.
        apart = last is not None and (ln.x0 > last.x1 + 1 or ln.x1 < last.x0 - 1)
        new = (
            not current
            or BULLET.match(text)
            or note != current_note
            or apart
            or (last is not None and (gap > ln.size * 0.9 or ln.column != last.column))
            or (current and current[-1].endswith(":"))
        )
        if new:
            flush()
            current_note = note
            current_column = ln.column if ln.column in ("right", "margin") else ""
        current.append(text)
        last = ln
    flush()
    return out
