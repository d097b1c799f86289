"""The answer boundary: checks in code that a reply must pass before a claimant sees it.

Each check is a plain function returning a Check; `check_reply` runs them all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from agent.reply import ClaimantReply
from knowledge.clauses import FetchedClause

MIN_QUOTE_WORDS = 3

# Wording that decides a claim. Policy text may say what the policy provides; a reply may
# not say what will happen to this claim.
_DECISION = re.compile(
    r"\b(?:(?:is|are|was|were|will be|would be|has been|have been|'s|'re)\s+(?:fully\s+)?"
    r"(?:covered|approved|accepted|declined|rejected|paid out|paid)"
    r"|(?:we|kowhai(?: mutual)?|the insurer)(?:\s+will|'ll)\s+(?:definitely\s+)?"
    r"(?:pay|cover|approve|accept|refund|reimburse)"
    r"|(?:claim|it)\s+(?:is|has been)\s+(?:successful|approved|accepted)"
    r"|(?:you are|you're)\s+(?:entitled|eligible)\s+to"
    r"|guarantee[sd]?)\b",
    re.IGNORECASE,
)
# Wording that tells the claimant a person has the question.
_ESCALATION = re.compile(
    r"\b(?:escalat\w*|waiting list|claims (?:team|handler)|our team|a colleague|staff member|"
    r"(?:passed|forwarded|referred|sent|handed)\s+(?:\w+\s+){0,3}(?:on|to|over)\b|"
    r"someone will|(?:they|we)'ll (?:get back|be in touch)|WL-\d+)",
    re.IGNORECASE,
)
_SUBJECT_TO = re.compile(r"subject to (?:the|your) claim being accepted", re.IGNORECASE)


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def normalise(text: str) -> str:
    return " ".join(text.split())


def cited_were_fetched(reply: ClaimantReply, fetched: dict[str, FetchedClause]) -> Check:
    unknown = sorted({c.clause_id for c in reply.citations} - fetched.keys())
    if unknown:
        return Check(
            "cited_were_fetched",
            False,
            f"cited {', '.join(unknown)} but resolve_clauses did not return it this turn; "
            f"returned: {', '.join(fetched) or 'none'}",
        )
    return Check("cited_were_fetched", True)


def quotes_in_clause(reply: ClaimantReply, fetched: dict[str, FetchedClause]) -> Check:
    bad = []
    for c in reply.citations:
        clause = fetched.get(c.clause_id)
        quote = normalise(c.quote).strip("\"“”' ")
        if clause is None:
            continue  # reported by cited_were_fetched
        if len(quote.split()) < MIN_QUOTE_WORDS:
            bad.append(f"{c.clause_id}: quote {c.quote!r} is shorter than {MIN_QUOTE_WORDS} words")
        elif quote not in normalise(clause.text):
            bad.append(f"{c.clause_id}: {c.quote!r} does not occur in the clause text")
    if bad:
        return Check("quotes_in_clause", False, "; ".join(bad))
    return Check("quotes_in_clause", True)


def answer_is_cited(reply: ClaimantReply) -> Check:
    if reply.outcome == "answered" and not reply.citations:
        return Check(
            "answer_is_cited",
            False,
            "an answer must cite at least one returned clause with a quote; "
            "otherwise route the question to staff",
        )
    return Check("answer_is_cited", True)


def no_claim_decision(reply: ClaimantReply, titles: Iterable[str] = ()) -> Check:
    """Quoted policy wording and clause titles may say what they say ("What contents are
    covered"); the reply's own words may not decide the claim."""
    text = reply.text
    for quoted in sorted([*(c.quote for c in reply.citations), *titles], key=len, reverse=True):
        text = text.replace(quoted, " ")
    text = _SUBJECT_TO.sub(" ", text)
    found = _DECISION.search(text)
    if found:
        return Check(
            "no_claim_decision",
            False,
            f"{found.group(0)!r} decides the claim; say instead that the policy includes "
            "the benefit, subject to the claim being accepted",
        )
    return Check("no_claim_decision", True)


def no_false_escalation(reply: ClaimantReply) -> Check:
    if reply.outcome == "routed_to_staff":
        return Check("no_false_escalation", True)
    found = _ESCALATION.search(reply.text)
    if found:
        return Check(
            "no_false_escalation",
            False,
            f"{found.group(0)!r} tells the claimant staff have the question, but no "
            "waiting-list item exists; set outcome routed_to_staff to route it",
        )
    return Check("no_false_escalation", True)


def check_reply(reply: ClaimantReply, fetched: dict[str, FetchedClause]) -> list[Check]:
    return [
        cited_were_fetched(reply, fetched),
        quotes_in_clause(reply, fetched),
        answer_is_cited(reply),
        no_claim_decision(reply, [c.title for c in fetched.values()]),
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
