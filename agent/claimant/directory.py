"""The directory as the model sees it, for this claimant, in one level or two.

A note that is not contract text and an endorsement the schedule does not list are left out:
the model cannot name them, nor another cover level's exclusions and conditions. A clause of
cover whose plans (cover levels) leave out the
claimant's is listed, marked NOT_THEIRS, so a claimant asking about a benefit of a dearer level
is told their policy does not include it (the runtime's statement, agent.boundary.statements)
rather than sent to staff for want of a clause; the model's memory never counts such a clause as
the claimant's (agent.models.memory), nor is a link to one followed. A wording's directory that
still costs more than DIRECTORY_TOKENS is shown in two levels: its parts in the prompt, a
part's clauses on asking (tool `open_parts`). Parts larger than PART_TOKENS are cut, at a
change of subject, into pieces that fit.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from agent.boundary.selection import NOT_THEIRS
from agent.boundary.statements import kind_of
from agent.models.tokenizer import tokenizer
from agent.policy.schedule import ScheduleView
from knowledge.clauses import Directory, DirectoryEntry
from knowledge.source import CLAUSE_ID

DIRECTORY_TOKENS = 700  # beyond this the model sees parts first
PART_TOKENS = 450  # the most one part's listing may cost
ENUM_MOST = 40  # more IDs than this are offered by pattern, not listed in the tool schema
MOST_PARTS = 2  # parts one open_parts call may open
OTHER = "General"  # the part of clauses before the wording's first part heading


@dataclass(frozen=True)
class Part:
    number: int
    name: str
    entries: tuple[DirectoryEntry, ...]


@dataclass(frozen=True)
class ModelDirectory:
    """What the model may name (`directory`, filtered) and how it is shown."""

    directory: Directory
    parts: tuple[Part, ...]
    two_level: bool
    plan: str = ""  # the claimant's plan: clauses of other plans only are marked NOT_THEIRS

    def lines(self, entries: Iterable[DirectoryEntry]) -> str:
        """`ID Title` lines of these clauses as this claimant's model reads them."""
        return clause_lines(entries, self.plan)

    def listing(self) -> str:
        """The directory lines of the prompt: every clause, or the parts with their sizes."""
        if not self.two_level:
            return self.lines(self.directory.entries)
        head = f"Parts (open_parts with up to {MOST_PARTS} numbers lists their clause IDs and titles):"
        return "\n".join([head, *(f"{p.number} {p.name} ({len(p.entries)})" for p in self.parts)])

    def open(self, numbers: Iterable[int]) -> tuple[list[Part], list[int]]:
        """The parts asked for, and the numbers that name no part."""
        by_number = {p.number: p for p in self.parts}
        wanted = list(dict.fromkeys(numbers))
        return [by_number[n] for n in wanted if n in by_number], [n for n in wanted if n not in by_number]

    def id_schema(self, listed: Iterable[str] = ()) -> dict[str, str | list[str]]:
        """The JSON schema of one clause ID in resolve_clauses: an enum of the IDs the model has
        been shown (all of them in one level; the opened parts' in two), while that stays small;
        otherwise the ID pattern. Membership is checked in the tool either way."""
        ids = [e.clause_id for e in self.directory.entries] if not self.two_level else list(listed)
        if ids and len(ids) <= ENUM_MOST:
            return {"type": "string", "enum": ids}
        return {"type": "string", "pattern": f"^{CLAUSE_ID}$"}


def clause_lines(entries: Iterable[DirectoryEntry], plan: str = "") -> str:
    """One `ID Title` line a clause, with a `# Part` line where the part changes; with a plan,
    a clause of other plans only is marked NOT_THEIRS."""
    probe = ScheduleView(plan, [], {}, {}, {})
    lines: list[str] = []
    part: str | None = None
    for e in entries:
        if e.part and e.part != part:
            lines.append(f"# {e.part}")
        part = e.part
        mark = NOT_THEIRS if plan and not probe.holds(e.plans) else ""
        lines.append(f"{e.clause_id} {e.title}{mark}")
    return "\n".join(lines)


def listed_for(entry: DirectoryEntry, schedule: ScheduleView) -> bool:
    """Whether the claimant's model may name the clause: contract text, and an endorsement's own
    text only where the schedule lists it. Of another plan's clauses, only cover is listed
    (marked): a claimant may ask about a benefit they lack, while another level's exclusion or
    condition limits nothing they hold."""
    if not entry.citable:
        return False
    if not schedule.holds(entry.plans) and kind_of(entry.clause_id) != "cover":
        return False
    return "-END-" not in entry.clause_id or any(s in schedule.sections for s in entry.added_by)


def token_count(text: str) -> int:
    return len(tokenizer().encode(text))


def for_claimant(directory: Directory, schedule: ScheduleView) -> ModelDirectory:
    return _view(directory, schedule.plan, tuple(schedule.sections))


@lru_cache(maxsize=256)
def _view(directory: Directory, plan: str, sections: tuple[str, ...]) -> ModelDirectory:
    probe = ScheduleView(plan, list(sections), {}, {}, {})
    listed = [e for e in directory.entries if listed_for(e, probe)]
    # Another level's own copy of a subject the claimant's level also has (a wording written
    # level by level) is left out: naming it would tell them their policy does not include
    # what their own level's clause covers.
    levels = directory.plans_named
    held = {level_subject(e.title, levels) for e in listed if probe.holds(e.plans)}
    kept = tuple(e for e in listed if probe.holds(e.plans) or level_subject(e.title, levels) not in held)
    filtered = dataclasses.replace(directory, entries=kept)
    two_level = token_count(clause_lines(kept, plan)) > DIRECTORY_TOKENS
    return ModelDirectory(filtered, tuple(_parts(kept, plan)) if two_level else (), two_level, plan)


def level_subject(title: str, levels: Iterable[str]) -> str:
    """A title's subject without a leading cover level's name: "Comprehensive Plus Insurance:
    Emergency repairs: If …" and "Comprehensive Insurance: Emergency repairs: …" are both
    "emergency repairs"."""
    lowered = title.lower()
    for level in sorted((lv.lower() for lv in levels), key=len, reverse=True):
        if lowered.startswith(level):
            lowered = lowered[len(level) :].lstrip(" :,")
            break
    return _subject(lowered)


def _subject(title: str) -> str:
    return re.split(r":\s", title, maxsplit=1)[0].lower()


def _parts(entries: tuple[DirectoryEntry, ...], plan: str) -> list[Part]:
    groups: list[tuple[str, list[DirectoryEntry]]] = []
    for e in entries:
        name = e.part or OTHER
        if not groups or groups[-1][0] != name:
            groups.append((name, []))
        groups[-1][1].append(e)
    parts: list[Part] = []
    for name, members in groups:
        pieces = _pieces(members, plan)
        for k, piece in enumerate(pieces, 1):
            label = (
                name
                if len(pieces) == 1
                else f"{name} ({k} of {len(pieces)}: {piece[0].title.split(':')[0]} …)"
            )
            parts.append(Part(len(parts) + 1, label, tuple(piece)))
    return parts


def _pieces(members: list[DirectoryEntry], plan: str) -> list[list[DirectoryEntry]]:
    """A part cut into pieces of at most PART_TOKENS, each cut where the subject changes
    (a clause's title up to its colon) when there is such a place in the piece."""
    pieces: list[list[DirectoryEntry]] = [[]]
    for e in members:
        piece = pieces[-1]
        if piece and token_count(clause_lines([*piece, e], plan)) > PART_TOKENS:
            cut = next(
                (
                    k
                    for k in range(len(piece) - 1, 0, -1)
                    if _subject(piece[k].title) != _subject(piece[k - 1].title)
                ),
                len(piece),
            )
            pieces[-1], rest = piece[:cut], piece[cut:]
            pieces.append(rest)
        pieces[-1].append(e)
    return [p for p in pieces if p]
