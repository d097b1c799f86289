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

import re
from collections import Counter
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path

from knowledge.errors import KnowledgeError


class ExtractionFailed(KnowledgeError):
    """The file cannot be read as a wording; the message says what to do."""


@dataclass(frozen=True)
class Block:
    kind: str  # "heading", "para", "item" (a list item or numbered item) or "row" (a table row)
    text: str
    page: int | None = None  # the file's own page (1-based) where the block starts
    level: int = 0  # heading level, 1 is the top
    note: bool = False  # a side note beside the text, not the text itself
    printed_page: str | None = None  # the page number printed on that page, if found


BULLET = re.compile(r"^\s*(?:[•▪●◦■\-–*]|\d{1,2}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\)|[ivx]{1,4}[.)])\s+")
PAGE_NUMBER = re.compile(r"^(?:page\s+)?\d{1,3}(?:\s+of\s+\d{1,3})?$", re.I)
_END = re.compile(r"[.:;!?)\]”’\"]$")
SUPPORTED = (".pdf", ".docx", ".html", ".htm", ".md", ".markdown")


def extract(path: Path | str) -> list[Block]:
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise ExtractionFailed(
            f"{path}: cannot import {suffix or 'a file without extension'}; use PDF, DOCX, HTML or MD"
        )
    if not path.exists():
        raise ExtractionFailed(f"{path}: no such file")
    if suffix == ".pdf":
        blocks = _from_pdf(path)
    elif suffix == ".docx":
        blocks = _from_docx(path)
    elif suffix in (".html", ".htm"):
        blocks = _from_html(path.read_text(encoding="utf-8", errors="replace"))
    else:
        blocks = _from_markdown(path.read_text(encoding="utf-8", errors="replace"))
    blocks = rejoin(drop_furniture(blocks))
    if not any(b.kind != "heading" for b in blocks):
        raise ExtractionFailed(
            f"{path}: no text could be read (a scanned PDF has none); export the wording with its text "
            "layer or as DOCX and import that"
        )
    return blocks


# ---------------------------------------------------------------- cleaning, every format


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def drop_furniture(blocks: list[Block]) -> list[Block]:
    """Running headers, footers and page numbers: short lines at the top or bottom of a page
    that recur on many pages (digits ignored), and lines that are only a page number."""
    pages = {b.page for b in blocks if b.page is not None}
    if len(pages) < 3:
        return [b for b in blocks if not PAGE_NUMBER.match(b.text.strip())]
    edges: Counter[str] = Counter()
    by_page: dict[int | None, list[int]] = {}
    for i, b in enumerate(blocks):
        by_page.setdefault(b.page, []).append(i)
    edge_index: set[int] = set()
    for page, idx in by_page.items():
        if page is None:
            continue
        edge = 2 if len(idx) >= 6 else 1  # on a short page the second block is the text
        ends = idx[:edge] + idx[-edge:]
        edge_index.update(ends)
        for shape in {_shape(blocks[i].text) for i in ends}:
            edges[shape] += 1
    threshold = max(3, len(pages) // 4)
    kept = []
    for i, b in enumerate(blocks):
        text = b.text.strip()
        if PAGE_NUMBER.match(text):
            continue
        if i in edge_index and edges[_shape(text)] >= threshold and len(text.split()) <= 12:
            continue
        kept.append(b)
    return kept


def rejoin(blocks: list[Block]) -> list[Block]:
    """A paragraph or item that stops mid-sentence, followed (on the same or the next page)
    by a paragraph that starts in lower case, is one sentence cut by the layout."""
    out: list[Block] = []
    for b in blocks:
        prev = next((o for o in reversed(out) if not o.note), None)
        if (
            b.kind == "para"
            and not b.note
            and prev is not None
            and prev is out[-1]
            and prev.kind in ("para", "item")
            and not _END.search(prev.text)
            and b.text[:1].islower()
        ):
            out[-1] = replace(prev, text=f"{prev.text} {b.text}")
            continue
        out.append(b)
    return out


def _block(text: str, page: int | None, printed: str | None = None, note: bool = False) -> Block | None:
    text = " ".join(text.split())
    if not text:
        return None
    kind = "item" if BULLET.match(text) else "para"
    return Block(kind, text, page, 0, note, printed)


# ---------------------------------------------------------------- Markdown (extraction tools' output)

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_MD_NOISE = re.compile(r"^(?:NO_CONTENT_HERE|!\[.*\]\(.*\)|<!--.*-->)$")


def _plain(text: str) -> str:
    text = re.sub(r"<br\s*/?>", " ", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\*\*|__|(?<!\w)\*(?!\s)|(?<!\s)\*(?!\w)", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text.replace("\\", "").strip()


def _from_markdown(text: str) -> list[Block]:
    blocks: list[Block] = []
    page = 1
    for raw in text.splitlines():
        line = raw.strip()
        if re.fullmatch(r"-{3,}|\*{3,}|_{3,}", line):
            page += 1  # the extraction tools mark page breaks with a rule
            continue
        if not line or _MD_NOISE.match(line):
            continue
        if m := _MD_HEADING.match(line):
            heading = _plain(m[2]).strip(" :")
            if heading:
                blocks.append(Block("heading", heading, page, len(m[1])))
            continue
        if line.startswith("|"):
            cells = [_plain(c) for c in line.strip("|").split("|")]
            if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
                continue
            row = " | ".join(c for c in cells if c)
            if row:
                blocks.append(Block("row", row, page))
            continue
        if b := _block(_plain(re.sub(r"^[-*+]\s+", "• ", line)), page):
            blocks.append(b)
    return blocks


# ---------------------------------------------------------------- HTML


class _Html(HTMLParser):
    KINDS = {f"h{n}": ("heading", n) for n in range(1, 7)} | {
        "p": ("para", 0),
        "li": ("item", 0),
        "tr": ("row", 0),
    }

    def __init__(self) -> None:
        super().__init__()
        self.blocks: list[Block] = []
        self.open: list[tuple[str, list[str]]] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:  # type: ignore[type-arg]
        if tag in ("script", "style", "nav", "header", "footer"):
            self.skip += 1
        elif tag in self.KINDS:
            self.open.append((tag, []))
        elif tag in ("td", "th") and self.open and self.open[-1][0] == "tr":
            self.open[-1][1].append(" | ")
        elif tag == "br" and self.open:
            self.open[-1][1].append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "nav", "header", "footer"):
            self.skip = max(0, self.skip - 1)
        elif tag in self.KINDS and self.open and self.open[-1][0] == tag:
            _, parts = self.open.pop()
            text = " ".join("".join(parts).split()).strip(" |")
            kind, level = self.KINDS[tag]
            if text:
                if kind == "item" and not BULLET.match(text):
                    text = f"• {text}"
                self.blocks.append(Block(kind, text, None, level))

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.open:
            self.open[-1][1].append(data)
        elif data.strip():
            self.blocks.append(Block("para", " ".join(data.split())))


def _from_html(text: str) -> list[Block]:
    parser = _Html()
    parser.feed(text)
    parser.close()
    return parser.blocks


# ---------------------------------------------------------------- DOCX


def _from_docx(path: Path) -> list[Block]:
    import docx  # python-docx (MIT)

    document = docx.Document(str(path))
    blocks: list[Block] = []
    body = document.element.body
    for child in body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            paragraph = docx.text.paragraph.Paragraph(child, document)
            text = " ".join(paragraph.text.split())
            if not text:
                continue
            style = (paragraph.style.name if paragraph.style is not None else "") or ""
            if m := re.match(r"(?:Heading|Title)\s*(\d?)", style):
                blocks.append(Block("heading", text, None, int(m[1] or 1)))
            elif "List" in style:
                blocks.append(Block("item", text if BULLET.match(text) else f"• {text}"))
            elif b := _block(text, None):
                blocks.append(b)
        elif tag == "tbl":
            table = docx.table.Table(child, document)
            for row in table.rows:
                cells = list(dict.fromkeys(" ".join(c.text.split()) for c in row.cells))
                if text := " | ".join(c for c in cells if c):
                    blocks.append(Block("row", text))
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
    column: str  # "main", "right" (a second column) or "side" (a narrow side note column)
    bold_prefix: str = ""  # leading bold words of a line that goes on in normal weight


def _lines_of(words: list[dict], column: str) -> list[_Line]:
    rows: list[list[dict]] = []
    for w in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if rows and abs(rows[-1][0]["top"] - w["top"]) <= 2.5:
            rows[-1].append(w)
        else:
            rows.append([w])
    lines = []
    for row in rows:
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


def _page_lines(page) -> list[_Line]:  # type: ignore[no-untyped-def]
    words = page.extract_words(extra_attrs=["size", "fontname"], x_tolerance=1.5, keep_blank_chars=False)
    # A section's number printed huge beside its title is a tab, not part of the title.
    typical = _median_size(words)
    words = [w for w in words if not (w["text"].isdigit() and w["size"] >= 2.5 * typical)]
    gutter = _gutter(words, page.width)
    if gutter is None:
        return _lines_of(words, "main")
    side = page.width - gutter < page.width * 0.32
    crossing = [w for w in words if w["x0"] < gutter - 3 and w["x1"] > gutter + 3]
    full_rows = {round(w["top"]) for w in crossing}
    full = [w for w in words if round(w["top"]) in full_rows]
    rest = [w for w in words if round(w["top"]) not in full_rows]
    left = [w for w in rest if w["x0"] < gutter]
    right = [w for w in rest if w["x0"] >= gutter]
    lines = _lines_of(full, "main") + _lines_of(left, "main") + _lines_of(right, "side" if side else "right")
    return _reading_order(lines)


def _reading_order(lines: list[_Line]) -> list[_Line]:
    """Bands from top to bottom, broken at full-width rows and at headings of the first
    column; in each band the first column, then the second, then side notes."""
    mains = sorted((ln for ln in lines if ln.column == "main"), key=lambda ln: ln.top)
    others = sorted((ln for ln in lines if ln.column != "main"), key=lambda ln: ln.top)
    breaks = [
        ln.top
        for ln in mains
        if (ln.bold and len(ln.text.split()) <= 10) or re.match(r"\d{1,2}\.\s", ln.text)
    ]
    out: list[_Line] = []
    bounds = [*breaks, float("inf")]
    start = float("-inf")
    for stop in bounds:
        out.extend(ln for ln in mains if start <= ln.top < stop)
        out.extend(ln for ln in others if start - 4 <= ln.top < stop - 4)
        start = stop
    return out


def _from_pdf(path: Path) -> list[Block]:
    import pdfplumber

    try:
        pdf = pdfplumber.open(str(path))
    except Exception as exc:
        raise ExtractionFailed(f"{path}: cannot be opened as a PDF ({exc}); export it again") from exc
    pages: list[tuple[int, float, list[_Line]]] = []
    with pdf:
        for number, page in enumerate(pdf.pages, start=1):
            pages.append((number, page.height, _page_lines(page)))
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
        blocks.extend(_page_blocks(lines, number, printed, page_body, sizes_here, heading_sizes))
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
) -> list[Block]:
    """Lines of one page as blocks; a heading's level is its size's rank in the document
    (at most 4), a bold line at body size is the lowest level."""
    out: list[Block] = []
    current: list[str] = []
    current_note = False
    last: _Line | None = None

    def flush() -> None:
        nonlocal current
        if current and (b := _block(" ".join(current), page, printed, current_note)):
            out.append(b)
        current = []

    for ln in lines:
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
            and (last is None or ln.top - last.bottom > ln.size * 0.9)
        ):
            # A term in bold at the start of a row, its meaning after it: a definitions table.
            flush()
            out.append(Block("heading", ln.bold_prefix, page, len(all_sizes) + 1, False, printed))
            text = text[len(ln.bold_prefix) :].strip()
            current_note = False
        if level:
            flush()
            prev = out[-1] if out else None
            if (
                prev
                and prev.kind == "heading"
                and prev.level == level
                and last is not None
                and ln.top - last.bottom < ln.size
            ):
                out[-1] = replace(prev, text=f"{prev.text} {text}")  # a heading over two lines
            else:
                out.append(Block("heading", text, page, level, False, printed))
            last = ln
            continue
        note = ln.column == "side"
        gap = ln.top - last.bottom if last is not None else 0
        new = (
            not current
            or BULLET.match(text)
            or note != current_note
            or (last is not None and (gap > ln.size * 0.9 or ln.column != last.column))
            or (current and current[-1].endswith(":"))
        )
        if new:
            flush()
            current_note = note
        current.append(text)
        last = ln
    flush()
    return out
