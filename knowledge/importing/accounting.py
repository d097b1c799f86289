"""Every character of a wording's source accounted for: placed in a unit (its text or its
heading path), kept as a note that is not contract text, or removed by a named rule.

Characters are counted without whitespace, per page of the source (page 0 for a format
without pages). Extraction reads each page's characters into the ledger and books every
removal under its rule as it happens; the blocks that survive carry spans (page, count) of
where their characters came from. At the end the units are counted from those spans and
each page must balance. A page where characters are missing is a failure naming the file
and the page: something was lost without a rule, and the import stops. A page where more is
booked than it holds (one character counted under two rules, or counted differently when
read and when placed) is a defect of the import, not of the wording: it is reported
(`overbooked`, which the tests hold at zero) and never stops a policy owner.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from knowledge.errors import KnowledgeError

_SPACE = re.compile(r"\s+")
# Rules of removal, each with what the report says about it.
RULES: dict[str, str] = {
    "running-header": "a line repeated at the top of many pages",
    "running-footer": "a line repeated at the foot of many pages",
    "page-number": "a line that is only a page number",
    "section-tab-number": "a section number printed large beside its title",
    "overprinted": "a character printed twice over itself, read once",
    "margin-label": "a section's label printed in the page margin beside the text, page after page",
    "table-of-contents": "the table of contents (titles with page numbers)",
    "list-marker": "a bullet glyph, written as a Markdown list item instead",
    "markdown-syntax": "the extraction tool's Markdown marks (#, **, link targets, escapes)",
    "table-ruling": "table cell separators and ruling rows of the extraction",
    "page-break-mark": "the extraction tool's page-break rule",
    "extraction-placeholder": "an extraction tool's placeholder (no-content markers, images, comments)",
    "encoded-markup": "entity-encoded markup (&lt;script&gt;, tags, links) in the text",
    "character-entity": "an HTML character entity written as its character",
    "stray-mark": "a mark of the extraction that is no text (^, ####, private-use glyphs)",
    "html-script-or-style": "script, style, navigation, header or footer of an HTML page",
    "heading-punctuation": "a heading of punctuation alone, or its 'continued' label",
    "repeated-heading": "a heading repeated as '… continued' after a page break",
    "heading-without-text": "a heading with no text under it",
    "supplement-instruction": "the supplement's own instructions, applied (see amendments)",
    "superseded-by-amendment": "text the supplement replaces (kept in the report)",
}


def nonspace(text: str) -> int:
    return len(_SPACE.sub("", text))


class Unaccounted(KnowledgeError):
    """Characters of a page neither placed nor removed by a rule: the import stops."""

    def __init__(self, file: str, pages: dict[int, int], texts: dict[int, list[str]] | None = None):
        self.pages = pages
        self.texts = texts or {}
        where = ", ".join(
            f"{'the document' if p == 0 else f'page {p}'}: {n:+,} characters"
            for p, n in sorted(pages.items())
        )
        missing = "".join(
            f"; not in the draft on page {p}: " + " / ".join(f"'{t}'" for t in lines)
            for p, lines in sorted(self.texts.items())
            if lines
        )
        super().__init__(
            f"{file}: characters unaccounted ({where}){missing}; the import stopped so that no text is "
            "lost silently. Send the file and this message to the clausedesk maintainers; do not edit the "
            "draft by hand to cover it"
        )


@dataclass
class Ledger:
    """What the source held per page, and what each rule removed per page."""

    source: Counter[int] = field(default_factory=Counter)
    removed: dict[str, Counter[int]] = field(default_factory=dict)

    def read(self, page: int | None, text: str | int) -> None:
        self.source[page or 0] += text if isinstance(text, int) else nonspace(text)

    def remove(self, rule: str, page: int | None, text: str | int) -> None:
        if rule not in RULES:
            raise ValueError(f"unknown removal rule {rule!r}")
        n = text if isinstance(text, int) else nonspace(text)
        if n:
            self.removed.setdefault(rule, Counter())[page or 0] += n

    def remove_spans(self, rule: str, spans: Iterable[tuple[int, int]]) -> None:
        for page, n in spans:
            self.remove(rule, page, n)

    def step(self, rule: str, page: int | None, before: str, after: str) -> str:
        """Book what a cleaning step took out of a text under its rule; the step may only remove."""
        taken = nonspace(before) - nonspace(after)
        if taken < 0:
            raise ValueError(f"cleaning step {rule!r} added characters on page {page}")
        self.remove(rule, page, taken)
        return after


@dataclass
class Balance:
    source: int
    placed: int
    headings: int
    notes: int
    removed: dict[str, int]
    unaccounted: int
    pages: int
    overbooked: dict[int, int] = field(default_factory=dict)  # page: characters booked twice

    def as_dict(self) -> dict[str, object]:
        return {
            "source_characters": self.source,
            "placed_in_units": self.placed,
            "headings_kept_in_units": self.headings,
            "notes_not_contract_text": self.notes,
            "removed_by_rule": dict(sorted(self.removed.items())),
            "unaccounted": self.unaccounted,
            "pages": self.pages,
            "overbooked": {str(p): n for p, n in sorted(self.overbooked.items())},
        }


def balance(
    file: str,
    ledger: Ledger,
    placed: Iterable[tuple[int, int]],
    headings: Iterable[tuple[int, int]],
    notes: Iterable[tuple[int, int]],
) -> Balance:
    """Each page's source count against where its characters went; raises Unaccounted for a
    page with characters missing, and lists a page booked beyond its count as overbooked."""
    where: dict[str, Counter[int]] = {"placed": Counter(), "headings": Counter(), "notes": Counter()}
    for name, spans in (("placed", placed), ("headings", headings), ("notes", notes)):
        for page, n in spans:
            where[name][page] += n
    off: dict[int, int] = {}
    pages = (
        set(ledger.source)
        | {p for c in where.values() for p in c}
        | {p for c in ledger.removed.values() for p in c}
    )
    for page in pages:
        out = sum(c[page] for c in where.values()) + sum(c[page] for c in ledger.removed.values())
        if out != ledger.source[page]:
            off[page] = ledger.source[page] - out
    lost = {p: n for p, n in off.items() if n > 0}
    if lost:
        raise Unaccounted(file, lost)
    return Balance(
        sum(ledger.source.values()),
        sum(where["placed"].values()),
        sum(where["headings"].values()),
        sum(where["notes"].values()),
        {rule: sum(c.values()) for rule, c in ledger.removed.items()},
        0,
        len([p for p in ledger.source if p]),
        {p: -n for p, n in off.items() if n < 0},
    )
