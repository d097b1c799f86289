"""The words of a PDF page as lines: rows of words with their size and weight, and the rows
of a cover table (ticks, crosses, Yes/No) read cell by cell."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import pairwise

BOLD = re.compile(r"bold|heavy|black|semibold|demi", re.I)


@dataclass
class Line:
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


def word_rows(words: list[dict]) -> list[list[dict]]:
    """Words in rows: those whose tops are within 2.5 points of the row's first word."""
    rows: list[list[dict]] = []
    for w in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if rows and abs(rows[-1][0]["top"] - w["top"]) <= 2.5:
            rows[-1].append(w)
        else:
            rows.append([w])
    return rows


def _attached(rows: list[list[dict]]) -> list[list[dict]]:
    """Rows with a mark or a raised ending set a little off their line put back in it: a row of
    one word, one character or smaller type, whose middle lies within the height of the row
    above or below it and which stands before that row's first word or touches one of its
    words (an "o" list mark in another typeface, set lower; an ordinal's raised "th")."""
    out = [list(row) for row in rows]
    for n, row in enumerate(out):
        if len(row) != 1:
            continue
        w = row[0]
        small = len(w["text"]) == 1 or w["size"] < 0.8 * median_size(
            [o for r in out[max(n - 1, 0) : n + 2] for o in r if o is not w]
        )
        middle = (w["top"] + w["bottom"]) / 2
        for other in (out[n - 1] if n else [], out[n + 1] if n + 1 < len(out) else []):
            if not small or not other or other is row:
                continue
            within = min(o["top"] for o in other) < middle < max(o["bottom"] for o in other)
            before = w["x1"] <= min(o["x0"] for o in other)
            touching = any(abs(w["x0"] - o["x1"]) < 0.5 for o in other)
            if within and (before or touching):
                other.append(w)
                row.clear()
                break
    return [row for row in out if row]


def _glued(row: list[dict]) -> list[dict]:
    """A row's words with a word's parts set in two styles and touching joined ("Claim" in bold
    and its "s" in plain type are "Claims"; "1/250" and its raised "th" are "1/250th")."""
    out: list[dict] = []
    for w in row:
        last = out[-1] if out else None
        if (
            last
            and abs(w["x0"] - last["x1"]) < 0.3
            and last["text"][-1:].isalnum()
            and w["text"][:1].isalnum()
        ):
            out[-1] = {
                **last,
                "text": last["text"] + w["text"],
                "x1": w["x1"],
                "bottom": max(last["bottom"], w["bottom"]),
            }
        else:
            out.append(w)
    return out


def _term_column(row: list[dict]) -> list[str]:
    """The words of a term set in bold in a column of its own, a wide space before its meaning
    (which may itself start in bold): the term's, whatever the weight of the words after it."""
    size = median_size(row)
    for n, (a, b) in enumerate(pairwise(row)):
        if b["x0"] - a["x1"] >= 3 * size:
            head = row[: n + 1]
            if n < 6 and all(BOLD.search(w["fontname"]) for w in head):
                return [w["text"] for w in head]
            return []
    return []


def lines_of(words: list[dict], column: str) -> list[Line]:
    lines = []
    for row in _attached(word_rows(words)):
        row = _glued(sorted(row, key=lambda w: w["x0"]))
        chars = sum(len(w["text"]) for w in row)
        bold = sum(len(w["text"]) for w in row if BOLD.search(w["fontname"])) > chars / 2
        size = Counter(round(w["size"], 1) for w in row).most_common(1)[0][0]
        prefix = []
        for w in row:
            if not BOLD.search(w["fontname"]):
                break
            prefix.append(w["text"])
        term = _term_column(row)
        lines.append(
            Line(
                min(w["top"] for w in row),
                max(w["bottom"] for w in row),
                row[0]["x0"],
                row[-1]["x1"],
                " ".join(w["text"] for w in row),
                size,
                bold,
                column,
                " ".join(term)
                or (" ".join(prefix) if not bold and 0 < len(prefix) <= 6 and len(prefix) < len(row) else ""),
            )
        )
    return lines


def median_size(words) -> float:  # type: ignore[no-untyped-def]
    sizes = sorted(w["size"] for w in words)
    return sizes[len(sizes) // 2] if sizes else 0.0


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


def cover_tables(page, words: list[dict]) -> list[Line]:  # type: ignore[no-untyped-def]
    """Rows of the page's cover tables, each cell's words assigned by where they sit; the
    words used are taken out of `words` (the rest of the page is read as lines)."""
    cues = sum(1 for w in words if w["text"] in TICKS or w["text"].lower().strip(".,") in VALUE_WORDS)
    if cues < 4 or not (page.rects or page.lines):
        return []
    rows_out: list[Line] = []
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
                Line(
                    min(w["top"] for w in used),
                    max(w["bottom"] for w in used),
                    row.bbox[0],
                    row.bbox[2],
                    " | ".join(c for c in joined_cells if c),
                    median_size(used),
                    False,
                    "main",
                    "",
                    joined_cells,
                    tuple(row.cells),
                )
            )
    return rows_out


@cache
def ligatures() -> dict[str, str]:
    from pdfplumber.utils.text import LIGATURES

    return dict(LIGATURES)
