"""The runtime composes what the claimant reads from a checked selection: a pure function.

The reply opens with the runtime's statement for each cited clause (included, not included,
removed or changed by the schedule, agent.boundary.statements), so the claimant reads what
applies to them first. Then one block per clause: the whole sentences and list items that
hold the selected spans, with everything that qualifies them in the clause
(agent.boundary.qualifiers), each list's lead-in once; under them the runtime's notes (what a
limit limits, what a referenced clause means for this claimant, which plan is theirs). Then
the schedule facts the selection names, and one closing sentence that nothing is decided.

In the quoted style no word the model wrote is in the text; the explained style puts the
model's checked lead before the statements. No I/O: staff drafts are built the same way.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from agent.boundary.qualifiers import DEFINITION_NOTE, is_definition, limit_subject_note, with_qualifiers
from agent.boundary.replies import NOTHING_DECIDED, plan_statement
from agent.boundary.selection import AnswerStyle, Selection
from agent.boundary.statements import (
    Applicability,
    Kind,
    clause_applicability,
    kind_of,
    reference_statement,
    statement,
)
from agent.boundary.units import hit_by, readable, units
from agent.policy.schedule import ScheduleView
from knowledge.clauses import DirectoryEntry, FetchedClause
from knowledge.source import CLAUSE_ID

# A served sentence that names a plan, so the claimant is told which plan is theirs.
_NAMES_PLAN = re.compile(r"\b(?:[A-Z][a-z]+ plans?|both plans|two plans)\b")
_CLAUSE_ID = re.compile(CLAUSE_ID)

# Looks up another clause of the governing wording by ID (None: not in it).
Lookup = Callable[[str], DirectoryEntry | None]


@dataclass(frozen=True)
class Line:
    """One served sentence or list item: its own words, the lead-in of its list (shown once
    above the list), and the unit as a citation quotes it (an item with its lead-in)."""

    text: str
    lead_in: str | None
    quote: str


@dataclass(frozen=True)
class Block:
    """One cited clause as served."""

    clause_id: str
    title: str
    version: str
    kind: Kind
    applies: Applicability
    statement: str
    lines: tuple[Line, ...]
    notes: tuple[str, ...]  # the runtime's own words under the quotes
    spans: tuple[str, ...]  # the selected spans the lines were found from (re-read from the store)
    full_text: str  # the whole clause with its line breaks, one click away

    @property
    def label(self) -> str:
        return f"“{self.title}” ({self.clause_id}, wording {self.version})"


@dataclass(frozen=True)
class Fact:
    key: str
    label: str
    value: str


@dataclass(frozen=True)
class Composed:
    """What the claimant reads, and its parts as data."""

    text: str
    version: str
    blocks: tuple[Block, ...]
    facts: tuple[Fact, ...]
    lead: str | None = None
    closing: str = NOTHING_DECIDED

    @property
    def statements(self) -> tuple[str, ...]:
        """The runtime's opening statements, one per cited clause."""
        return tuple(b.statement for b in self.blocks)

    def citations(self) -> list[dict[str, str]]:
        """One per served sentence: clause ID, title, version and the words served."""
        return [
            {"clause_id": b.clause_id, "title": b.title, "version": b.version, "quote": line.quote}
            for b in self.blocks
            for line in b.lines
        ]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, as the turn record keeps it."""
        return json.loads(json.dumps(asdict(self)))


def compose(
    selection: Selection,
    fetched: dict[str, FetchedClause],
    schedule: ScheduleView,
    version: str,
    *,
    style: AnswerStyle = "quoted",
    lookup: Lookup | None = None,
) -> Composed:
    """The reply built from a checked selection (every point's clause in `fetched`, every span
    in its clause's body, every fact key in the schedule). `lookup` finds a clause another
    served sentence refers to, for the runtime's statement of what it means for this claimant."""
    spans: dict[str, list[str]] = {}
    for point in selection.points:
        spans.setdefault(point.clause_id, []).append(point.span)
    blocks = tuple(_block(fetched[cid], said, schedule, version, lookup) for cid, said in spans.items())
    facts = tuple(
        Fact(key, *fact) for key in dict.fromkeys(selection.schedule_facts) if (fact := schedule.fact(key))
    )
    lead = selection.lead.strip() if style == "explained" and selection.lead else None
    return Composed(_render(lead, blocks, facts), version, blocks, facts, lead)


def _block(
    clause: FetchedClause, said: list[str], schedule: ScheduleView, version: str, lookup: Lookup | None
) -> Block:
    all_units = units(clause.text)
    hit = sorted({n for span in said for n in hit_by(all_units, clause.text, span)})
    positions = with_qualifiers(all_units, hit)
    served = [all_units[n] for n in positions]
    lines = tuple(
        Line(u.own, all_units[u.lead_in].text if u.item and u.lead_in is not None else None, u.text)
        for u in served
    )
    kind = kind_of(clause.clause_id)
    applies = clause_applicability(clause, schedule)
    notes: list[str] = []
    if kind != "definition" and any(is_definition(u) for u in served):
        notes.append(DEFINITION_NOTE)  # a definition in another clause is served as a definition
    for n in positions:
        note = limit_subject_note(all_units, n, clause.title)
        if note and note not in notes:
            notes.append(note)
    if any(_NAMES_PLAN.search(u.text) for u in served):
        notes.append(plan_statement(schedule.plan))
    if lookup is not None:
        for other in dict.fromkeys(m for u in served for m in _CLAUSE_ID.findall(u.text)):
            if other != clause.clause_id:
                notes.append(reference_statement(other, lookup(other), schedule))
    return Block(
        clause.clause_id,
        clause.title,
        version,
        kind,
        applies,
        statement(kind, clause.title, applies),
        lines,
        tuple(notes),
        tuple(said),
        readable(clause.text),
    )


def _render(lead: str | None, blocks: tuple[Block, ...], facts: tuple[Fact, ...]) -> str:
    parts = [lead] if lead else []
    if blocks:
        parts.append("\n".join(b.statement for b in blocks))
    for b in blocks:
        rows = [f"From {b.label}:"]
        shown_lead: str | None = None
        for line in b.lines:
            if line.lead_in is None:
                rows.append(f"“{line.text}”")
                shown_lead = None
                continue
            if line.lead_in != shown_lead:
                rows.append(f"“{line.lead_in}”")
                shown_lead = line.lead_in
            rows.append(f"- “{line.text}”")
        rows += b.notes
        parts.append("\n".join(rows))
    if facts:
        parts.append("\n".join(["From your schedule:", *(f"- {f.label}: {f.value}" for f in facts)]))
    parts.append(NOTHING_DECIDED)
    return "\n\n".join(parts)
