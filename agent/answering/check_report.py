"""A release check's report as typed parts: the versions compared, the text and applicability
differences, each question with what each version served, the directory's size, the per-subject
bar figures, the evidence covered and the verdict.

agent.wording.release_check builds it; the command line, the staff pages and the API render it;
measured (and through it approval, promotion and the fall back) weighs a stored one. It lives
here, not beside the release check, because agent.answering may not import agent.wording (the
import contracts forbid the cycle).

A check is stored as JSON (ReleaseCheck.report, and its summary in ReleaseCheck.summary):
`as_dict()` writes the shape every earlier version wrote, and `of(data)` reads any of them back,
a key an earlier version did not write taking its field's default.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from types import NoneType, UnionType
from typing import Any, Self, Union, get_args, get_origin, get_type_hints

from agent.answering.bar import Bar
from agent.boundary.citation import Quote

ANSWERED = "answered"  # the outcome prefix of an answer served to the claimant
# A stored summary without a verdict was written before the bar was part of the check.
BEFORE_THE_BAR = "checked before the bar existed"


class Record:
    """A part of the report: read from the stored JSON, written back as the same JSON. Every
    field has a default, so a report of an earlier version, missing keys, still reads."""

    @classmethod
    def of(cls, data: Mapping[str, Any] | None) -> Self:
        return _read(cls, data or {})

    def as_dict(self) -> dict[str, Any]:
        return _plain(self)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return get_type_hints(cls)


def _read(cls: Any, data: Mapping[str, Any]) -> Any:
    """`cls` from JSON by its type hints; a missing or null key takes the field's default."""
    hints = _hints(cls)
    given = {f.name: _value(hints[f.name], data[f.name]) for f in fields(cls) if data.get(f.name) is not None}
    return cls(**given)


def _value(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, UnionType):  # X | None, the only union the report has
        return _value(next(a for a in args if a is not NoneType), value)
    if origin is tuple:
        return tuple(_value(args[0], v) for v in value)
    if origin is dict:
        return {k: _value(args[1], v) for k, v in value.items()}
    if is_dataclass(hint):
        return _read(hint, value)
    return value


def _plain(value: Any) -> Any:
    """JSON-ready: dataclasses as dicts in field order, tuples as lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


# The versions and the evidence ---------------------------------------------------------------


@dataclass(frozen=True)
class VersionFacts(Record):
    version: str = ""
    status: str = ""
    content_hash: str = ""
    clause_count: int = 0
    effective: str | None = None  # "[from, to)" once the version has an interval


@dataclass(frozen=True)
class StoreSummary(Record):
    """The evidence store's verified rows a measure replayed (agent.wording.measurement.Replay)."""

    verified_rows: int = 0
    last_evidence_id: int = 0
    replayed: int = 0
    served_wrong_as_recorded: int = 0
    not_replayed: dict[str, str] = field(default_factory=dict)  # evidence key -> why not


@dataclass(frozen=True)
class EvidenceCovered(Record):
    parts: tuple[str, ...] = ()
    asked: int = 0
    available: int = 0
    limit: int | None = None
    store: StoreSummary | None = None  # None: a check of the shipped inventory, no replay

    @property
    def verified_rows(self) -> int:
        """The verified evidence rows the check replayed or counted (0 for the inventory)."""
        return self.store.verified_rows if self.store else 0


# The questions -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Asked(Record):
    """One question asked of one version through the turn code, judged on its facts."""

    outcome: str = ""
    requested: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    route_reason: str | None = None
    reply: str = ""
    quotes: tuple[Quote, ...] = ()
    right: bool | None = None  # judged on the question's facts; None when nothing was served
    missed: tuple[tuple[str, ...], ...] = ()  # the fact groups the answer missed
    wrong: tuple[str, ...] = ()
    # The serving gate's subjects for what was composed (agent.answering.gate): a served answer
    # counts for each of them.
    subjects: tuple[str, ...] = ()
    near: bool = False

    @property
    def served(self) -> bool:
        return self.outcome.startswith(ANSWERED)


@dataclass(frozen=True)
class QuestionRow(Record):
    """A question with its answers under the version it would follow and under the candidate."""

    id: str = ""
    policy: str = ""
    part: str = ""
    text: str = ""
    earlier: tuple[str, ...] = ()
    answerable: bool = True
    expected: tuple[str, ...] = ()  # the clauses a right answer cites
    baseline: Asked | None = None
    candidate: Asked | None = None
    changes: tuple[str, ...] = ()  # "selected clauses", "answered → routed", "right → wrong", …


# The texts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffOp(Record):
    op: str = "equal"  # equal | delete | insert
    words: str = ""


@dataclass(frozen=True)
class FigureChange(Record):
    figure: str = ""
    sentence: str = ""


@dataclass(frozen=True)
class FigureChanges(Record):
    removed: tuple[FigureChange, ...] = ()
    added: tuple[FigureChange, ...] = ()


@dataclass(frozen=True)
class AddedClause(Record):
    clause_id: str = ""
    title: str = ""
    figures: tuple[str, ...] = ()


@dataclass(frozen=True)
class RemovedClause(Record):
    clause_id: str = ""
    title: str = ""


@dataclass(frozen=True)
class RewordedClause(Record):
    clause_id: str = ""
    old_title: str = ""
    title: str = ""
    title_changed: bool = False
    diff: tuple[DiffOp, ...] = ()
    figures_removed: tuple[FigureChange, ...] = ()
    figures_added: tuple[FigureChange, ...] = ()


@dataclass(frozen=True)
class TextChanges(Record):
    added: tuple[AddedClause, ...] = ()
    removed: tuple[RemovedClause, ...] = ()
    reworded: tuple[RewordedClause, ...] = ()


# Applicability -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AddedRemoved(Record):
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


@dataclass(frozen=True)
class WordingApplicability(Record):
    """What the wording offers, version against version: plans or cover levels, and the schedule
    entries its clauses name (named as the directory's fields, so a field reads by its name)."""

    plans: AddedRemoved = field(default_factory=AddedRemoved)
    added_by: AddedRemoved = field(default_factory=AddedRemoved)
    removed_by: AddedRemoved = field(default_factory=AddedRemoved)
    changed_by: AddedRemoved = field(default_factory=AddedRemoved)


@dataclass(frozen=True)
class FieldChange(Record):
    field: str = ""  # a DirectoryEntry field: plans, added_by, removed_by, changed_by
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class ApplicabilityChange(Record):
    clause_id: str = ""
    title: str = ""
    changes: tuple[FieldChange, ...] = ()


@dataclass(frozen=True)
class AddedApplicability(Record):
    clause_id: str = ""
    title: str = ""
    plans: tuple[str, ...] = ()
    added_by: tuple[str, ...] = ()
    removed_by: tuple[str, ...] = ()
    changed_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Applicability(Record):
    wording: WordingApplicability = field(default_factory=WordingApplicability)
    changed: tuple[ApplicabilityChange, ...] = ()  # kept clauses whose applicability differs
    added: tuple[AddedApplicability, ...] = ()  # added clauses, with what they apply to


# The bar -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SubjectEvidence(Record):
    """One subject's figures against the bar: a clause, or a pooled rule (agent.answering.gate)."""

    clause_id: str = ""
    pooled: bool = False
    title: str = ""
    questions: int = 0
    expecting: int = 0  # questions whose right answer cites it
    served: int = 0
    served_wrong: tuple[str, ...] = ()
    served_wrong_share: float | None = None
    upper_bound: float | None = None  # None in reports from before the Clopper–Pearson bar
    more_needed: int | None = None
    answered_right: int = 0
    answered_right_share: float | None = None
    meets_bar: bool = False
    short_of_bar: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecordedWrong(Record):
    """A served answer flagged wrong, counted as it happened rather than asked again."""

    key: str = ""
    subjects: tuple[str, ...] = ()


@dataclass(frozen=True)
class WrongAnswer(Record):
    id: str = ""
    policy: str = ""
    text: str = ""
    earlier: tuple[str, ...] = ()
    expected: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    served: str = ""  # the reply the claimant was served
    missed: tuple[tuple[str, ...], ...] = ()
    wrong: tuple[str, ...] = ()
    irrelevant: bool = False


@dataclass(frozen=True)
class DirectoryTokens(Record):
    candidate: int = 0
    baseline: int | None = None


# The summary ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Correctness(Record):
    """The evaluation's figures for one version's answers."""

    served: int = 0
    served_right: int = 0
    served_wrong: tuple[str, ...] = ()
    served_wrong_share: float | None = None
    answered_right_share: float | None = None
    unanswerable_routed: float | None = None


@dataclass(frozen=True)
class RightBySide(Record):
    candidate: Correctness | None = None
    baseline: Correctness | None = None  # None: no earlier version was asked


@dataclass(frozen=True)
class Verdict(Record):
    passed: bool = False
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Summary(Record):
    """What the check found, in figures and as sentences (`lines`, the verdict first)."""

    check_id: str = ""
    family: str = ""
    version: str = ""
    baseline: str | None = None
    model: str = ""
    questions: int = 0
    answers_changed: tuple[str, ...] = ()
    selection_changed: tuple[str, ...] = ()
    answered_to_routed: tuple[str, ...] = ()
    routed_to_answered: tuple[str, ...] = ()
    clauses_added: tuple[str, ...] = ()
    clauses_removed: tuple[str, ...] = ()
    clauses_reworded: tuple[str, ...] = ()
    figures_changed: tuple[str, ...] = ()
    directory_tokens: DirectoryTokens = field(default_factory=DirectoryTokens)
    right: RightBySide = field(default_factory=RightBySide)
    right_to_wrong: tuple[str, ...] = ()
    wrong_to_right: tuple[str, ...] = ()
    verdict: Verdict = field(default_factory=lambda: Verdict(reasons=(BEFORE_THE_BAR,)))
    bar: Bar | None = None
    evidence: EvidenceCovered = field(default_factory=EvidenceCovered)
    clauses_meeting_bar: tuple[str, ...] = ()
    clauses_with_evidence: int = 0
    wrong_answers: tuple[str, ...] = ()
    applicability_changed: tuple[str, ...] = ()
    applicability_wording: WordingApplicability = field(default_factory=WordingApplicability)
    lines: tuple[str, ...] = ()


# The report ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckReport(Record):
    check_id: str = ""
    created_at: str = ""  # ISO 8601, UTC, to the second
    created_by: str = ""
    family: str = ""
    candidate: VersionFacts = field(default_factory=VersionFacts)
    baseline: VersionFacts | None = None  # None: no earlier approved version, or not compared
    model: str = ""  # agent.models.selection.model_label of the model that answered
    evidence: EvidenceCovered = field(default_factory=EvidenceCovered)
    bar: Bar | None = None  # None in reports from before the bar was part of the check
    questions: tuple[QuestionRow, ...] = ()
    clauses: TextChanges = field(default_factory=TextChanges)
    applicability: Applicability = field(default_factory=Applicability)
    clause_evidence: tuple[SubjectEvidence, ...] = ()
    served_wrong_as_recorded: tuple[RecordedWrong, ...] = ()
    wrong_answers: tuple[WrongAnswer, ...] = ()
    directory_tokens: DirectoryTokens = field(default_factory=DirectoryTokens)
    summary: Summary = field(default_factory=Summary)
