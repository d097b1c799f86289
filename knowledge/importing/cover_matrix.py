"""The cover matrix: which cover levels and options include which parts or benefits, read
from where a wording states it, and drafted as applies lines for review.

Four ways wordings state it, each read into cells that keep the text they came from and
where (PDF page and cell box, or source line), so every cell can be checked against the
source (see `cells_not_at_source`):
- a table whose header names cover levels, its cells ticks, crosses, "Optional" or a limit;
- statements under the cover levels' own headings ("All parts of the policy apply", "You
  are not covered under Parts A, D and E");
- under a type-of-cover heading or table, each type followed by the sections that apply to
  it ("Sections A to H apply", "Section G applies in respect of fire only", "Sections I and
  J only apply if stated on your schedule"), even where the table came out as running text;
- a section heading that says which level or option it needs ("(optional extra)", "only
  included if you have comprehensive cover").
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from knowledge.importing.applicability import PLAN_WORDS, heading_words, section_name, slug
from knowledge.importing.extract.blocks import Block
from knowledge.importing.segment import Unit

INCLUDED, NOT_INCLUDED, OPTIONAL, LIMITED = "included", "not included", "optional", "limited"
_TICK = re.compile(r"^[✓✔]$|^yes$|^(automatically )?included$|^covered$", re.I)
_CROSS = re.compile(r"^[✗✘✕✖]$|^no$|^not (included|covered)$|^-$", re.I)
_OPTIONAL = re.compile(r"^optional\b", re.I)
_LEVEL_SUFFIX = re.compile(r"\s+(insurance|cover|policy)$", re.I)
_NOT_PARTS = re.compile(r"not covered under parts? ([A-Z](?:[^.;]*?))(?:\band other\b|[.;]|$)", re.I)
_ALL_PARTS = re.compile(r"\ball parts of the policy apply\b", re.I)
_ONLY_IF = re.compile(r"only included if you have ([a-z ]{3,40}?) cover", re.I)
_OPTIONAL_HEADING = re.compile(r"\(optional( extra| cover)?\)", re.I)
# A section's own heading: "Section A - …", "Part 3: …" (not "Section L1" or "Section 3.1").
_SECTION_HEADING = re.compile(r"^(?:section|part)\s+([A-Z]|\d{1,2})(?!\w|\.\d)", re.I)
# Where a wording says which sections each type of cover has: its heading or table header.
_COVER_TYPES = re.compile(
    r"\b(?:types?|levels?|choice) of (?:cover|insurance)\b|\bcover (?:types?|levels?|options)\b", re.I
)
_SECTION_ID = r"(?:[A-Z]|\d{1,2})(?!\w)"
# Statements such as "Sections 1 to 4 apply", "Sections 2, 3 & 6 apply", "Section 5 applies to
# fire only", and options such as "Sections 7 and 8 apply if shown in the schedule".
_SECTIONS_APPLY = re.compile(
    rf"\b(?i:sections?|parts?)\s+({_SECTION_ID}(?:\s*(?:,|&|\band\b|\bto\b|[-–—])\s*{_SECTION_ID})*)"
    r"\s+(?i:only\s+)?(?i:appl(?:y|ies))\b"
)
_IF_CHOSEN = re.compile(
    r"\bif (?:stated|shown|listed|named) (?:on|in) (?:your|the) schedule\b"
    r"|\bif you (?:have )?(?:chose|choose|buy|bought|select|selected|add|added)\b|\boptional\b",
    re.I,
)
# A statement that narrows a section for the type ("Section 5 applies to storm damage only"):
# the type has that section in part, not whole.
_IN_PART = re.compile(
    r"\bappl(?:y|ies)\s+(?:only\s+)?(?:in respect of|to|for)\b[^.;]*?\bonly\b"
    r"|\bappl(?:y|ies)\s+only\s+(?:in respect of|to|for)\b",
    re.I,
)
# Table header words before the first type of cover ("Type of cover  Sections that apply").
_HEADER_WORDS = re.compile(
    r"^.*?(?:types? of (?:cover|insurance)|cover (?:types?|levels?))\s*(?:sections? (?:that|which) apply)?|"
    r"sections? (?:that|which) apply",
    re.I,
)


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
    # What each table row is, from the sub-heading it sits under (or its cells): cover,
    # liability, option, exclusion or excess. An exclusion row is never an option.
    kinds: dict[str, str] = field(default_factory=dict)
    # What a table held that could not be read into cells: a decision for the owner each.
    unread: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        plain = asdict(self)
        plain["cells"] = plain.pop("cells")  # last, where every stored import report has them
        return plain


def value_of(text: str) -> str:
    t = text.strip()
    if _TICK.match(t):
        return INCLUDED
    if _CROSS.match(t):
        return NOT_INCLUDED
    if _OPTIONAL.match(t):
        return OPTIONAL
    return LIMITED


# A footnote's mark beside a header cell's name ("Comprehensive¹", "1 Comprehensive", "Plus*").
_FOOTNOTE_MARK = re.compile(
    r"^(?:\d{1,2}|[*†‡§]+)\s+(?=[A-Za-z])|(?<=[A-Za-z])\s*(?:[¹²³⁴⁵⁶⁷⁸⁹⁰]+|\d{1,2}|[*†‡§]+)$"
)
# A limit printed in a row's label ("Child seats – $650 per seat", "… up to $5,000").
_LABEL_LIMIT = re.compile(
    r"\s*(?:[–—-]|,|\(|:)?\s*(?:up to\s+)?(?:[A-Z]{2,3}\s?)?[$£€]\s?\d.*$|\s*[–—-]\s*\d.*$", re.I
)
# What the rows under a sub-heading inside a table are.
_GROUP_KINDS = (
    ("exclusion", re.compile(r"not (?:pay|cover)|exclu|not included|we won.t", re.I)),
    ("option", re.compile(r"option|add(?:-| )?on|can add|extras?\b", re.I)),
    ("excess", re.compile(r"\bexcess", re.I)),
    ("liability", re.compile(r"liabilit", re.I)),
    ("cover", re.compile(r".")),
)


def row_label(text: str) -> str:
    """A row's label without the limit printed in it: the name a section heading has."""
    return _LABEL_LIMIT.sub("", text).strip() or text.strip()


def level_name_of(text: str) -> str:
    """A header cell's level name as printed, without a footnote's mark."""
    return " ".join(_FOOTNOTE_MARK.sub("", text.strip()).split())


def group_kind(label: str) -> str:
    return next(kind for kind, words in _GROUP_KINDS if words.search(label))


def _level_name(text: str, plans: list[str]) -> str:
    """A column header as the plan the wording names, if it is one ("Comprehensive Insurance"
    and the plan "Comprehensive" are one level); a footnote's mark is not part of the name."""
    text = level_name_of(text)
    bare = _LEVEL_SUFFIX.sub("", text.strip())
    for plan in plans:
        if _LEVEL_SUFFIX.sub("", plan).lower().replace("&", "and") == bare.lower().replace("&", "and"):
            return plan
    return text.strip()


def _tables(blocks: list[Block]) -> list[list[Block]]:
    tables: list[list[Block]] = []
    for b in blocks:
        if b.kind == "row" and len(b.cells) < 3 and tables and tables[-1]:
            tables[-1].append(b)  # a sub-heading across the table (one merged cell) is one of its rows
            continue
        if b.kind != "row" or len(b.cells) < 3:
            # A row label the layout set apart (a heading between rows) does not end the table.
            if tables and tables[-1] and b.kind != "row" and b.kind != "heading":
                tables.append([])
            continue
        if not tables:
            tables.append([])
        tables[-1].append(b)
    return [t for t in tables if sum(1 for r in t if len(r.cells) >= 3) >= 3]


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
        group = "cover"
        for row in table[table.index(header) + 1 :]:
            name = row.cells[0].strip()
            if name and len([c for c in row.cells if c.strip()]) == 1 and len(row.cells) < len(columns):
                group = group_kind(name)  # a sub-heading in one merged cell (DOCX, HTML)
                continue
            if not name or len(row.cells) != len(columns):
                if any(c.strip() for c in row.cells):
                    m.unread.append(
                        {
                            "text": " | ".join(c for c in row.cells if c.strip()),
                            "page": row.page,
                            "line": row.line,
                            "why": "its cells do not line up with the header's levels"
                            if name
                            else "it has values but no name",
                        }
                    )
                continue
            if not any(c.strip() for c in row.cells[1:]):
                # A sub-heading inside the table ("Legal liability", "Optional benefits you can
                # add", "What we will not pay"): it says what the rows below it are.
                group = group_kind(name)
                continue
            values_here = [value_of(c) for c in row.cells[1:] if c.strip()]
            kind = group
            if values_here and all(v == NOT_INCLUDED for v in values_here):
                kind = "exclusion"  # a cross for every level: what no level pays
            elif kind == "exclusion" and any(v != NOT_INCLUDED for v in values_here):
                kind = "cover"
            m.kinds[name] = kind
            # A row with an "Optional" cell is an option for that level: its schedule entry.
            if (
                kind != "exclusion"
                and any(v == OPTIONAL for v in values_here)
                and slug(row_label(name)) not in m.options
            ):
                m.options.append(slug(row_label(name)))
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
                elif re.search(r"\b[Pp]arts? ([A-Z])\b", sentence) and re.search(
                    r"only covered|not covered", sentence, re.I
                ):
                    # "Part A is only covered where …", "not covered under sections 2 and 5 of
                    # Part A": the level has the part in part (one cell, the first statement's).
                    for letter in re.findall(r"\b[Pp]arts? ([A-Z])\b", sentence):
                        had = any(c.row == letters.get(letter) and c.column == plan for c in m.cells)
                        if letter in letters and not had:
                            m.cells.append(Cell(letters[letter], plan, LIMITED, sentence, b.page, b.line))
                            found = True
        if plan not in m.levels:
            m.levels.append(plan)
        _the_rest_included(m, plan, parts)
    if found:
        m.stated_by.append("statements under the cover levels")
        for part in parts:
            if part not in m.rows and any(c.row == part for c in m.cells):
                m.rows.append(part)


def _the_rest_included(m: Matrix, plan: str, parts: list[str]) -> None:
    """A level stated by what it does not cover ("You are not covered under Parts A, D and E")
    has every other part: each gets an included cell citing that statement."""
    said = [c for c in m.cells if c.column == plan]
    if not any(c.value == NOT_INCLUDED for c in said):
        return
    stated = next(c for c in said if c.value == NOT_INCLUDED)
    for part in parts:
        if not any(c.row == part for c in said):
            m.cells.append(dataclasses.replace(stated, row=part, value=INCLUDED))


def _from_headings(blocks: list[Block], m: Matrix) -> None:
    seen: set[str] = set()
    for b in blocks:
        if b.kind != "heading":
            continue
        if hit := _ONLY_IF.search(b.text):
            level = hit[1].strip().title()
            section = re.split(r"\s*\(", b.text)[0].strip()
            if any(c.row == section and c.column == level for c in m.cells):
                continue  # what the type-of-cover statements said already
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


def _sections(blocks: list[Block]) -> dict[str, str]:
    """The wording's sections in order: their letter or number and their row name (the heading
    without what follows a bracket, as a section heading's row is named)."""
    out: dict[str, str] = {}
    for b in blocks:
        if b.kind == "heading" and (hit := _SECTION_HEADING.match(b.text)):
            out.setdefault(hit[1].upper(), re.split(r"\s*\(", b.text)[0].strip())
    return out


def _section_ids(listed: str, order: list[str]) -> list[str]:
    """The sections a list names, in the wording's order: "A to H" and "A-H" are ranges of
    the sections the wording has, "B,C & H" and "I, J and L" each one."""
    out: list[str] = []
    tokens = re.findall(rf"{_SECTION_ID}|\bto\b|[-–—]", listed)
    n = 0
    while n < len(tokens):
        first = tokens[n].upper()
        if n + 2 < len(tokens) and tokens[n + 1] in ("to", "-", "–", "—"):
            last = tokens[n + 2].upper()
            if first in order and last in order and order.index(first) <= order.index(last):
                out.extend(order[order.index(first) : order.index(last) + 1])
            n += 3
            continue
        if first in order:
            out.append(first)
        n += 1
    return list(dict.fromkeys(out))


@dataclass
class _Stated:
    name: str  # the type of cover, as its words came (a table cell can wrap onto two lines)
    said: list[tuple[list[str], str, str, Block]] = field(default_factory=list)  # (ids, value, text, at)


def _types_of_cover(run: list[Block], order: list[str]) -> list[_Stated]:
    """Each type of cover in a run of text and what its statements say: the words before a
    statement name a new type, unless they go on in lower case (the rest of a wrapped name)."""
    stated: list[_Stated] = []
    for b in run:
        hits = list(_SECTIONS_APPLY.finditer(b.text))
        if not hits:
            continue
        before = _HEADER_WORDS.sub("", b.text[: hits[0].start()]).strip(" :–—-|")
        if before and before[0].islower() and stated:
            stated[-1].name += f" {before}"
        elif before:
            stated.append(_Stated(before))
        if not stated or len(stated[-1].name.split()) > 8:
            return []  # not a statement of a type of cover
        for n, hit in enumerate(hits):
            end = hits[n + 1].start() if n + 1 < len(hits) else len(b.text)
            text = re.split(r"(?<=[.;])\s", b.text[hit.start() : end])[0].strip()
            text = re.sub(r"[\s,;]*\b(?:and|but)$", "", text).strip(" ,")
            ids = _section_ids(hit[1], order)
            if ids:
                value = INCLUDED
                if _IF_CHOSEN.search(text):
                    value = OPTIONAL
                elif _IN_PART.search(text):
                    value = LIMITED  # kept by the level, as included is, its cell saying in part
                stated[-1].said.append((ids, value, text, b))
    return stated


def _from_sections_that_apply(blocks: list[Block], plans: list[str], m: Matrix) -> None:
    sections = _sections(blocks)
    order = list(sections)
    if not order:
        return
    runs: list[tuple[str, list[Block]]] = [("", [])]
    for b in blocks:
        if b.kind == "heading":
            runs.append((b.text, []))
        else:
            runs[-1][1].append(b)
    found = False
    for heading, run in runs:
        if not (_COVER_TYPES.search(heading) or any(_COVER_TYPES.search(b.text) for b in run[:3])):
            continue
        stated = _types_of_cover(run, order)
        # A type whose every statement is "only if stated on your schedule" is the options:
        # optional under every type of cover.
        levels = [s for s in stated if any(v != OPTIONAL for _, v, _, _ in s.said)]
        everywhere = [x for s in stated if s not in levels for x in s.said]
        # Sections some type includes: a type that does not name one of them does not have it.
        included = [
            i for i in order if any(i in ids for s in levels for ids, v, _, _ in s.said if v == INCLUDED)
        ]
        for s in levels:
            level = _level_name(s.name, plans)
            if level not in m.levels:
                m.levels.append(level)
            for ids, value, text, b in [*s.said, *everywhere]:
                for i in ids:
                    m.cells.append(Cell(sections[i], level, value, text, b.page, b.line))
                    if value == OPTIONAL and section_name(sections[i]) not in m.options:
                        m.options.append(section_name(sections[i]))
            named = {i for ids, _, _, _ in [*s.said, *everywhere] for i in ids}
            _, _, text, b = s.said[0]
            for i in included:
                if i not in named:
                    m.cells.append(Cell(sections[i], level, NOT_INCLUDED, text, b.page, b.line))
            found = True
    if found:
        m.stated_by.append("sections that apply to each type of cover")
        m.rows.extend(
            r for i in order if (r := sections[i]) not in m.rows and any(c.row == r for c in m.cells)
        )


def cover_matrix(units: list[Unit], blocks: list[Block], plans: list[str]) -> Matrix:
    m = Matrix()
    _from_tables(blocks, plans, m)
    _from_statements(units, plans, m)
    _from_sections_that_apply(blocks, plans, m)
    _from_headings(blocks, m)
    return m


# ---------------------------------------------------------------- drafted applies lines


# Words a section heading may add to a row's name ("Section 1 – Overseas medical expenses").
_HEADING_EXTRA = {"section", "part", "optional", "benefit", "benefits", "extra", "cover", "insurance"}


def _row_units(row: str, units: list[Unit]) -> list[int]:
    """Units a matrix row names: their part, or a heading with the row's words and no others
    than a section's label."""
    row = row_label(row)
    words = heading_words(row) - _HEADING_EXTRA
    # A lettered section's row also has its numbered subsections ("Section L1" is part of L).
    own = _SECTION_HEADING.match(row)
    subsection = None
    if own:  # "Section L1" under L, "Section 6.2" under 6 (but not "Section 12" under 1)
        more = r"\d*" if own[1].isalpha() else r"(?:\.\d+)*"
        subsection = re.compile(rf"(?:section|part)\s+{own[1]}{more}(?!\w|\.\d)", re.I)
    out = []
    for n, unit in enumerate(units):
        in_section = subsection is not None and any(subsection.match(h) for h in unit.path)
        if (unit.path and (unit.path[0] == row or in_section)) or (
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
        if m.kinds.get(row) == "exclusion":
            continue  # what no level pays applies to every claimant: never a level's, never an option
        cells = {c.column: c for c in m.cells if c.row == row}
        for n in _row_units(row, units):
            fields = out[n]
            own = fields.get("plans", ())
            if own and len(own) == 1:
                cell = cells.get(own[0])
                if cell and cell.value == OPTIONAL:
                    fields["added_by"] = tuple(
                        dict.fromkeys([*fields.get("added_by", ()), section_name(row_label(row))])
                    )
                continue  # a unit of one level's own part: its part says the level
            named = [lv for lv in levels if lv in cells]
            if not named:
                continue
            keep = [lv for lv in levels if cells.get(lv) is None or cells[lv].value != NOT_INCLUDED]
            if not keep:
                continue  # no level includes it (a row of crosses): nothing to draft
            if keep != levels:
                fields["plans"] = tuple(keep)
            entry = section_name(row_label(row))
            if all(cells[lv].value == OPTIONAL for lv in keep if lv in cells):
                # optional wherever it applies: the schedule entry adds it
                fields["added_by"] = tuple(dict.fromkeys([*fields.get("added_by", ()), entry]))
            elif entry in fields.get("added_by", ()) and all(
                cells[lv].value == INCLUDED for lv in keep if lv in cells
            ):
                # "only included if you have comprehensive cover" drafted as an option: the matrix
                # says the levels that include it, so no schedule entry is needed
                fields["added_by"] = tuple(e for e in fields["added_by"] if e != entry)
                if not fields["added_by"]:
                    del fields["added_by"]
    return out


def reached(m: Matrix, units: list[Unit], ids: list[str]) -> dict[str, list[str]]:
    """Each row's units (their IDs): what an owner's edit of the row redrafts."""
    return {row: [ids[n] for n in _row_units(row, units)] for row in m.rows}


# ---------------------------------------------------------------- checking a cell at its source


def _words(text: str) -> str:
    return " ".join(re.sub(r"[*_`|#\\]+|<br\s*/?>", " ", text).split()).lower()


def cells_not_at_source(source: Path, cells: list[Cell]) -> list[Cell]:
    """The cells whose text is not what their place in the source says: the words inside the
    cell's box on its PDF page (the page's text for a statement), or its source line (Markdown,
    HTML: starting there, going on over the rest of its paragraph) or paragraph (DOCX). Read
    afresh from the file, not from the import."""
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
    wraps = source.suffix.lower() != ".docx"  # a DOCX paragraph is one line
    for cell in cells:
        if cell.line is None or not 0 < cell.line <= len(lines):
            wrong.append(cell)
            continue
        own = _words(lines[cell.line - 1])
        if wraps:
            # A statement may go on over the following lines of its paragraph; it must start on its own.
            end = next((k for k in range(cell.line, len(lines)) if not lines[k].strip()), len(lines))
            at = _words(" ".join(lines[cell.line - 1 : end])).find(_words(cell.text))
            if not 0 <= at < max(len(own), 1):
                wrong.append(cell)
        elif _words(cell.text) not in own:
            wrong.append(cell)
    return wrong


def source_lines(source: Path) -> list[str]:
    """A text source's lines, or a DOCX's paragraphs and tables, as the importer numbers them."""
    if source.suffix.lower() == ".docx":
        import docx

        body = docx.Document(str(source)).element.body
        return [" ".join(" ".join(child.itertext()).split()) for child in body.iterchildren()]
    return source.read_text(encoding="utf-8").splitlines()
