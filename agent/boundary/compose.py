"""The runtime composes what the claimant reads from a checked selection: a pure function.

The reply opens with the runtime's statement for each cited clause (included, not included,
removed or changed by the schedule, agent.boundary.statements), so the claimant reads what
applies to them first. Then one block per clause: the whole sentences and list items that
hold the selected spans, with everything that qualifies them in the clause
(agent.boundary.qualifiers), each list's lead-in once; after the cover they limit, the
exclusions of the same wording that name what the cover gives (from clauses the runtime
fetched itself where the model did not: `Block.added`); under them the runtime's notes (what a
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

from agent.boundary.citation import Citation
from agent.boundary.qualifiers import (
    DEFINITION_NOTE,
    common_words,
    cover_subject,
    exclusions_naming,
    is_definition,
    limit_subject_note,
    with_qualifiers,
)
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
from agent.boundary.units import Unit, hit_by, readable, units
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
    # Brought by the runtime as a qualifier of what was selected, not selected itself.
    added: bool = False


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
    # A clause the runtime added as a qualifier (an exclusion naming what a cited cover gives),
    # not one the model selected: it counts toward neither the three-clause limit nor a
    # handler's verdict, and its answering mode does not gate the reply.
    added: bool = False

    @property
    def label(self) -> str:
        return f"“{self.title}” (your policy wording {self.version})"


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

    @property
    def selected(self) -> tuple[Block, ...]:
        """The blocks of the clauses the model selected (the runtime's additions left out)."""
        return tuple(b for b in self.blocks if not b.added)

    def citations(self) -> list[Citation]:
        """One per served sentence: clause ID, title, version and the words served."""
        return [
            Citation(clause_id=b.clause_id, quote=line.quote, title=b.title, version=b.version)
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
    exclusions: dict[str, FetchedClause] | None = None,
    levels: tuple[str, ...] = (),
) -> Composed:
    """The reply built from a checked selection (every point's clause in `fetched`, every span
    in its clause's body, every fact key in the schedule). `lookup` finds a clause another
    served sentence refers to, for the runtime's statement of what it means for this claimant;
    `exclusions` are the wording's exclusion clauses, each served after a cited cover whose
    subject it names; `levels`, the cover levels the wording offers (agent.boundary.statements)."""
    spans: dict[str, list[str]] = {}
    for point in selection.points:
        spans.setdefault(point.clause_id, []).append(point.span)
    chosen = []
    for cid, said in spans.items():
        clause = fetched[cid]
        all_units = units(clause.text)
        hit = sorted({n for span in said for n in hit_by(all_units, clause.text, span)})
        chosen.append((clause, all_units, hit, with_qualifiers(all_units, hit, clause.title), said))
    blocks = [
        _block(c, u, hit, at, said, schedule, version, lookup, levels) for c, u, hit, at, said in chosen
    ]
    blocks += _exclusions(chosen, exclusions or {}, schedule, version, lookup, levels)
    # The cover that answers before what limits it: included cover first, the runtime's
    # additions last, the rest as selected.
    blocks.sort(
        key=lambda b: (not (b.kind == "cover" and b.applies.status in ("included", "changed")), b.added)
    )
    blocks = tuple(blocks)
    facts = tuple(
        Fact(key, *fact) for key in dict.fromkeys(selection.schedule_facts) if (fact := schedule.fact(key))
    )
    lead = selection.lead.strip() if style == "explained" and selection.lead else None
    return Composed(_render(lead, blocks, facts), version, blocks, facts, lead)


def _exclusions(
    chosen: list[tuple[FetchedClause, tuple[Unit, ...], list[int], list[int], list[str]]],
    exclusions: dict[str, FetchedClause],
    schedule: ScheduleView,
    version: str,
    lookup: Lookup | None,
    levels: tuple[str, ...],
) -> list[Block]:
    """The wording's exclusions that name what a cited cover gives, as blocks the runtime
    added (none already cited)."""
    cited = {c.clause_id for c, *_ in chosen}
    subjects = frozenset().union(
        *(cover_subject(u, hit, c.title) for c, u, hit, _, _ in chosen if kind_of(c.clause_id) == "cover")
    )
    candidates = [c for cid, c in exclusions.items() if cid not in cited]
    if not subjects or not candidates:
        return []
    # The wording's setting ("car", "damage") names no subject.
    subjects -= common_words([c.text for c, *_ in chosen] + [c.text for c in candidates])
    out = []
    for clause in candidates:
        all_units = units(clause.text)
        positions = exclusions_naming(subjects, all_units)
        if positions:
            block = _block(
                clause, all_units, [], positions, [], schedule, version, lookup, levels, added=True
            )
            # An exclusion of another plan's cover limits nothing this claimant holds: not added.
            if block.applies.status != "not_included":
                out.append(block)
    return out


def _block(
    clause: FetchedClause,
    all_units: tuple[Unit, ...],
    hit: list[int],
    positions: list[int],
    said: list[str],
    schedule: ScheduleView,
    version: str,
    lookup: Lookup | None,
    levels: tuple[str, ...] = (),
    *,
    added: bool = False,
) -> Block:
    served = [all_units[n] for n in positions]
    lines = tuple(
        Line(
            all_units[n].own,
            all_units[all_units[n].lead_in].text
            if all_units[n].item and all_units[n].lead_in is not None
            else None,
            all_units[n].text,
            added=n not in hit,
        )
        for n in positions
    )
    kind = kind_of(clause.clause_id)
    applies = clause_applicability(clause, schedule, levels)
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
                notes.append(reference_statement(other, lookup(other), schedule, levels))
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
        added,
    )


def _render(lead: str | None, blocks: tuple[Block, ...], facts: tuple[Fact, ...]) -> str:
    parts = [lead] if lead else []
    if blocks:
        parts.append("\n".join(b.statement for b in blocks))
    for b in blocks:
        rows = [f"From {b.label}, which limits the cover above:" if b.added else f"From {b.label}:"]
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
