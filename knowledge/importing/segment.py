"""Units by meaning: a wording's blocks grouped under their headings, each unit one cover,
benefit, exclusion, condition, definition or note, with its kind, its part and its pages.

Lead-ins stay with their lists; numbered items are units of their own; a unit over the
clause limit is split between list items or sentences, each part repeating its lead-in.
The word lists that decide kinds and notes are data, here, so what was tuned is visible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from knowledge.importing.accounting import Ledger, nonspace
from knowledge.importing.extract.blocks import Block, cut

# The kind a heading names, tried in this order. DEF and END win over everything when any
# heading above a unit names them: a definition of "excess" is a definition, not an excess.
KIND_WORDS: tuple[tuple[str, str], ...] = (
    ("END", r"endorsement"),
    ("DEF", r"definition|meaning of|special meaning|defined terms|what words mean|glossary"),
    ("EXS", r"\bexcess"),
    ("EXC", r"not covered|exclusion|not insured|will not pay|does not cover|we don.t cover|not included"),
    ("CLM", r"\bclaim"),
    ("CON", r"condition|you must|responsibilit|your duties|cancel|premium|changes to your|fraud"),
    ("LIM", r"\blimit|most we will pay|maximum"),
    ("BEN", r"benefit|additional|extension|optional|options?\b|extra|promise"),
    ("COV", r"cover|insured|what we pay|section|part [a-z0-9]\b|damage|theft|liability|loss|injury"),
)
CONTAINER_KINDS = ("DEF", "END")
OUTRANK_CONTAINERS = ("EXS", "EXC", "CLM", "CON")
# Headings of text that informs but is not the contract: its units are marked citable=no.
# Complaints, privacy and the use of a claimant's data are terms a claimant asks about ("how
# do I complain?"): their units are quotable clauses, not notes.
NOTE_HEADINGS = re.compile(
    r"important notes?|useful information|"
    r"our promise|compensation scheme|\bfscs\b|welcome|thank you for|contact (us|details)|"
    r"at a glance|summary|about this (booklet|document)|motor insurance database|"
    r"www\.|how to contact|accessibility|supplementary product disclosure",
    re.I,
)
# Headings that say nothing alone (the issue counted 23 of 112 in the AXA booklet).
GENERIC = re.compile(
    r"^(what (is|are) (not )?(covered|insured)( under this section)?|"
    r"what (your policy|we|this section|this policy) (covers?|does not cover|will pay|pay for|do not cover)|"
    r"(not )?covered|conditions?|exclusions?|general|cover|introduction|the most we will pay|"
    r"we will (not )?pay|what we pay( for)?|other benefits|options you can add|what you must (not )?do|"
    r"important( information| notes?)?|note|definitions|your cover|claims?|limits?|special conditions|"
    r"useful information|summary|you must|you or the named driver must|caused by or whilst using|"
    r"cover for you|cover for other people|general notes|welcome|excess(es)?)$",
    re.I,
)
CONTENTS = re.compile(r"^(table of\b.*|contents|index)$", re.I)
CONTINUED = re.compile(r"\s*[\(\[]?\bcontinued\b[\)\]]?\.?\s*$", re.I)
# The head of a second column that says what is not covered beside the cover
# ("What your policy does not cover:", "What is not covered", "Exclusions").
NOT_COVERED_COLUMN = re.compile(
    r"^(?:what (?:your policy|this (?:policy|section)|we|is|are)\b.{0,20}\b(?:not|n.t) "
    r"(?:cover(?:ed)?|pay(?: for)?|insured)|(?:what is )?not covered|exclusions?"
    r"|we (?:do|will) not (?:cover|pay))\s*:?$",
    re.I,
)
# The head of the first of such columns ("What your policy covers:"), set as a line of text.
COVERED_COLUMN = re.compile(
    r"^what (?:your policy|this (?:policy|section)|we|is|are) "
    r"(?:covers?|covered|insured|will pay|pay for)\s*:?$",
    re.I,
)
# A numbered item that names a subject (a short line, no sentence) heads a unit of its own.
NUMBERED_HEADING = re.compile(r"^(\d{1,2})[.)]?\s+([A-Z][^.;:]{2,80})$")


@dataclass
class Unit:
    path: tuple[str, ...]  # the headings above the unit and its own, top first
    blocks: list[Block] = field(default_factory=list)
    kind: str = "GEN"
    citable: bool = True
    part_no: int = 0  # 1, 2, … when a long unit was split; 0 when whole
    parts: int = 0
    heads: tuple[Block, ...] = ()  # the heading blocks of its path, as read (for the accounting)

    @property
    def heading(self) -> str:
        return self.path[-1] if self.path else ""

    @property
    def page(self) -> int | None:
        return next((b.page for b in self.blocks if b.page), None)

    @property
    def printed_page(self) -> str | None:
        return next((b.printed_page for b in self.blocks if b.printed_page), None)

    @property
    def part(self) -> str | None:
        return self.path[0] if self.path and self.path[0] != "Introduction" else None

    def body(self) -> str:
        return render(self.blocks)


def render(blocks: list[Block]) -> str:
    """Blocks as Markdown clause text: paragraphs apart, list items and table rows together."""
    out: list[str] = []
    for b in blocks:
        if b.kind == "item":
            text = re.sub(r"^[•▪●◦■\-–*]\s+", "", b.text)
            line = f"- {text}"
        elif b.kind == "row":
            line = f"- {b.text}"
        else:
            line = b.text
        listed = b.kind in ("item", "row")
        if out and listed and out[-1].startswith("- "):
            out[-1] += "\n" + line
        else:
            out.append(line)
    return "\n\n".join(out)


def segment(blocks: list[Block], budget: int, ledger: Ledger | None = None) -> tuple[list[Unit], list[str]]:
    """(units, notes on what was left out) from a wording's blocks."""
    ledger = ledger if ledger is not None else Ledger()
    reader = _Reader(ledger)
    for b in blocks:
        reader.read(b)
    contents = _contents_units(reader.units)
    kept, dropped = _classified(reader.units, contents, ledger)
    kept = merge_generic(kept, budget)
    _book_unused_headings(kept, reader.units, contents, reader.headings, ledger)
    return kept, dropped


@dataclass
class _Reader:
    """The units of a wording as its blocks are read in order: the headings above the block
    read (a stack of level, text and block) and the unit its text goes into."""

    ledger: Ledger
    stack: list[tuple[int, str, Block]] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    current: Unit | None = None
    headings: list[Block] = field(default_factory=list)  # every heading read, made ones too
    # Side-by-side columns: while a "not covered" column head holds, the second column's text
    # is a unit of its own under that head, never read on as the first column's cover.
    right_head: Block | None = None
    right_depth: int = 0
    right_unit: Unit | None = None

    def path(self) -> tuple[str, ...]:
        return tuple(t for _, t, _ in self.stack)

    def heads(self) -> tuple[Block, ...]:
        return tuple(h for _, _, h in self.stack)

    def read(self, b: Block) -> None:
        if b.kind == "heading" and self.right_head is not None:
            self._leave_right_column(b)
        if b.column == "right" and b.kind == "para" and NOT_COVERED_COLUMN.match(b.text.strip()):
            self._open_right_column(b)
            return
        if self.right_head is not None and b.column == "right" and not b.note and b.kind != "heading":
            self._right_column_text(b)
            return
        if b.kind == "para" and b.column != "right" and not b.note and COVERED_COLUMN.match(b.text.strip()):
            # The first column's own head: a heading over the causes listed under it.
            b = self._column_head(b, level=(self.stack[-1][0] + 1) if self.stack else 1)
        if b.kind == "heading":
            self._heading(b)
        elif b.note:
            self._note(b)
        elif not self._numbered_item(b):
            self._text(b)

    def _column_head(self, b: Block, **changes: object) -> Block:
        """A column's head set as a line of text, as a heading without its colon."""
        text = b.text.strip().rstrip(":").strip()
        taken = nonspace(b.text) - nonspace(text)
        if taken:
            self.ledger.remove_spans("heading-punctuation", [(b.spans[0][0], taken)] if b.spans else [])
        spans = ((b.spans[0][0], nonspace(text)),) if b.spans else ()
        return replace(b, kind="heading", text=text, spans=spans, **changes)  # type: ignore[arg-type]

    def _leave_right_column(self, heading: Block) -> None:
        """A heading at or above the level the second column's head was read at ends it."""
        depth = sum(1 for level, _, _ in self.stack if level < heading.level)
        if depth < self.right_depth:
            self.right_head = None
        self.right_unit = None

    def _open_right_column(self, b: Block) -> None:
        self.right_head = self._column_head(b)
        self.headings.append(self.right_head)
        self.right_depth, self.right_unit = len(self.stack), None

    def _right_column_text(self, b: Block) -> None:
        assert self.right_head is not None
        host = self.current if self.current is not None else None
        base, base_heads = (host.path, host.heads) if host else (self.path(), self.heads())
        if self.right_unit is None or self.right_unit.path != (*base, self.right_head.text):
            self.right_unit = Unit((*base, self.right_head.text), heads=(*base_heads, self.right_head))
            self.units.append(self.right_unit)
        self.right_unit.blocks.append(b)

    def _heading(self, b: Block) -> None:
        text = CONTINUED.sub("", b.text).strip(" :–-")
        if not text:
            self.ledger.remove_spans("heading-punctuation", b.spans)
            return
        stack = self.stack
        if CONTINUED.search(b.text) and any(t.lower() == text.lower() for _, t, _ in stack):
            # "… continued": the same heading again after a page break, not a new part.
            self.ledger.remove_spans("repeated-heading", b.spans)
            while stack[-1][1].lower() != text.lower():
                stack.pop()
            self.current = None
            return
        while stack and stack[-1][0] >= b.level:
            stack.pop()
        if text != b.text:  # a 'continued' label or punctuation around the heading
            kept_chars = nonspace(text)
            self.ledger.remove_spans(
                "heading-punctuation", [(b.spans[0][0], nonspace(b.text) - kept_chars)] if b.spans else []
            )
            b = replace(b, text=text, spans=((b.spans[0][0], kept_chars),) if b.spans else ())
        stack.append((b.level, text, b))
        self.headings.append(b)
        self.current = None

    def _note(self, b: Block) -> None:
        current = self.current
        host = current.path if current else self.path()
        note = next(
            (u for u in reversed(self.units[-3:]) if u.path == (*host, "Note") and not u.citable), None
        )
        if note is None:
            note = Unit((*host, "Note"), citable=False, heads=current.heads if current else self.heads())
            self.units.append(note)
        note.blocks.append(b)

    def _numbered_item(self, b: Block) -> bool:
        """A numbered item that names a subject starts a unit of its own, the item's own text
        (after the number) its heading; False for any other block."""
        numbered = NUMBERED_HEADING.match(b.text) if b.kind in ("item", "para") else None
        # In side-by-side columns each numbered cause of the first column starts its row: its
        # own unit (with the second column's text beside it), however long its words.
        beside = (
            self.right_head is not None and b.column != "right" and re.match(r"\d{1,2}[.)]\s+[A-Z]", b.text)
        )
        if beside or (numbered and len(b.text.split()) <= 12 and not re.search(r"\bamended\b", b.text, re.I)):
            self.current = Unit((*self.path(), numbered[0] if numbered else b.text), heads=(*self.heads(), b))
            self.units.append(self.current)
            self.right_unit = None
            return True
        return False

    def _text(self, b: Block) -> None:
        if self.current is None:
            self.current = Unit(self.path() or ("Introduction",), heads=self.heads())
            self.units.append(self.current)
        self.current.blocks.append(b)


def _classified(units: list[Unit], contents: set[int], ledger: Ledger) -> tuple[list[Unit], list[str]]:
    """The units with text, each with its kind and whether it is citable, and notes on the
    tables of contents left out (their characters booked as removed)."""
    kept = []
    dropped: list[str] = []
    for unit in units:
        if not unit.blocks:
            continue
        if id(unit) in contents:
            dropped.append(f"table of contents on page {unit.page} ({len(unit.blocks)} lines) left out")
            for b in unit.blocks:
                ledger.remove_spans("table-of-contents", b.spans)
            continue
        unit.kind = kind_of(unit.path)
        if any(NOTE_HEADINGS.search(h) for h in unit.path):
            unit.citable = False
        if not unit.citable:
            unit.kind = "GEN"  # a note is general information whatever it sits under
        kept.append(unit)
    return kept, dropped


def _book_unused_headings(
    kept: list[Unit], units: list[Unit], listed: set[int], headings: list[Block], ledger: Ledger
) -> None:
    """A heading no kept unit sits under is booked as removed: a table of contents' own, or
    one with no text under it."""
    used = {id(h) for u in kept for h in u.heads}
    contents = {id(h) for u in units if id(u) in listed for h in u.heads}
    every = {id(h): h for h in headings} | {id(h): h for u in units for h in u.heads}
    for key, h in every.items():
        if key not in used:
            rule = "table-of-contents" if key in contents else "heading-without-text"
            ledger.remove_spans(rule, h.spans)


def heading_spans(units: list[Unit]) -> list[tuple[int, int]]:
    """The spans of every heading block in the units' paths, each heading once."""
    seen = {id(h): h for u in units for h in u.heads}
    return [span for h in seen.values() for span in h.spans]


def is_generic(heading: str, one_word: bool = True) -> bool:
    """A heading that says nothing alone; one_word: a single word counts as saying nothing
    (true for titles; a one-word definition or benefit still heads its own unit)."""
    text = re.sub(r"[\s:.*]+$", "", heading.strip())
    return (one_word and len(text.split()) < 2) or bool(GENERIC.match(text))


def merge_generic(units: list[Unit], budget: int) -> list[Unit]:
    """A unit under a heading that says nothing alone ("Covered", "Conditions", "What is not
    covered") joins the unit of the heading above it, its heading kept as a label line, as
    long as the whole fits in one clause: one benefit with its cover, exclusions and
    conditions reads as one unit."""
    out: list[Unit] = []
    for unit in units:
        prev = out[-1] if out else None
        if prev is not None and is_generic(unit.heading, False) and prev.citable == unit.citable:
            anchor = prev.path  # only into the unit of the heading right above it
            # The label repeats a heading (booked with the headings): it adds no characters.
            label = Block("para", f"{unit.heading}:", unit.page, 0, False, unit.printed_page)
            if unit.path[:-1] == anchor and len(render([*prev.blocks, label, *unit.blocks])) <= budget:
                prev.blocks.extend([label, *unit.blocks])
                prev.heads = (*prev.heads, *(h for h in unit.heads if all(h is not x for x in prev.heads)))
                continue
        out.append(unit)
    return out


_PAGE_AT_END = re.compile(r"\s(\d{1,3})$")


def _contents_units(units: list[Unit]) -> set[int]:
    """The ids of the units that are a table of contents: one under a contents heading or
    mostly paged lines (`_is_contents`), or set wholly on a contents page."""
    pages = _contents_pages(units)
    return {id(u) for u in units if u.blocks and (_is_contents(u) or all(b.page in pages for b in u.blocks))}


def _contents_pages(units: list[Unit]) -> set[int]:
    """Pages near the front of a paged wording whose lines, headings included, nearly all end
    in page numbers that rise in reading order: a contents page set without a "Contents"
    heading, each entry a heading of its own over a line of its parts ("Buildings 3" over
    "Covers 3 Causes 6"), which no one unit shows as a contents list."""
    lines: dict[int, list[str]] = {}
    seen: set[int] = set()
    for unit in units:
        for b in (*unit.heads, *unit.blocks):
            if id(b) not in seen and b.page is not None:
                seen.add(id(b))
                lines.setdefault(b.page, []).append(b.text.strip())
    last = max(lines, default=0)
    if last < 5:  # an unpaged file (Markdown, HTML, DOCX) or a leaflet
        return set()
    found = set()
    for page, texts in lines.items():
        if page > max(3, last // 10):
            continue
        numbers = [int(m[1]) for t in texts if (m := _PAGE_AT_END.search(t))]
        if len(numbers) >= 5 and len(numbers) >= 0.8 * len(texts) and numbers == sorted(numbers):
            found.add(page)
    return found


def _is_contents(unit: Unit) -> bool:
    if any(CONTENTS.match(h.strip()) for h in unit.path):
        return True
    # A row with a cell between its title and its page (a benefit's limit) is a summary
    # table's, not a contents line.
    paged = sum(
        1
        for b in unit.blocks
        if re.search(r"\s\d{1,3}$", b.text) and not (b.kind == "row" and sum(1 for c in b.cells if c) >= 3)
    )
    return len(unit.blocks) >= 5 and paged >= 0.6 * len(unit.blocks)


def kind_of(path: tuple[str, ...]) -> str:
    own = path[-1] if path else ""
    if any(re.search(dict(KIND_WORDS)["END"], h, re.I) for h in path):
        return "END"
    # A heading of two words or more that names claims, conditions, exclusions or excesses
    # is that, even under a definitions heading: the layout may nest the next part there.
    if len(own.split()) >= 2:
        for kind, words in KIND_WORDS:
            if kind in OUTRANK_CONTAINERS and re.search(words, own, re.I):
                return kind
    for kind, words in KIND_WORDS:
        if kind in CONTAINER_KINDS and any(re.search(words, h, re.I) for h in path):
            return kind
    for heading in reversed(path):
        for kind, words in KIND_WORDS:
            if re.search(words, heading, re.I):
                return kind
    return "GEN"


# ---------------------------------------------------------------- splitting long units


def _runs(blocks: list[Block]) -> list[list[Block]]:
    """Blocks that must stay together: a lead-in with the list or table that follows it."""
    runs: list[list[Block]] = []
    for b in blocks:
        listed = b.kind in ("item", "row")
        if runs and listed and (runs[-1][-1].kind in ("item", "row") or runs[-1][-1].text.endswith(":")):
            runs[-1].append(b)
        else:
            runs.append([b])
    return runs


def _sentences(b: Block, budget: int) -> list[Block]:
    parts = re.split(r"(?<=[.;!?])\s+(?=[A-Z(])", b.text)
    out: list[str] = []
    chunk = ""
    for part in parts:
        while len(part) > budget:  # one sentence over the budget: cut between words
            at = part.rfind(" ", 0, budget)
            at = at if at > 0 else budget
            if chunk:
                out.append(chunk)
                chunk = ""
            out.append(part[:at])
            part = part[at:].strip()
        if chunk and len(chunk) + 1 + len(part) > budget:
            out.append(chunk)
            chunk = part
        else:
            chunk = f"{chunk} {part}".strip()
    if chunk:
        out.append(chunk)
    return cut(b, out)


def split_long(unit: Unit, budget: int) -> list[Unit]:
    """The unit whole if its body fits in budget characters; else parts between runs, list
    items or sentences, each part of a list repeating the list's lead-in."""
    if len(unit.body()) <= budget:
        return [unit]
    pieces: list[list[Block]] = []
    for run in _runs(unit.blocks):
        if len(render(run)) <= budget:
            pieces.append(run)
            continue
        lead = run[0] if run[0].kind == "para" and run[0].text.endswith(":") and len(run) > 1 else None
        items = run[1:] if lead else run
        room = budget - (len(lead.text) + 2 if lead else 0)
        chunk: list[Block] = []
        # The lead-in is read once: its copies in later parts carry no characters of their own.
        heads = [lead] if lead else []
        for item in (s for b in items for s in (_sentences(b, room) if len(b.text) > room else [b])):
            if chunk and len(render([*chunk, item])) > room:
                pieces.append(heads + chunk)
                heads = [replace(lead, spans=())] if lead else []
                chunk = []
            chunk.append(item)
        if chunk:
            pieces.append(heads + chunk)
    parts: list[list[Block]] = []
    for piece in pieces:
        if parts and len(render(parts[-1] + piece)) <= budget:
            parts[-1].extend(piece)
        else:
            parts.append(list(piece))
    if len(parts) == 1:
        return [replace(unit, blocks=parts[0])]
    return [replace(unit, blocks=p, part_no=n, parts=len(parts)) for n, p in enumerate(parts, start=1)]


# ---------------------------------------------------------------- one definition per unit

# A definition's opening: a term (quoted, or up to a colon, dash or "means") then its meaning.
TERM = re.compile(
    r"^(?:[‘'\"“]([^’'\"”]{2,60})[’'\"”]|([A-Z][\w/&()' -]{1,50}?)(?=\s*(?::|\s[–—-]\s|\smeans?\b)))"
)
_NOT_TERMS = frozenset("we us our you your they it this that these if when where what who".split())


def term_of(block: Block) -> str | None:
    """The term a paragraph defines, if it opens with one."""
    if block.kind != "para":
        return None
    m = TERM.match(block.text)
    term = (m[1] or m[2]).strip() if m else ""
    if not term or term.split()[0].lower() in _NOT_TERMS or len(term.split()) > 6:
        return None
    return term


# A sentence that opens a definition inside a paragraph (a layout that sets definitions
# without space between them): "… apply. Journey means …".
_TERM_SENTENCE = re.compile(r"(?<=[.;])\s+(?=[‘'\"“]?[A-Z][\w'-]*(?:\s[\w'-]+){0,4}[’'\"”]?\s+means\b)")


def _definition_sentences(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    for b in blocks:
        pieces = _TERM_SENTENCE.split(b.text) if b.kind == "para" else [b.text]
        out.extend(cut(b, pieces) if len(pieces) > 1 else [b])
    return out


def one_definition_each(units: list[Unit]) -> list[Unit]:
    """A definitions unit that holds several terms becomes one unit per term, each headed by
    its term (the heading path above kept); text before the first term stays where it was."""
    out: list[Unit] = []
    for unit in units:
        if unit.kind == "DEF":
            unit = replace(unit, blocks=_definition_sentences(unit.blocks))
        starts = [n for n, b in enumerate(unit.blocks) if term_of(b)]
        if unit.kind != "DEF" or len(starts) < 2:
            out.append(unit)
            continue
        if starts[0] > 0:
            out.append(replace(unit, blocks=unit.blocks[: starts[0]]))
        for k, n in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(unit.blocks)
            term = term_of(unit.blocks[n]) or ""
            out.append(replace(unit, path=(*unit.path, term), blocks=unit.blocks[n:end]))
    return out


def context_line(unit: Unit, limit: int = 110) -> str:
    """The headings below the part that give a unit its meaning ("Misfuelling › What we
    pay"), for the unit's first line; empty when the part alone says it."""
    if unit.kind == "DEF" or not unit.citable:
        return ""
    below = [h for h in unit.path[1:] if h != "Note"]
    line = " › ".join(below)
    while below and len(line) > limit:
        below = below[1:]
        line = " › ".join(below)
    return line
