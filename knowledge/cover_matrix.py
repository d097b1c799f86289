"""The cover matrix: which cover levels and options include which parts or benefits, read
from where a wording states it, and drafted as applies lines for review.

Three ways wordings state it, each read into cells that keep the text they came from and
where (PDF page and cell box, or source line), so every cell can be checked against the
source (see `check_cell`):
- a table whose header names cover levels, its cells ticks, crosses, "Optional" or a limit;
- statements under the cover levels' own headings ("All parts of the policy apply", "You
  are not covered under Parts A, D and E");
- a section heading that says which level or option it needs ("(optional extra)", "only
  included if you have comprehensive cover").
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from knowledge.applicability import PLAN_WORDS, heading_words, slug
from knowledge.extract import Block
from knowledge.segment import Unit

INCLUDED, NOT_INCLUDED, OPTIONAL, LIMITED = "included", "not included", "optional", "limited"
_TICK = re.compile(r"^[✓✔]$|^yes$|^(automatically )?included$|^covered$", re.I)
_CROSS = re.compile(r"^[✗✘✕✖]$|^no$|^not (included|covered)$|^-$", re.I)
_OPTIONAL = re.compile(r"^optional\b", re.I)
_LEVEL_SUFFIX = re.compile(r"\s+(insurance|cover|policy)$", re.I)
_NOT_PARTS = re.compile(r"not covered under parts? ([A-Z](?:[^.;]*?))(?:\band other\b|[.;]|$)", re.I)
_ALL_PARTS = re.compile(r"\ball parts of the policy apply\b", re.I)
_ONLY_IF = re.compile(r"only included if you have ([a-z ]{3,40}?) cover", re.I)
_OPTIONAL_HEADING = re.compile(r"\(optional( extra| cover)?\)", re.I)


@dataclass(frozen=True)
class Cell:
    row: str  # the part or benefit
    column: str  # the cover level or option
    value: str  # included, not included, optional or limited
    text: str  # the source's own words for it: the cell, the sentence or the heading
    page: int | None = None
    line: int | None = None
    box: tuple[float, float, float, float] | None = None


@dataclass
class Matrix:
    levels: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)
    stated_by: list[str] = field(default_factory=list)  # "table", "statements", "headings"

    def as_dict(self) -> dict[str, object]:
        return {
            "levels": self.levels,
            "options": self.options,
            "rows": self.rows,
            "stated_by": self.stated_by,
            "cells": [asdict(c) for c in self.cells],
        }


def value_of(text: str) -> str:
    t = text.strip()
    if _TICK.match(t):
        return INCLUDED
    if _CROSS.match(t):
        return NOT_INCLUDED
    if _OPTIONAL.match(t):
        return OPTIONAL
    return LIMITED


def _level_name(text: str, plans: list[str]) -> str:
    """A column header as the plan the wording names, if it is one ("Comprehensive Insurance"
    and the plan "Comprehensive" are one level)."""
    bare = _LEVEL_SUFFIX.sub("", text.strip())
    for plan in plans:
        if _LEVEL_SUFFIX.sub("", plan).lower().replace("&", "and") == bare.lower().replace("&", "and"):
            return plan
    return text.strip()


def _tables(blocks: list[Block]) -> list[list[Block]]:
    tables: list[list[Block]] = []
    for b in blocks:
        if b.kind != "row" or len(b.cells) < 3:
            # A row label the layout set apart (a heading between rows) does not end the table.
            if tables and tables[-1] and b.kind != "row" and b.kind != "heading":
                tables.append([])
            continue
        if not tables:
            tables.append([])
        tables[-1].append(b)
    return [t for t in tables if len(t) >= 3]


def _from_tables(blocks: list[Block], plans: list[str], m: Matrix) -> None:
    for table in _tables(blocks):
        header = next((r for r in table if sum(1 for c in r.cells[1:] if PLAN_WORDS.search(c)) >= 2), None)
        if header is None:
            continue
        columns = [_level_name(c, plans) if c else "" for c in header.cells]
        m.stated_by.append(f"table on page {header.page}" if header.page else "table")
        for level in columns[1:]:
            if level and level not in m.levels:
                m.levels.append(level)
        for row in table[table.index(header) + 1 :]:
            name = row.cells[0].strip()
            if not name or len(row.cells) != len(columns):
                continue
            if not any(c.strip() for c in row.cells[1:]):
                continue  # a label over the rows below it ("Options you can add")
            # A row with an "Optional" cell is an option for that level: its schedule entry.
            if any(value_of(c) == OPTIONAL for c in row.cells[1:] if c) and slug(name) not in m.options:
                m.options.append(slug(name))
            values = list(
                zip(columns[1:], row.cells[1:], row.boxes[1:] or [None] * len(columns), strict=False)
            )
            if not any(v for _, v, _ in values):
                continue
            m.rows.append(name) if name not in m.rows else None
            for level, text, box in values:
                if level and text:
                    m.cells.append(Cell(name, level, value_of(text), text, row.page, row.line, box))


def _from_statements(units: list[Unit], plans: list[str], m: Matrix) -> None:
    parts = list(
        dict.fromkeys(u.path[0] for u in units if u.path and re.match(r"part [a-z]\b", u.path[0], re.I))
    )
    if not parts:
        return
    letters = {re.match(r"part ([a-z])", p, re.I)[1].upper(): p for p in parts}  # type: ignore[index]
    found = False
    for unit in units:
        plan = next((p for p in plans if p.lower() == unit.heading.lower()), None)
        if plan is None:
            continue
        for b in unit.blocks:
            for sentence in re.split(r"(?<=[.;])\s+", re.sub(r"^•\s*", "", b.text)):
                if _ALL_PARTS.search(sentence):
                    for part in parts:
                        m.cells.append(Cell(part, plan, INCLUDED, sentence, b.page, b.line))
                    found = True
                elif (hit := _NOT_PARTS.search(sentence)) and not re.search(
                    r"\bsections?\b", sentence[: hit.end()], re.I
                ):
                    for letter in re.findall(r"(?<![\w–-])([A-Z])(?![\w])", hit[1]):
                        if letter in letters:
                            m.cells.append(
                                Cell(letters[letter], plan, NOT_INCLUDED, sentence, b.page, b.line)
                            )
                            found = True
                elif re.search(r"\bpart ([A-Z])\b", sentence) and re.search(
                    r"only covered|not covered", sentence, re.I
                ):
                    for letter in re.findall(r"\bParts? ([A-Z])\b", sentence):
                        if letter in letters:
                            m.cells.append(Cell(letters[letter], plan, LIMITED, sentence, b.page, b.line))
                            found = True
        if plan not in m.levels:
            m.levels.append(plan)
    if found:
        m.stated_by.append("statements under the cover levels")
        for part in parts:
            if part not in m.rows and any(c.row == part for c in m.cells):
                m.rows.append(part)


def _from_headings(blocks: list[Block], m: Matrix) -> None:
    seen: set[str] = set()
    for b in blocks:
        if b.kind != "heading":
            continue
        if hit := _ONLY_IF.search(b.text):
            level = hit[1].strip().title()
            section = re.split(r"\s*\(", b.text)[0].strip()
            if level not in m.levels:
                m.levels.append(level)
            m.cells.append(Cell(section, level, INCLUDED, hit[0], b.page, b.line))
            seen.add(section)
        elif _OPTIONAL_HEADING.search(b.text):
            section = _OPTIONAL_HEADING.split(b.text)[0].strip()
            option = slug(re.sub(r"^(?:section|part)\s+[a-z0-9]{1,3}\s*[:–—-]\s*", "", section, flags=re.I))
            if not option or section in seen:
                continue
            if option not in m.options:
                m.options.append(option)
            m.cells.append(
                Cell(section, option, OPTIONAL, _OPTIONAL_HEADING.search(b.text)[0], b.page, b.line)
            )  # type: ignore[index]
            seen.add(section)
    if seen:
        m.stated_by.append("section headings")
        m.rows.extend(r for r in dict.fromkeys(c.row for c in m.cells) if r not in m.rows)


def cover_matrix(units: list[Unit], blocks: list[Block], plans: list[str]) -> Matrix:
    m = Matrix()
    _from_tables(blocks, plans, m)
    _from_statements(units, plans, m)
    _from_headings(blocks, m)
    return m


# ---------------------------------------------------------------- drafted applies lines


# Words a section heading may add to a row's name ("Section 1 – Overseas medical expenses").
_HEADING_EXTRA = {"section", "part", "optional", "benefit", "benefits", "extra", "cover", "insurance"}


def _row_units(row: str, units: list[Unit]) -> list[int]:
    """Units a matrix row names: their part, or a heading with the row's words and no others
    than a section's label."""
    words = heading_words(row) - _HEADING_EXTRA
    out = []
    for n, unit in enumerate(units):
        if (unit.path and unit.path[0] == row) or (
            words
            and any(
                words <= heading_words(h) and not (heading_words(h) - words - _HEADING_EXTRA)
                for h in unit.path[1:]
            )
        ):
            out.append(n)
    return out


def apply_matrix(
    m: Matrix, units: list[Unit], ids: list[str], applies: list[dict], plans: list[str]
) -> list[dict]:
    """The applies fields with the matrix drafted in: a unit of a row gets the levels whose
    cell includes it (optional cells add the option as added_by for that level's units)."""
    out = [dict(a) for a in applies]
    levels = [lv for lv in m.levels if lv in plans]
    for row in m.rows:
        cells = {c.column: c for c in m.cells if c.row == row}
        for n in _row_units(row, units):
            fields = out[n]
            own = fields.get("plans", ())
            if own and len(own) == 1:
                cell = cells.get(own[0])
                if cell and cell.value == OPTIONAL:
                    fields["added_by"] = tuple(dict.fromkeys([*fields.get("added_by", ()), slug(row)]))
                continue  # a unit of one level's own part: its part says the level
            named = [lv for lv in levels if lv in cells]
            if not named:
                continue
            keep = [lv for lv in levels if cells.get(lv) is None or cells[lv].value != NOT_INCLUDED]
            if keep != levels:
                fields["plans"] = tuple(keep)
            if all(cells[lv].value == OPTIONAL for lv in keep if lv in cells):
                # optional wherever it applies: the schedule entry adds it
                fields["added_by"] = tuple(dict.fromkeys([*fields.get("added_by", ()), slug(row)]))
    return out


# ---------------------------------------------------------------- checking a cell at its source


def _words(text: str) -> str:
    return " ".join(re.sub(r"[*_`|#\\]+|<br\s*/?>", " ", text).split()).lower()


def cells_not_at_source(source: Path, cells: list[Cell]) -> list[Cell]:
    """The cells whose text is not what their place in the source says: the words inside the
    cell's box on its PDF page (the page's text for a statement), or its source line
    (Markdown, HTML) or paragraph (DOCX). Read afresh from the file, not from the import."""
    wrong = []
    if source.suffix.lower() == ".pdf":
        import pdfplumber

        with pdfplumber.open(str(source)) as pdf:
            for cell in cells:
                if cell.page is None or not 0 < cell.page <= len(pdf.pages):
                    wrong.append(cell)
                    continue
                page = pdf.pages[cell.page - 1]
                area = page.crop(cell.box) if cell.box else page
                if _words(cell.text) not in _words(area.extract_text() or ""):
                    wrong.append(cell)
        return wrong
    lines = source_lines(source)
    for cell in cells:
        if (
            cell.line is None
            or not 0 < cell.line <= len(lines)
            or _words(cell.text) not in _words(lines[cell.line - 1])
        ):
            wrong.append(cell)
    return wrong


def source_lines(source: Path) -> list[str]:
    """A text source's lines, or a DOCX's paragraphs and tables, as the importer numbers them."""
    if source.suffix.lower() == ".docx":
        import docx

        body = docx.Document(str(source)).element.body
        return [" ".join(" ".join(child.itertext()).split()) for child in body.iterchildren()]
    return source.read_text(encoding="utf-8").splitlines()
