"""Tables printed without rules: columns found by where the page's words line up, read row by
row. A benefits table (a benefit, its limit, the page that tells more) and a box of blocks set
side by side (ways to contact the insurer) are both such a grid; read as lines, the first is
read column by column once a gutter is found between its columns, and the second line by
line across the blocks.

A row starts where the space above a line is wider than the text's line spacing (tables pad
their rows; a cell wrapping onto a second line does not), and a column's edge is a strip of
the table that no word covers. Two columns of running text line up too: a grid is taken only
where its rows are short (at most about three lines each) and, with two columns, there are at
least two rows, so that paragraphs set side by side stay columns; nor is a list (its marks set
apart), a contents page or a column of bold terms beside their meanings (see `_is_grid`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from knowledge.importing.extract.blocks import BULLET
from knowledge.importing.extract.pdf_words import BOLD, Line, median_size, word_rows

# The space above a line, in its size, that starts a row (the text's own spacing is below it).
_ROW_GAP = 0.45
# The space between two words, in their size, that may be a column's edge (a word space is
# about a quarter of it).
_CELL_GAP = 0.5


@dataclass
class _Row:
    """One row of a grid: its printed lines, the first holding the row's leading cell."""

    lines: list[list[dict]]

    @property
    def words(self) -> list[dict]:
        return [w for line in self.lines for w in line]


def _runs(line: list[dict]) -> int:
    """How many runs of words a printed line has, split where a wide space could be a column's edge."""
    size = median_size(line)
    return 1 + sum(1 for a, b in pairwise(line) if b["x0"] - a["x1"] >= _CELL_GAP * size)


def _rows(lines: list[list[dict]]) -> list[list[_Row]]:
    """Runs of consecutive rows whose first line has at least two runs of words: the tables to
    try. A row whose first line is one run (a band heading, a paragraph) ends a run, and the
    lines that carry it on are its own."""
    out: list[list[_Row]] = [[]]
    last: list[dict] | None = None
    in_row = False  # whether the line above belongs to a row being gathered
    for line in lines:
        size = median_size(line)
        gap = min(w["top"] for w in line) - max(w["bottom"] for w in last) if last else size
        if last is not None and -size < gap < _ROW_GAP * size:
            if in_row and _within(line, out[-1][-1].lines[0]):
                out[-1][-1].lines.append(line)  # a cell wrapping onto the next line
        elif _runs(line) >= 2:
            out[-1].append(_Row([line]))
            in_row = True
        else:
            if out[-1]:
                out.append([])
            in_row = False
        last = line
    return [rows for rows in out if rows]


def _within(line: list[dict], first: list[dict]) -> bool:
    """A line that carries a row on lies under the row (a page number printed just under a
    table's last row, right of it, does not)."""
    size = median_size(first)
    return line[0]["x0"] >= first[0]["x0"] - size and line[0]["x0"] <= first[-1]["x1"]


def _edges(rows: list[_Row]) -> list[tuple[float, float]]:
    """The strips (x from, x to) between a table's columns: no word of the table covers them,
    and they are wide enough to be no word space."""
    words = [w for r in rows for w in r.words]
    size = median_size(words)
    spans = sorted((w["x0"], w["x1"]) for w in words)
    strips = []
    reach = spans[0][1]
    for x0, x1 in spans[1:]:
        if x0 - reach >= _CELL_GAP * size:
            strips.append((reach, x0))
        reach = max(reach, x1)
    return strips


def _is_grid(rows: list[_Row], columns: int, cells: list[list[list[dict]]]) -> bool:
    """Rows of a table rather than columns of running text: short rows (one row alone only if
    its cells run over lines: read as a line, it reads in order), each column used by most
    rows, each row's first cell in the first column; not a list (its marks set apart from the
    items' text), a contents page (its leaders) nor terms in bold beside their meanings (read
    as headed text)."""
    lines = sum(len(r.lines) for r in rows) / len(rows)
    if columns < 2 or lines > 3 or (columns == 2 and (len(rows) < 2 or lines > 2.5)):
        return False
    if len(rows) == 1 and lines < 2:
        return False
    if any(not row[0] for row in cells) or any(_entries(row) for row in cells):
        return False
    if any(_listed(cell) or (cell and not re.search(r"\w", _text(cell))) for row in cells for cell in row):
        return False  # a list, or a contents page's dotted leaders
    if sum(1 for row in cells if all(BOLD.search(w["fontname"]) for w in row[0])) * 2 > len(rows):
        return False
    used = [sum(1 for row in cells if row[c]) for c in range(columns)]
    return all(n * 2 >= len(rows) for n in used)


def _entries(cells: list[list[dict]]) -> bool:
    """A row of several lines whose last column holds a lone number on each: a contents list,
    each line an entry of its own (read as lines), not a cell wrapping."""
    lines = word_rows(cells[-1])
    return len(lines) >= 2 and all(len(line) == 1 and line[0]["text"].isdigit() for line in lines)


def _listed(cell: list[dict]) -> bool:
    """A cell holding a list mark at the start of one of its lines."""
    lines = word_rows(cell)
    return any(BULLET.match(min(line, key=lambda w: w["x0"])["text"] + " ") for line in lines)


def _text(cell: list[dict]) -> str:
    return " ".join(w["text"] for w in sorted(cell, key=lambda w: (round(w["top"]), w["x0"])))


def _cells(row: _Row, edges: list[tuple[float, float]]) -> list[list[dict]]:
    out: list[list[dict]] = [[] for _ in range(len(edges) + 1)]
    for w in row.words:
        column = sum(1 for _, right in edges if w["x0"] >= right - 0.5)
        out[column].append(w)
    return out


Edges = list[tuple[float, float]]


def _line(row: _Row, cells: list[list[dict]], edges: Edges, span: tuple[float, float]) -> Line:
    """A row as a line of cells, each cell's box from the table's column edges and the row's height."""
    words = row.words
    top, bottom = min(w["top"] for w in words), max(w["bottom"] for w in words)
    texts = tuple(_text(cell) for cell in cells)
    bounds = [span[0], *(x for edge in edges for x in edge), span[1]]
    boxes = tuple((bounds[2 * n], top, bounds[2 * n + 1], bottom) for n in range(len(cells)))
    return Line(
        top,
        bottom,
        bounds[0],
        bounds[-1],
        " | ".join(t for t in texts if t),
        median_size(words),
        False,
        "main",
        "",
        texts,
        boxes,
    )


def unruled_tables(words: list[dict]) -> list[Line]:
    """Rows of the page's tables printed without rules, each a line of cells; the words used
    are taken out of `words` (the rest of the page is read as lines)."""
    lines = [sorted(row, key=lambda w: w["x0"]) for row in word_rows(words)]
    out: list[Line] = []
    taken: set[int] = set()
    for rows in _rows(lines):
        edges = _edges(rows)
        cells = [_cells(r, edges) for r in rows]
        if not _is_grid(rows, len(edges) + 1, cells):
            continue
        words_in = [w for r in rows for w in r.words]
        span = (min(w["x0"] for w in words_in), max(w["x1"] for w in words_in))
        for row, row_cells in zip(rows, cells, strict=True):
            out.append(_line(row, row_cells, edges, span))
            taken.update(id(w) for w in row.words)
    if taken:
        words[:] = [w for w in words if id(w) not in taken]
    return out
