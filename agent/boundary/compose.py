"""The runtime composes what the claimant reads from a checked selection: a pure function.

For each point, the whole sentence or list item of the clause that holds its span (a list
item with its lead-in), labelled with clause ID, title and wording version; for every cited
clause that the schedule decides, the runtime's statement of whether it applies to this
claimant; after a sentence that names plans, which plan this claimant has; the selected
schedule facts with their labels; and one closing sentence that nothing is decided. In the
quoted style no word the model wrote is in the text; the explained style puts the model's
checked lead before the points.

No I/O: the same function builds staff drafts from the same inputs.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any, Literal

from agent.boundary.replies import NOTHING_DECIDED, plan_statement
from agent.boundary.reply import AnswerStyle, Selection
from agent.policy.schedule import ScheduleView
from knowledge.clauses import FetchedClause, normalise_space

# Sentences end at . ! ? before a capital, a digit, a bracket or a quotation mark, so "e.g. a"
# and "NZD 1,000.50" stay inside one sentence.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"“‘'])")
_LIST_ITEM = re.compile(r"^(?:[-*+•]|\d{1,2}[.)]|\([a-z0-9]{1,3}\))\s+")
# A served sentence that names a plan, so the claimant is told which plan is theirs.
_NAMES_PLAN = re.compile(r"\b(?:[A-Z][a-z]+ plans?|both plans|two plans)\b")

Status = Literal["included", "not_included", "excluded", "changed"]


# Sentences and list items ----------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """A whole sentence, or one list item with its lead-in, as the claimant is shown it; where
    it sits in the clause's body (whitespace normalised), for finding the span it holds."""

    text: str
    start: int
    end: int


def body(clause_text: str) -> str:
    """The clause's text without its heading line, whitespace normalised: what can be served."""
    lines = clause_text.splitlines()
    if lines and lines[0].startswith("#"):
        lines = lines[1:]
    return normalise_space("\n".join(lines))


def units(clause_text: str) -> tuple[Unit, ...]:
    """The clause's body cut into whole sentences and list items, in order."""
    found: list[Unit] = []
    offset = 0
    lead_in: Unit | None = None
    lines = clause_text.splitlines()
    if lines and lines[0].startswith("#"):
        lines = lines[1:]
    for raw in lines:
        line = normalise_space(raw)
        if not line:
            continue
        marker = _LIST_ITEM.match(line)
        if marker:  # a list item keeps its lead-in; without one ("Jewellery: …") it stands alone
            item = line[marker.end() :]
            found.append(Unit(f"{lead_in.text} {item}" if lead_in else item, offset, offset + len(line)))
        else:
            sentences = _sentences(line, offset)
            found.extend(sentences)
            last = sentences[-1] if sentences else None
            lead_in = last if last is not None and last.text.endswith(":") else None
        offset += len(line) + 1
    return tuple(found)


def _sentences(line: str, offset: int) -> list[Unit]:
    out, start = [], 0
    for m in _SENTENCE_END.finditer(line):
        out.append(Unit(line[start : m.start()], offset + start, offset + m.start()))
        start = m.end()
    out.append(Unit(line[start:], offset + start, offset + len(line)))
    return [u for u in out if u.text]


def served_units(clause_text: str, span: str) -> tuple[Unit, ...]:
    """Every whole sentence or list item that the span's first occurrence in the body touches
    (a span across two sentences serves both; a lead-in serves its items). () when the span
    is not in the body."""
    text, wanted = body(clause_text), normalise_space(span)
    at = text.find(wanted) if wanted else -1
    if at < 0:
        return ()
    end = at + len(wanted)
    all_units = units(clause_text)
    hit = [u for u in all_units if u.start < end and at < u.end]
    # A span inside a lead-in alone ("We do not cover:") serves the items that complete it;
    # a lead-in is never served bare beside its own items.
    if hit and all(u.text.endswith(":") for u in hit):
        lead = hit[-1]
        for unit in all_units[all_units.index(lead) + 1 :]:
            if not unit.text.startswith(lead.text + " "):
                break
            hit.append(unit)
    bare = {u for u in hit if u.text.endswith(":") and any(o.text.startswith(u.text + " ") for o in hit)}
    return tuple(u for u in dict.fromkeys(hit) if u not in bare)


# Whether a clause applies to this claimant ----------------------------------------------------------


@dataclass(frozen=True)
class Applicability:
    """Whether a clause applies to this claimant, decided from data and their schedule.

    `sentence` is the runtime's statement for the claimant; None when nothing in the schedule
    decides the clause (it applies as written)."""

    status: Status
    sentence: str | None = None


def applicability(
    plans: tuple[str, ...],
    added_by: tuple[str, ...],
    removed_by: tuple[str, ...],
    changed_by: tuple[str, ...],
    schedule: ScheduleView,
) -> Applicability:
    """The clause's plans (empty: every plan) and the schedule entries that add, remove or
    change it, read against this claimant's schedule. The one place that says "included"."""
    listed = set(schedule.sections)
    if plans and not schedule.on_plan(plans):
        return Applicability(
            "not_included",
            f"Your schedule shows the {schedule.plan} plan, and this applies only to the "
            f"{_names(plans)} plan, so your policy does not include it.",
        )
    if removed := [s for s in removed_by if s in listed]:
        return Applicability(
            "excluded",
            f"Your schedule lists {_labels(removed, schedule)}, which removes this from your policy.",
        )
    if added_by:
        present = [s for s in added_by if s in listed]
        if not present:
            return Applicability(
                "not_included",
                f"Your schedule does not list {_labels(added_by, schedule)}, so your policy does not "
                "include this benefit.",
            )
        return Applicability(
            "included",
            f"Your schedule lists {_labels(present, schedule)}, so your policy includes this benefit, "
            "subject to the claim being accepted.",
        )
    if changed := [s for s in changed_by if s in listed]:
        return Applicability(
            "changed",
            f"Your schedule lists {_labels(changed, schedule)}, which changes how this applies to you; "
            "your schedule sets out the change.",
        )
    if plans:
        return Applicability(
            "included", f"This applies to the {schedule.plan} plan, which your schedule shows."
        )
    return Applicability("included")


def clause_applicability(clause: FetchedClause, schedule: ScheduleView) -> Applicability:
    """A fetched clause's plans and the schedule entries that add, remove or change it (the
    wording's applies line, carried by the directory), read against this claimant's schedule."""
    return applicability(clause.plans, clause.added_by, clause.removed_by, clause.changed_by, schedule)


def _labels(keys: tuple[str, ...] | list[str], schedule: ScheduleView) -> str:
    return _names([schedule.label(k).lower() for k in keys])


def _names(names: tuple[str, ...] | list[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# The composed reply ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServedClause:
    clause_id: str
    title: str
    version: str
    sentences: tuple[str, ...]  # whole sentences and list items, as served
    spans: tuple[str, ...]  # the selected spans they were found from (re-read from the store)
    applicability: Applicability
    plan_statement: str | None

    @property
    def label(self) -> str:
        return f"{self.clause_id} {self.title} (wording {self.version})"


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
    clauses: tuple[ServedClause, ...]
    facts: tuple[Fact, ...]
    lead: str | None = None

    @property
    def statements(self) -> tuple[str, ...]:
        """The runtime's own sentences about this claimant's cover."""
        out = []
        for c in self.clauses:
            out += [s for s in (c.applicability.sentence, c.plan_statement) if s]
        return tuple(out)

    def citations(self) -> list[dict[str, str]]:
        """One per served sentence: clause ID, title, version and the words served."""
        return [
            {"clause_id": c.clause_id, "title": c.title, "version": c.version, "quote": s}
            for c in self.clauses
            for s in c.sentences
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
) -> Composed:
    """The reply built from a checked selection (every point's clause in `fetched`, every span
    in its clause's body, every fact key in the schedule)."""
    sentences: dict[str, list[str]] = {}
    spans: dict[str, list[str]] = {}
    for point in selection.points:
        found = served_units(fetched[point.clause_id].text, point.span)
        sentences.setdefault(point.clause_id, [])
        sentences[point.clause_id] += [u.text for u in found if u.text not in sentences[point.clause_id]]
        spans.setdefault(point.clause_id, []).append(point.span)
    clauses = tuple(
        ServedClause(
            cid,
            fetched[cid].title,
            version,
            tuple(said),
            tuple(spans[cid]),
            clause_applicability(fetched[cid], schedule),
            plan_statement(schedule.plan) if any(_NAMES_PLAN.search(s) for s in said) else None,
        )
        for cid, said in sentences.items()
    )
    facts = tuple(
        Fact(key, *fact) for key in dict.fromkeys(selection.schedule_facts) if (fact := schedule.fact(key))
    )
    lead = selection.lead.strip() if style == "explained" and selection.lead else None
    return Composed(_render(lead, clauses, facts), version, clauses, facts, lead)


def _render(lead: str | None, clauses: tuple[ServedClause, ...], facts: tuple[Fact, ...]) -> str:
    blocks = [lead] if lead else []
    for c in clauses:
        lines = [f"{c.label}:", *(f"“{s}”" for s in c.sentences)]
        lines += [s for s in (c.plan_statement, c.applicability.sentence) if s]
        blocks.append("\n".join(lines))
    if facts:
        blocks.append("\n".join(["From your schedule:", *(f"- {f.label}: {f.value}" for f in facts)]))
    blocks.append(NOTHING_DECIDED)
    return "\n\n".join(blocks)
