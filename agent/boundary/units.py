"""A clause's text as the units a claimant can be served: whole sentences and list items.

A clause is paragraphs (separated by blank lines) of sentences and lists. A list item is
served with its lead-in ("We do not cover: fuel, tolls and parking"); a lead-in is never
served bare beside its own items. Each unit knows where it sits (its paragraph, the lead-in
of its list), so the runtime can bring what qualifies it (agent.boundary.qualifiers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.clauses import normalise_space

# Sentences end at . ! ? before a capital, a digit, a bracket or a quotation mark, so "e.g. a"
# and "NZD 1,000.50" stay inside one sentence.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"“‘'])")
_LIST_ITEM = re.compile(r"^(?:[-*+•]|\d{1,2}[.)]|\([a-z0-9]{1,3}\))\s+")


@dataclass(frozen=True)
class Unit:
    """A whole sentence, or one list item with its lead-in, as the claimant is shown it; where
    it sits in the clause's body (whitespace normalised), for finding the span it holds."""

    text: str
    start: int
    end: int
    paragraph: int = 0
    # For a list item: the position (in the clause's units) of its lead-in, if it has one.
    lead_in: int | None = None
    item: bool = False

    @property
    def own(self) -> str:
        """The unit's own words: a list item without its lead-in."""
        return self.text if not self.item or self.lead_in is None else self.text.split(": ", 1)[-1]

    @property
    def is_lead_in(self) -> bool:
        return not self.item and self.text.endswith(":")


def heading_and_lines(clause_text: str) -> list[str]:
    lines = clause_text.splitlines()
    return lines[1:] if lines and lines[0].startswith("#") else lines


def body(clause_text: str) -> str:
    """The clause's text without its heading line, whitespace normalised: what can be served."""
    return normalise_space("\n".join(heading_and_lines(clause_text)))


def readable(clause_text: str) -> str:
    """The clause's text without its heading line, as a person reads it: its lines and the
    blank lines between paragraphs kept, spaces within a line normalised."""
    lines = [normalise_space(line) for line in heading_and_lines(clause_text)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def units(clause_text: str) -> tuple[Unit, ...]:
    """The clause's body cut into whole sentences and list items, in order."""
    found: list[Unit] = []
    offset, paragraph = 0, 0
    lead_in: int | None = None
    blank_before = False
    for raw in heading_and_lines(clause_text):
        line = normalise_space(raw)
        if not line:
            blank_before = bool(found)
            continue
        if blank_before:
            paragraph, blank_before = paragraph + 1, False
        marker = _LIST_ITEM.match(line)
        if marker:  # a list item keeps its lead-in; without one ("Jewellery: …") it stands alone
            item = line[marker.end() :]
            lead = found[lead_in].text if lead_in is not None else None
            text = f"{lead} {item}" if lead else item
            found.append(Unit(text, offset, offset + len(line), paragraph, lead_in, item=True))
        else:
            sentences = _sentences(line, offset, paragraph)
            found.extend(sentences)
            last = sentences[-1] if sentences else None
            lead_in = len(found) - 1 if last is not None and last.text.endswith(":") else None
        offset += len(line) + 1
    return tuple(found)


def _sentences(line: str, offset: int, paragraph: int) -> list[Unit]:
    out, start = [], 0
    for m in _SENTENCE_END.finditer(line):
        out.append(Unit(line[start : m.start()], offset + start, offset + m.start(), paragraph))
        start = m.end()
    out.append(Unit(line[start:], offset + start, offset + len(line), paragraph))
    return [u for u in out if u.text]


def hit_by(all_units: tuple[Unit, ...], clause_text: str, span: str) -> list[int]:
    """The positions of every unit that the span's first occurrence in the body touches (a
    span across two sentences touches both; a span inside a lead-in alone touches the items
    that complete it, never the bare lead-in beside its items). [] when the span is not there."""
    text, wanted = body(clause_text), normalise_space(span)
    at = text.find(wanted) if wanted else -1
    if at < 0:
        return []
    end = at + len(wanted)
    hit = [n for n, u in enumerate(all_units) if u.start < end and at < u.end]
    out: list[int] = []
    for n in hit:
        items = items_of(all_units, n)
        if not items:
            out.append(n)
        elif not set(items) & set(hit):  # a lead-in alone stands for its items
            out += items
    return sorted(set(out))


def items_of(all_units: tuple[Unit, ...], lead: int) -> list[int]:
    """The positions of the list items under the lead-in at `lead` ([] for any other unit)."""
    return [n for n, u in enumerate(all_units) if u.lead_in == lead]


def served_units(clause_text: str, span: str) -> tuple[Unit, ...]:
    """Every whole sentence or list item that the span touches, in order (agent.boundary.checks
    uses it to find what a span would serve)."""
    all_units = units(clause_text)
    return tuple(all_units[n] for n in hit_by(all_units, clause_text, span))
