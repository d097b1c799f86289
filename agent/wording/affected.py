"""What a wording version affected: the agent's replies that cited it (from the turn records),
the staff answers sent while it governed the claim or citing it, and the drafts made from it.

When a policy owner withdraws a version, these are what may need a follow-up from staff, and
there can be hundreds of thousands. `affected()` gives each kind's exact total and one page of
each kind, oldest first: a page stays where it is while replies are still being added (they
come at the end) and the follow-up work goes in the order the claimants were told. Each page
walks an index in that order (the turns that cited something, the rows per cited clause,
the answered items, the drafts per version). `each_affected()` streams the whole list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import (
    JSON,
    ColumnElement,
    CompoundSelect,
    Select,
    case,
    cast,
    exists,
    func,
    literal,
    or_,
    select,
    text,
    union,
)
from sqlalchemy.orm import Session

from agent.db.tables import ANSWERED, CITING, CitingCount, Draft, Message, Turn, TurnCitation, WaitingItem

PAGE = 50  # rows of each kind on a page unless asked otherwise
MAX_PAGE = 1000
STREAM_BATCH = 1000


@dataclass(frozen=True)
class AffectedReply:
    kind: Literal["agent", "staff", "draft"]
    claim_id: str
    at: datetime
    # Agent: the turn and its outcome. Staff: the item answered and who answered.
    # Draft: the item it was made for and its state.
    ref: str
    detail: str
    cited: list[str]


@dataclass(frozen=True)
class Counts:
    """How many of each kind stood on a version."""

    agent: int = 0
    staff: int = 0
    drafts: int = 0


@dataclass(frozen=True)
class Affected:
    """Each kind's total, and rows offset + 1 to offset + limit of each kind, oldest first."""

    totals: Counts
    offset: int
    limit: int
    agent: list[AffectedReply]
    staff: list[AffectedReply]
    drafts: list[AffectedReply]

    @property
    def replies(self) -> list[AffectedReply]:
        """What claimants read on this page: the agent's replies and the staff answers, oldest first."""
        return sorted([*self.agent, *self.staff], key=lambda r: r.at)

    @property
    def next_offset(self) -> int | None:
        """The offset of the next page, or None when this one shows the last row of every kind."""
        end = self.offset + self.limit
        return end if end < max(self.totals.agent, self.totals.staff, self.totals.drafts) else None


class BadPage(ValueError):
    """A page size or offset out of range."""


def check_page(limit: int, offset: int) -> None:
    if not 1 <= limit <= MAX_PAGE:
        raise BadPage(f"the page size must be between 1 and {MAX_PAGE}, not {limit}")
    if offset < 0:
        raise BadPage(f"the offset must be 0 or more, not {offset}")


def affected(
    session: Session,
    family: str,
    version: str,
    clause_ids: set[str] | None = None,
    *,
    limit: int = PAGE,
    offset: int = 0,
) -> Affected:
    """Everything that stood on this family and version (optionally only what cited one of
    these clause IDs): each kind's total and one page of each."""
    check_page(limit, offset)
    agent, staff, drafts = _kinds(session, family, version, clause_ids)

    def cut(query: Any) -> Any:
        return query.limit(limit).offset(offset)

    return Affected(
        Counts(agent.total(), staff.total(), drafts.total()),
        offset,
        limit,
        agent.read(cut),
        staff.read(cut),
        drafts.read(cut),
    )


def each_affected(
    session: Session, family: str, version: str, clause_ids: set[str] | None = None
) -> Iterator[AffectedReply]:
    """Every row of every kind (agent replies, staff answers, drafts), each kind oldest first,
    read in batches: the whole follow-up list at any size."""
    for kind in _kinds(session, family, version, clause_ids):
        yield from kind.stream()


CSV_COLUMNS = ("kind", "at", "claim_id", "ref", "detail", "cited")


def as_csv_rows(rows: Iterator[AffectedReply]) -> Iterator[tuple[str, ...]]:
    """The header, then one row each (cited clause IDs separated by spaces)."""
    yield CSV_COLUMNS
    for r in rows:
        yield (r.kind, r.at.isoformat(timespec="seconds"), r.claim_id, r.ref, r.detail, " ".join(r.cited))


# The three kinds -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Kind:
    session: Session
    query: Select[Any]  # every row, oldest first
    row: Callable[[Any], AffectedReply]
    total: Callable[[], int]
    # Agent replies: the page is cut from the keys (an index alone), then its rows are read.
    keys: Select[Any] | CompoundSelect[Any] | None = None

    def read(self, cut: Callable[[Any], Any]) -> list[AffectedReply]:
        if self.keys is None:
            return [self.row(r) for r in self.session.execute(cut(self.query))]
        page = cut(self.keys.order_by(text("started_at"), text("id"))).subquery()
        return [self.row(r) for r in self.session.execute(self.query.join(page, page.c.id == Turn.id))]

    def stream(self) -> Iterator[AffectedReply]:
        query = self.query
        if self.keys is not None:
            every = self.keys.subquery()
            query = query.join(every, every.c.id == Turn.id)
        rows = self.session.execute(query.execution_options(yield_per=STREAM_BATCH))
        for r in rows:
            yield self.row(r)


def _kinds(session: Session, family: str, version: str, clause_ids: set[str] | None) -> list[_Kind]:
    clauses = sorted(clause_ids or ())
    return [
        _agent(session, family, version, clauses),
        _staff(session, family, version, clauses),
        _drafts(session, family, version, clauses),
    ]


def _agent(session: Session, family: str, version: str, clauses: list[str]) -> _Kind:
    """The turn records that cited something of the version (the partial index ix_turns_citing,
    in time order), or one of the clauses (turn_citations, in time order per clause; for several,
    their union merged in that order). Totals are the kept counts, but for several clauses at
    once (a turn may cite two of them), counted from those rows."""
    keys: Select[Any] | CompoundSelect[Any]
    if clauses:
        c = TurnCitation
        arms = [
            select(c.turn_id.label("id"), c.started_at.label("started_at")).where(
                c.family == family, c.version == version, c.clause_id == clause
            )
            for clause in clauses
        ]
        keys = union(*arms) if len(arms) > 1 else arms[0]
    else:
        keys = select(Turn.id.label("id"), Turn.started_at.label("started_at")).where(
            Turn.family == family, Turn.version == version, text(CITING)
        )

    def count() -> int:
        if len(clauses) > 1:
            merged = keys.order_by(text("started_at"), text("id")).subquery()  # SQLite merges the sorted arms
            return session.scalar(select(func.count()).select_from(merged)) or 0
        kept = select(CitingCount.replies).where(
            CitingCount.family == family,
            CitingCount.version == version,
            CitingCount.clause_id == (clauses[0] if clauses else ""),
        )
        return session.scalar(kept) or 0

    query = select(Turn.claim_id, Turn.started_at, Turn.id, Turn.outcome, Turn.cited).order_by(
        Turn.started_at, Turn.id
    )
    return _Kind(
        session,
        query,
        lambda r: AffectedReply(
            "agent", r.claim_id, r.started_at, r.id, r.outcome or "", list(r.cited or [])
        ),
        count,
        keys,
    )


def _staff(session: Session, family: str, version: str, clauses: list[str]) -> _Kind:
    """Answered items of the family sent under the version or citing it (with clauses: citing
    one of them in that version), from the partial index of answered items."""
    w = WaitingItem
    stood = _cites(session, w.answer_citations, version=version, clauses=clauses)
    if not clauses:
        stood = or_(w.answer_version == version, stood)
    where = (w.family == family, text(ANSWERED), stood)
    query = (
        select(w.claim_id, w.answered_at, w.created_at, w.reference, w.answered_by, w.answer_citations)
        .where(*where)
        .order_by(w.answered_at, w.id)
    )

    def row(r: Any) -> AffectedReply:
        cited = [c["clause_id"] for c in r.answer_citations or [] if c.get("version") == version]
        at = r.answered_at or r.created_at
        return AffectedReply("staff", r.claim_id, at, r.reference, f"answered by {r.answered_by}", cited)

    return _Kind(session, query, row, lambda: _count(session, select(w.id).where(*where)))


def _drafts(session: Session, family: str, version: str, clauses: list[str]) -> _Kind:
    where = [Draft.family == family, Draft.version == version]
    if clauses:
        where.append(_cites(session, Draft.citations, clauses=clauses))
    query = (
        select(Draft.made_at, Draft.id, Draft.origin, Draft.citations, WaitingItem.reference)
        .add_columns(WaitingItem.claim_id, WaitingItem.status)
        .join(WaitingItem, WaitingItem.id == Draft.item_id)
        .where(*where)
        .order_by(Draft.made_at, Draft.id)
    )

    def row(r: Any) -> AffectedReply:
        detail = f"draft {r.id} ({r.origin}), item {r.status}"
        cited = [c["clause_id"] for c in r.citations or []]
        return AffectedReply("draft", r.claim_id, r.made_at, r.reference, detail, cited)

    return _Kind(
        session, query, row, lambda: _count(session, query.with_only_columns(Draft.id).order_by(None))
    )


def _count(session: Session, query: Select[Any]) -> int:
    return session.scalar(select(func.count()).select_from(query.subquery())) or 0


def _cites(
    session: Session, column: Any, *, version: str | None = None, clauses: list[str] | None = None
) -> ColumnElement[bool]:
    """Whether a JSON list of citations holds one of this version and (given) of these clause IDs,
    in the database's own JSON functions. The listing reads the stored form
    (agent.boundary.citation.Citation.as_dict) by its `clause_id` and `version` keys alone, here
    and in Python alike, so it lists whatever a row holds beside them."""
    if session.get_bind().dialect.name == "sqlite":
        each = func.json_each(column).table_valued("value", "type").alias("c")
        where = [each.c.type == "object"]

        def field(name: str) -> Any:
            return func.json_extract(each.c.value, f"$.{name}")
    else:
        listed = case((func.json_typeof(column) == "array", column), else_=cast(literal("[]"), JSON))
        each = func.json_array_elements(listed).table_valued("value").alias("c")
        where = []

        def field(name: str) -> Any:
            return each.c.value.op("->>")(name)

    if version is not None:
        where.append(field("version") == version)
    if clauses:
        where.append(field("clause_id").in_(clauses))
    return exists(select(1).select_from(each).where(*where))


# The wording page and withdrawals --------------------------------------------------------------


def staff_answers_from(session: Session, family: str, version: str) -> list[tuple[WaitingItem, str]]:
    """Staff answers sent while this version governed the claim, or citing it: (item, message).
    An answer that cites nothing still stood on that wording."""
    rows = session.execute(
        select(WaitingItem, Message.body)
        .join(Message, Message.id == WaitingItem.answer_message_id)
        .where(WaitingItem.family == family)
        .order_by(WaitingItem.answered_at, WaitingItem.id)
    ).all()
    return [
        (item, body)
        for item, body in rows
        if item.answer_version == version
        or any(c.get("version") == version for c in item.answer_citations or [])
    ]


def counts(session: Session) -> dict[str, dict[str, Counts]]:
    """family -> version -> affected()'s three totals for every version at once: the agent
    replies from the counts kept per version, staff answers from the answered items' version
    and citations, drafts grouped per version."""
    found: dict[tuple[str, str], list[int]] = {}

    def add(family: str | None, version: str | None, kind: int, n: int) -> None:
        if family is not None and version is not None:
            found.setdefault((family, version), [0, 0, 0])[kind] += n

    agent = session.execute(
        select(CitingCount.family, CitingCount.version, CitingCount.replies).where(
            CitingCount.clause_id == "", CitingCount.replies > 0
        )
    )
    for family, version, n in agent:
        add(family, version, 0, n)
    # An answer's message always exists (a foreign key), so no join to the messages is needed.
    answers = session.execute(
        select(WaitingItem.family, WaitingItem.answer_version, WaitingItem.answer_citations).where(
            text(ANSWERED)
        )
    )
    for family, answer_version, citations in answers:  # once per version it stood on
        for version in {answer_version, *(c.get("version") for c in citations or [])}:
            add(family, version, 1, 1)
    drafts = session.execute(
        select(Draft.family, Draft.version, func.count())
        .join(WaitingItem, WaitingItem.id == Draft.item_id)
        .group_by(Draft.family, Draft.version)
    )
    for family, version, n in drafts:
        add(family, version, 2, n)
    by_family: dict[str, dict[str, Counts]] = {}
    for (family, version), (a, st, d) in found.items():
        by_family.setdefault(family, {})[version] = Counts(a, st, d)
    return by_family
