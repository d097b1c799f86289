"""The answer boundary: checks in code that a selection must pass before the runtime composes.

Each check is a plain function returning a Check value. `check_selection` runs those of the
selection: every point's clause fetched this turn, every span verbatim in its clause (the
one definition, knowledge.clauses.verbatim), every schedule key real, the unanswered part
in the claimant's own message, at most six points, an answer resting on at least one point
or fact. A failed check's detail says what was found; it is written for the model's
corrective retry and is never shown to the claimant.

The free-text checks below them are for the only words a model may still write, the lead of
the opt-in explained mode (and the release check's reading of it): no decision, no clause ID
the points do not cite, quotations verbatim, figures sourced from a cited span or the
schedule, no contact details, no unlisted section described as included, no false claim that
staff have the question. Text is folded first (plaintext.fold) so curly quotes, invisible
characters and look-alike letters read as the plain words they imitate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from agent.boundary.decisions import find_decision
from agent.boundary.plaintext import (
    Figure,
    bare_numbers,
    blank,
    clause_ids,
    contacts,
    figures,
    fold,
    quotations,
)
from agent.boundary.plaintext import verbatim_in as _verbatim_in
from agent.boundary.selection import MAX_LEAD_CHARS, MAX_POINTS, AnswerStyle, Point, Selection
from agent.boundary.units import served_units
from agent.policy.schedule import ScheduleView
from knowledge.clauses import FetchedClause, verbatim
from knowledge.source import CLAUSE_ID

MIN_SPAN_WORDS = 3

# Wording that tells the claimant a person has the question.
_ESCALATION = re.compile(
    r"\b(?:escalat\w*|waiting list|claims (?:team|handler)|our team|a colleague|staff member|"
    r"(?:passed|forwarded|referred|sent|handed)\s+(?:\w+\s+){0,3}(?:on|to|over)\b|"
    r"someone will|(?:they|we)'ll (?:get back|be in touch)|WL-\d+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


# The selection ------------------------------------------------------------------------------------


def cited_were_fetched(points: Sequence[Point], fetched: dict[str, FetchedClause]) -> Check:
    unknown = sorted({p.clause_id for p in points} - fetched.keys())
    if unknown:
        return Check(
            "cited_were_fetched",
            False,
            f"cited {', '.join(unknown)} but resolve_clauses did not return it this turn; "
            f"returned: {', '.join(fetched) or 'none'}",
        )
    return Check("cited_were_fetched", True)


def spans_verbatim(points: Sequence[Point], fetched: dict[str, FetchedClause]) -> Check:
    """Every span is at least three words copied exactly from its clause's text (not its heading)."""
    bad = []
    for p in points:
        clause = fetched.get(p.clause_id)
        if clause is None:
            continue  # reported by cited_were_fetched
        if len(p.span.split()) < MIN_SPAN_WORDS:
            bad.append(f"{p.clause_id}: span {p.span!r} is shorter than {MIN_SPAN_WORDS} words")
        elif not verbatim(p.span, clause.text):
            bad.append(f"{p.clause_id}: {p.span!r} does not occur in the clause text")
        elif not served_units(clause.text, p.span):
            bad.append(f"{p.clause_id}: {p.span!r} is the clause's heading; copy words of its text")
    if bad:
        return Check("spans_verbatim", False, "; ".join(bad))
    return Check("spans_verbatim", True)


def points_within_limit(points: Sequence[Point]) -> Check:
    if len(points) > MAX_POINTS:
        return Check("points_within_limit", False, f"{len(points)} points; at most {MAX_POINTS}")
    return Check("points_within_limit", True)


def schedule_keys_exist(keys: Sequence[str], schedule: ScheduleView) -> Check:
    known = schedule.keys()
    unknown = [k for k in dict.fromkeys(keys) if k not in known]
    if unknown:
        return Check(
            "schedule_keys_exist",
            False,
            f"{', '.join(repr(k) for k in unknown)} is not a key of this schedule; keys: {', '.join(known)}",
        )
    return Check("schedule_keys_exist", True)


def unanswered_part_is_the_claimants(part: str | None, message: str) -> Check:
    """The part sent to staff is named in the claimant's own words, never the model's."""
    if part is not None and not verbatim(part, message):
        return Check(
            "unanswered_part_is_the_claimants",
            False,
            f"unanswered_part {part!r} is not in the claimant's message; copy their words exactly",
        )
    return Check("unanswered_part_is_the_claimants", True)


def answer_is_sourced(selection: Selection) -> Check:
    if selection.outcome == "answered" and not (selection.points or selection.schedule_facts):
        return Check(
            "answer_is_sourced",
            False,
            "an answer must select at least one span of a returned clause or one schedule fact; "
            "otherwise route the question to staff",
        )
    return Check("answer_is_sourced", True)


def check_selection(
    selection: Selection,
    fetched: dict[str, FetchedClause],
    schedule: ScheduleView,
    message: str,
    style: AnswerStyle = "quoted",
) -> list[Check]:
    """Every rule a selection must pass. A route or a nothing-asked reply is written by the
    runtime, so only an answer's material is checked; in the explained style its lead too."""
    if selection.outcome != "answered":
        return []
    checks = [
        cited_were_fetched(selection.points, fetched),
        spans_verbatim(selection.points, fetched),
        points_within_limit(selection.points),
        schedule_keys_exist(selection.schedule_facts, schedule),
        unanswered_part_is_the_claimants(selection.unanswered_part, message),
        answer_is_sourced(selection),
    ]
    if style == "explained" and selection.lead:
        checks += check_lead(FreeText(selection.lead, tuple(selection.points)), fetched, schedule)
    return checks


@dataclass(frozen=True)
class FreeText:
    """Words a model wrote for a claimant to read, with the points they rest on."""

    text: str
    points: tuple[Point, ...] = ()
    outcome: str = "answered"


def _cited(reply: FreeText, fetched: dict[str, FetchedClause]) -> dict[str, FetchedClause]:
    return {p.clause_id: fetched[p.clause_id] for p in reply.points if p.clause_id in fetched}


def _verified_quotes(reply: FreeText, fetched: dict[str, FetchedClause]) -> list[str]:
    """Spans that really occur in their fetched clause."""
    return [
        p.span for p in reply.points if p.clause_id in fetched and verbatim(p.span, fetched[p.clause_id].text)
    ]


# The free text ------------------------------------------------------------------------------------


def no_claim_decision(reply: FreeText, fetched: dict[str, FetchedClause] | None = None) -> Check:
    """No decision on this claim in either direction. A verbatim quotation of a cited
    clause, shown as a quotation, is policy wording; a cited clause's ID followed by its
    exact title in brackets is a reference; nothing else is set aside."""
    cited = _cited(reply, fetched or {})
    found = find_decision(
        reply.text,
        wording=[c.text for c in cited.values()],
        titles={cid: c.title for cid, c in cited.items()},
    )
    if found:
        return Check(
            "no_claim_decision",
            False,
            f"{found} decides the claim; describe what the wording provides and leave whether "
            "it applies to the runtime's statement",
        )
    return Check("no_claim_decision", True)


def ids_in_text_cited(reply: FreeText, fetched: dict[str, FetchedClause]) -> Check:
    """Every clause ID the text names is one this reply cites (a verbatim quotation of a
    cited clause may still mention the clauses that clause refers to)."""
    cited = {p.clause_id for p in reply.points}
    text = fold(reply.text)
    sources = [fold(c.text) for c in _cited(reply, fetched).values()]
    text = blank(text, [(q.start, q.end) for q in quotations(text) if _verbatim_in(q, sources)])
    named = [cid for cid in clause_ids(text) if cid not in cited]
    if named:
        return Check(
            "ids_in_text_cited",
            False,
            f"the text names {', '.join(named)}, which this reply does not cite; "
            f"name only cited clauses ({', '.join(sorted(cited)) or 'none cited'})",
        )
    return Check("ids_in_text_cited", True)


def text_quotes_verbatim(reply: FreeText, fetched: dict[str, FetchedClause], schedule: ScheduleView) -> Check:
    """Whatever the text shows as a quotation is verbatim in a clause fetched this turn
    or in the schedule summary."""
    sources = [fold(c.text) for c in fetched.values()] + [fold(schedule.summary())]
    bad = [q.text for q in quotations(fold(reply.text)) if not _verbatim_in(q, sources)]
    if bad:
        shown = "; ".join(repr(b[:80]) for b in bad)
        return Check(
            "text_quotes_verbatim",
            False,
            f"quoted {shown} but no clause fetched this turn (nor the schedule) contains it; "
            "quote only words copied exactly from a returned clause",
        )
    return Check("text_quotes_verbatim", True)


def figures_sourced(reply: FreeText, fetched: dict[str, FetchedClause], schedule: ScheduleView) -> Check:
    """Every amount, duration and percentage in the text occurs in a cited quote or in
    the claimant's schedule."""
    cited = _cited(reply, fetched)
    text = fold(reply.text)
    cited_sources = [fold(c.text) for c in cited.values()]
    in_cited = [q for q in quotations(text) if _verbatim_in(q, cited_sources)]
    # Figures inside a verbatim quotation of a cited clause are cited wording themselves;
    # so is a cited clause's "ID (Title)" reference.
    rest = blank(text, [(q.start, q.end) for q in in_cited])
    for cid, clause in cited.items():
        rest = rest.replace(f"{cid.lower()} ({fold(clause.title)})", " ")
    quoted = " | ".join([*(fold(q) for q in _verified_quotes(reply, fetched)), *(q.text for q in in_cited)])
    allowed = {f.key for f in figures(quoted)}
    schedule_text = fold(schedule.summary())
    allowed |= {f.key for f in figures(schedule_text)}
    schedule_numbers = bare_numbers(schedule_text)
    unsourced: list[Figure] = [
        f
        for f in figures(rest)
        if f.key not in allowed and not (f.kind == "amount" and f.value in schedule_numbers)
    ]
    if unsourced:
        shown = ", ".join(dict.fromkeys(repr(f.shown) for f in unsourced))
        return Check(
            "figures_sourced",
            False,
            f"{shown} is in the text but in no cited quote and not in the schedule; "
            "state a figure only by quoting the clause that gives it",
        )
    return Check("figures_sourced", True)


def no_contact_details(reply: FreeText, fetched: dict[str, FetchedClause]) -> Check:
    """No links, e-mail addresses or phone numbers unless a cited clause gives them."""
    cited = " ".join(fold(c.text) for c in _cited(reply, fetched).values())
    found = [c for c in contacts(fold(reply.text)) if c not in cited]
    if found:
        return Check(
            "no_contact_details",
            False,
            f"{', '.join(repr(f) for f in dict.fromkeys(found))} is a link or contact detail that no "
            "cited clause gives; leave it out",
        )
    return Check("no_contact_details", True)


def no_false_escalation(reply: FreeText) -> Check:
    if reply.outcome != "answered":
        return Check("no_false_escalation", True)
    found = _ESCALATION.search(fold(reply.text, casefold=False))
    if found:
        return Check(
            "no_false_escalation",
            False,
            f"{found.group(0)!r} tells the claimant staff have the question, but no "
            "waiting-list item exists; set outcome routed_to_staff to route it",
        )
    return Check("no_false_escalation", True)


# The schedule -------------------------------------------------------------------------------------

_INCLUDED = re.compile(
    r"\b(?:(?:your|the|this) (?:policy|cover|insurance|plan) (?:includes|does include|has|gives you|provides|"
    r"offers)|(?:your|the) schedule (?:lists|includes)|includes this benefit|"
    r"you (?:have|have got|get|are getting|also have)(?: [\w-]+){0,4}? (?:cover|benefit|insurance|option)\b|"
    r"\b(?:is|are) (?:also |still )?(?:included|listed|available|part of your (?:policy|cover))\b|"
    r"(?:this|the) benefit (?:applies|is available|is yours|is active))"
)
_NEGATED = re.compile(r"\b(?:not|no|never|without|neither|nor|doesn't|does not|isn't)\b")


def schedule_respected(reply: FreeText, fetched: dict[str, FetchedClause], schedule: ScheduleView) -> Check:
    """An optional section the schedule does not list is never described as included.

    An inclusion statement belongs to the cited clause named last before it (or, when none
    is named before it, to every cited clause), and to any section it names outright."""
    listed = set(schedule.sections)
    cited = _cited(reply, fetched)
    sections = {s for c in fetched.values() for s in c.added_by}
    unlisted = sections - listed
    if not unlisted:
        return Check("schedule_respected", True)
    text = fold(reply.text)
    sources = [fold(c.text) for c in cited.values()]
    text = blank(text, [(q.start, q.end) for q in quotations(text) if _verbatim_in(q, sources)], ' "" ')
    mentions = [(m.start(), m.group(0).upper()) for m in re.finditer(CLAUSE_ID.lower(), text)]
    for m in _INCLUDED.finditer(text):
        before = text[max(0, m.start() - 30) : m.start()]
        gap = m.group(0)
        after = text[m.end() : m.end() + 20]
        if _NEGATED.search(gap) or re.search(
            r"\b(?:not|no|never|n't|when|if|unless|whether|where)\s*$", before
        ):
            continue
        if re.match(r"\s*(?:no|none|nothing|only (?:when|if)|if|when|unless|where)\b", after):
            continue  # "lists no optional sections", "is available only when your schedule lists it"
        sentence = _sentence_at(text, m.start())
        named = {s for s in unlisted if any(label in sentence for label in _labels(s, schedule))}
        earlier = [cid for pos, cid in mentions if pos < m.start() and cid in cited]
        owners = [earlier[-1]] if earlier else list(cited)
        named |= {s for cid in owners for s in cited[cid].added_by if s in unlisted}
        if named:
            labels = ", ".join(schedule.label(s).lower() for s in sorted(named))
            return Check(
                "schedule_respected",
                False,
                f"{gap!r} describes {labels} as included, "
                "but the claimant's schedule does not list it; say their policy does not include it",
            )
    return Check("schedule_respected", True)


def _labels(section: str, schedule: ScheduleView) -> set[str]:
    return {fold(schedule.label(section)), section.replace("_", " ")}


def _sentence_at(text: str, position: int) -> str:
    start = max(text.rfind(". ", 0, position), text.rfind("; ", 0, position)) + 1
    ends = [i for i in (text.find(". ", position), text.find("; ", position)) if i >= 0]
    end = min(ends, default=len(text))
    return text[start:end]


# The lead, all of them ---------------------------------------------------------------------------


def lead_is_short(reply: FreeText) -> Check:
    if len(reply.text) > MAX_LEAD_CHARS:
        return Check(
            "lead_is_short", False, f"the lead has {len(reply.text)} characters; at most {MAX_LEAD_CHARS}"
        )
    return Check("lead_is_short", True)


def check_lead(reply: FreeText, fetched: dict[str, FetchedClause], schedule: ScheduleView) -> list[Check]:
    """Every free-text rule, for the words a model wrote (explained mode's lead)."""
    return [
        lead_is_short(reply),
        no_claim_decision(reply, fetched),
        ids_in_text_cited(reply, fetched),
        text_quotes_verbatim(reply, fetched, schedule),
        figures_sourced(reply, fetched, schedule),
        no_contact_details(reply, fetched),
        schedule_respected(reply, fetched, schedule),
        no_false_escalation(reply),
    ]


def release_unchanged(before: tuple[str, str, str], after: tuple[str, str, str]) -> Check:
    """The governing (family, version, content hash) at release equals the one fetched from."""
    if before != after:
        return Check(
            "release_unchanged",
            False,
            f"governing wording changed during the turn: {before[:2]} → {after[:2]}",
        )
    return Check("release_unchanged", True)
