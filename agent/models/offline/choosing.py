"""Choosing clauses: which directory titles fit the question, and which spans of the clauses
that came back make the selection (or why the question goes to staff).

A fetched clause that only shares a word with the question is not quoted: an irrelevant
cited answer is worse than routing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from agent.models.offline.answerability import CLAIM_ITSELF, ROUTE_KIND, asks_nothing, unanswerable
from agent.models.offline.quotes import also_served, best_quotes, decided_first, limit_sentence
from agent.models.vocabulary import GENERIC_STEMS, STRONG, terms, tokens
from knowledge.clauses import MAX_CLAUSES_PER_FETCH

# A word that points back ("does that include fuel?"): the question continues the earlier one.
FOLLOW_UP = re.compile(r"\b(that|it|this|those|these|same|also|too)\b", re.IGNORECASE)
# What a verified question of the same meaning cites outranks a sentence that merely shares a word.
PREFERRED_BONUS = 1.0
_PARTS = re.compile(
    r"\?+|,?\s+(?:and|also|plus|but)\s+(?=(?:is|are|do|does|did|can|could|will|would|what|whats|"
    r"what's|how|when|where|who|if)\b)|,\s+(?=(?:is|are|do|does|can|could|will|what|whats|what's|how|when)\b)",
    re.IGNORECASE,
)
_EXCESS_KEYS = {"#young": ("under_25_driver", "inexperienced_driver"), "#earthquake": ("natural_hazard",)}
_SUM_INSURED = re.compile(
    r"\b(sum insured|insured for|agreed value|value (?:on|of) my|cover(?:ed)? for how much|"
    r"how much (?:is|are) my (?:house|home|car|contents?|stuff)\b.*\binsured)",
    re.IGNORECASE,
)
_SCHEDULE_ITEM = re.compile(r"([a-z_0-9]+) (?:[A-Z]{3} [\d,.]+|as set [^,;]*)")


@dataclass(frozen=True)
class Choice:
    clause_id: str
    score: float


def claim_steps(question: str) -> frozenset[str]:
    """ "What do I do now?", "what next": the claim steps, whatever words follow."""
    words = set(tokens(question))
    if "what" in words and ({"do", "next"} & words) and ({"now", "next", "first"} & words):
        return frozenset({"#how_to_claim"})
    return frozenset()


def plan_asked(question: str, plan: str | None) -> frozenset[str]:
    """The schedule's plan name in a question ("on Premier") is a question about plans."""
    if plan and re.search(rf"\b{re.escape(plan)}\b", question, re.IGNORECASE):
        return frozenset({"#plan"})
    return frozenset()


def select_clauses(
    question: str,
    directory: list[tuple[str, str]],
    family: str | None = None,
    plan: str | None = None,
) -> list[Choice]:
    """Rank directory titles against the question; [] when no title fits or none can."""
    asked = terms(question) | claim_steps(question) | plan_asked(question, plan)
    if not asked or not directory or unanswerable(question, family):
        return []
    titles = {cid: terms(f"{title}") for cid, title in directory}
    in_titles = set().union(*titles.values())
    strong = asked & STRONG
    if strong and not strong & in_titles and not (asked - GENERIC_STEMS - STRONG) & in_titles:
        return []  # the question is about a subject this wording has no clause for
    df = {t: sum(t in ts for ts in titles.values()) for t in asked}
    n = len(directory)

    def weight(term: str) -> float:
        base = math.log(1 + n / df[term])
        if term in STRONG:
            return 3 * base
        return 0.3 * base if term in GENERIC_STEMS else base

    scored = [Choice(cid, sum(weight(t) for t in asked & ts)) for cid, ts in titles.items()]
    scored = sorted((c for c in scored if c.score > 0), key=lambda c: -c.score)
    if not scored or scored[0].score < 1.5:
        return []
    top = scored[0].score
    return [c for c in scored[:MAX_CLAUSES_PER_FETCH] if c.score >= 0.2 * top]


def best_parts(
    question: str, parts: list[tuple[str, str, str]], family: str | None, plan: str | None, *, most: int = 2
) -> list[int]:
    """The parts (number, name, size) whose names fit the question best, as directory titles do."""
    ranked = select_clauses(question, [(number, name) for number, name, _ in parts], family, plan)
    return [int(c.clause_id) for c in ranked[:most]]


def title_of(clause: dict) -> str:
    """A returned clause's title: its text's heading line (`## ID - Title`) says it."""
    if "title" in clause:
        return clause["title"]
    heading = clause["text"].split("\n", 1)[0]
    return heading.split(" - ", 1)[1] if heading.startswith("## ") and " - " in heading else ""


def addresses(question: str, clause: dict, plan: str | None = None) -> bool:
    """Whether a clause speaks to the question beyond a shared everyday word: a subject of
    the question that the clause's title names, a specific subject anywhere in the clause,
    or two of the question's content words. A follow-up ("does that include fuel?")
    continues the clause's subject: one word will do."""
    asked = (terms(question) | claim_steps(question) | plan_asked(question, plan)) - GENERIC_STEMS
    titled = terms(title_of(clause))
    shared = asked & (titled | terms(clause["text"]))
    if asked & STRONG:
        return bool(shared & STRONG)  # the question names its subject: the clause must have it
    if any(t.startswith("#") for t in shared & titled):
        return True
    needed = 1 if FOLLOW_UP.search(question) and len(asked) <= 2 else 2
    return len(shared) >= needed


def _applies(clause: dict) -> bool:
    """Whether the runtime says the clause applies to this claimant as part of their cover."""
    return clause.get("applies_to_claimant", "included") == "included"


def question_parts(question: str) -> list[str]:
    """The questions in one message ("is towing covered, and do I get a rental?"), each in
    the claimant's own words; a message that is one question is one part."""
    parts = [p.strip(" ,.!") for p in _PARTS.split(question)]
    merged: list[str] = []
    for part in (p for p in parts if p):
        # "…, can I still claim?" names no subject of its own: it asks about what came before.
        if merged and not (terms(part) - GENERIC_STEMS):
            merged[-1] = question[question.index(merged[-1]) : question.index(part) + len(part)]
        else:
            merged.append(part)
    return [p for p in merged if len(p.split()) >= 2] or [question]


def schedule_keys(question: str, schedule: dict) -> list[str]:
    """Schedule facts that answer an excess or sum-insured question, by key: the standard
    excess (and the extra one a young driver or an earthquake brings), the sums insured."""
    summary = schedule.get("summary") or ""
    excess_part = re.search(r"excess: (.*?); sums insured:", summary)
    sums_part = re.search(r"sums insured: (.*?)(?:;|$)", summary)
    excess = _SCHEDULE_ITEM.findall(excess_part.group(1)) if excess_part else []
    sums = _SCHEDULE_ITEM.findall(sums_part.group(1)) if sums_part else []
    asked = terms(question)
    keys: list[str] = []
    # The standard excess answers "what is my excess", not the excess of a named benefit
    # ("the excess for the windscreen"), which its clause gives.
    other_subject = asked & STRONG - {"#excess", "#young", "#earthquake"}
    if "#excess" in asked and not other_subject:
        keys += [k for k in excess if k == "standard"]
        for concept, extra in _EXCESS_KEYS.items():
            if concept in asked:
                keys += [k for k in excess if k in extra]
    if _SUM_INSURED.search(question):
        keys += [k for k in sums if k != "portable_valuables" or "#portable" in asked]
    return list(dict.fromkeys(keys))


# One clause picked to answer: its score, the clause, its best span and the further spans served with it.
Pick = tuple[float, dict, str, list[str]]


@dataclass(frozen=True)
class _Asking:
    """What the returned clauses are picked against, for one message (see `selection_for`)."""

    asked: str  # the parts of the message answered here: what a clause must speak to
    plan: str | None
    previous: str | None
    continuing: tuple[str, ...]
    preferred: tuple[str, ...]
    deciding: tuple[tuple[str, str], ...]
    amounts: bool  # False where the schedule gives the amount


def selection_for(
    question: str,
    returned: dict,
    previous: str | None = None,
    continuing: tuple[str, ...] = (),
    family: str | None = None,
    *,
    preferred: tuple[str, ...] = (),
    deciding: tuple[tuple[str, str], ...] = (),
) -> dict:
    """Spans of the returned clauses that answer the question, with the schedule facts an
    excess or sum-insured question asks for; a part about the claim itself is handed to staff;
    with nothing to serve, a route with the reason that fits. In a follow-up, `previous` is the
    earlier question and `continuing` the clauses its answer cited: the conversation's subject.
    `preferred` are the clauses a verified question of the same meaning cites: they speak to
    the question whatever words they share with it, and their sentences come first; of those,
    the sentences that decided it (`deciding`: clause ID and sentence, as quoted) lead."""
    if asks_nothing(question):
        return {"outcome": "nothing_asked"}
    schedule = returned.get("schedule") or {}
    parts = question_parts(question)
    # A part about the claim itself ("and when will it be ready?") goes to staff; the rest is answered.
    about_the_claim = [p for p in parts if ROUTE_KIND.get(unanswerable(p, family)) in CLAIM_ITSELF]
    staff_parts = about_the_claim if len(parts) > 1 else []
    kind = unanswerable(question if len(parts) == 1 else parts[0], family)
    if kind in ROUTE_KIND and (len(parts) == 1 or len(staff_parts) == len(parts)):
        return {"outcome": "routed_to_staff", "route_reason": ROUTE_KIND[kind]}
    asked = " ".join(p for p in parts if p not in staff_parts) if staff_parts else question
    facts = schedule_keys(asked, schedule)
    answered_parts = [p for p in parts if p not in staff_parts]
    # Where the schedule gives the amount, a sentence is not chosen for having one.
    asking = _Asking(asked, schedule.get("plan"), previous, continuing, preferred, deciding, not facts)
    clauses = returned.get("clauses", [])
    if len(answered_parts) > 1:  # each question of the message gets its own best span
        picks, missing = _picks_by_part(answered_parts, clauses, asking, schedule)
        staff_parts += missing if picks or facts else []
    else:
        picks = _picks_of_one(clauses, asking)
    if not picks and not facts:
        return _routed(staff_parts, family, returned)
    return _answered(picks, facts, staff_parts)


def _picks_for(text: str, clauses: list[dict], asking: _Asking) -> list[Pick]:
    """The clauses that speak to the question, best first, each with its spans for `text`."""
    found = []
    for clause in clauses:
        relevant = (
            clause["clause_id"] in asking.preferred
            or addresses(asking.asked, clause, asking.plan)
            or (
                asking.previous is not None
                and addresses(f"{asking.previous} {asking.asked}", clause, asking.plan)
            )
        )
        if not relevant:
            continue  # shares a word with the question, not its subject
        quotes = best_quotes(text, clause, asking.plan, previous=asking.previous, amounts=asking.amounts)
        if clause["clause_id"] in asking.preferred:
            quotes = decided_first(quotes, clause, asking.deciding, asking.plan)
        if quotes:
            carried_on = 0.5 if clause["clause_id"] in asking.continuing else 0.0
            carried_on += PREFERRED_BONUS if clause["clause_id"] in asking.preferred else 0.0
            also = also_served(quotes)
            if not _applies(clause):  # no limit of a benefit they lack
                also = [span for span in also if not re.search(r"NZD|\d", span)]
            found.append((quotes[0][0] + carried_on, clause, quotes[0][1], also))
    return sorted(found, key=lambda p: -p[0])


def _picks_by_part(
    parts: list[str], clauses: list[dict], asking: _Asking, schedule: dict
) -> tuple[list[Pick], list[str]]:
    """The best pick of each part of a message, and the parts that neither a clause nor a
    schedule fact answers."""
    picks: list[Pick] = []
    missing: list[str] = []
    for part in parts:
        best = _picks_for(part, clauses, asking)[:1]
        if best:
            picks += [b for b in best if all(b[2] != p[2] for p in picks)]
        elif not schedule_keys(part, schedule):
            missing.append(part)
    return picks, missing


def _picks_of_one(clauses: list[dict], asking: _Asking) -> list[Pick]:
    """The one or two clauses that answer a message of one question."""
    picks = _picks_for(asking.asked, clauses, asking)[:2]
    # A second clause when its best sentence carries the question's subject nearly as well
    # as the first's: the one that decides it is often the other of two close ones.
    # When the first is a benefit the claimant's schedule lacks, the other clause is kept
    # whatever its score: "not included" alone misleads if the loss is covered elsewhere.
    lacks_first = bool(picks) and not _applies(picks[0][1])
    if len(picks) == 2 and picks[1][0] < 0.8 * picks[0][0] and not lacks_first:
        picks = picks[:1]
    # A benefit the claimant's schedule lacks has no limit for them, from any clause.
    lacked = len(picks) == 2 and not _applies(picks[0][1])
    if lacked and re.search(r"NZD|\d", picks[1][2]):
        picks = picks[:1]
    return picks


def _routed(staff_parts: list[str], family: str | None, returned: dict) -> dict:
    """The route for a message with nothing to serve."""
    if staff_parts and (kind := unanswerable(staff_parts[0], family)) in ROUTE_KIND:
        # "Where's my claim up to? I sent the photos": nothing else in it is answered, so
        # the reason is the part about the claim itself, not a missing clause.
        return {"outcome": "routed_to_staff", "route_reason": ROUTE_KIND[kind]}
    reason = "clause_not_in_directory" if returned.get("not_found") else "no_clause_selected"
    return {"outcome": "routed_to_staff", "route_reason": reason}


def _answered(picks: list[Pick], facts: list[str], staff_parts: list[str]) -> dict:
    """The selection that serves the picks' spans (and an included benefit's limit), the
    schedule facts, and the first part handed to staff."""
    points: list[dict] = []
    for _, clause, quote, also in picks:
        for span in (quote, *also):
            if all(p["span"] != span for p in points):
                points.append({"clause_id": clause["clause_id"], "span": span})
        benefit = clause.get("optional_section") or "-BEN-" in clause["clause_id"]
        limit = limit_sentence(clause, quote)
        included = _applies(clause)
        if benefit and limit and included and all(p["span"] != limit for p in points):
            points.append({"clause_id": clause["clause_id"], "span": limit})
    points = points[:6]
    selection: dict = {"outcome": "answered", "points": points}
    if facts:
        selection["schedule_facts"] = facts
    if staff_parts:
        selection["unanswered_part"] = staff_parts[0]
    return selection
