"""Scoring quotes: which sentences or list items of a fetched clause answer the question.

A clause is served in whole sentences (a list item is one); the best-scored comes first,
with the ones that carry the question's subject nearly as well, and a benefit's limit.
"""

from __future__ import annotations

import re

from agent.models.vocabulary import GENERIC_STEMS, STRONG, terms, tokens
from knowledge.clauses import normalise_space

_AMOUNT_QUESTION = re.compile(
    r"\b(how (much|many|long)|limit|max|maximum|the most|cost|amount|worth|"
    r"per day|a day|days)\b",
    re.IGNORECASE,
)
_LIMIT = re.compile(r"\b(?:up to|at most|the most we pay)\b.*\b(?:NZD|\d+ (?:days|weeks|months))", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_PLAN_NAME = re.compile(r"\b([A-Z][a-z]+) plan\b")
# Further sentences of the chosen clause that carry the question's subject at least half as
# well as the best one are served too: a clause's decisive sentence is often not the best-scored.
ALSO_RATIO = 0.5
ALSO_MOST = 3


def plan_names(text: str) -> set[str]:
    """Plan names a clause's own text gives ("Standard plan", "Premier plan")."""
    return set(_PLAN_NAME.findall(text))


def best_quotes(
    question: str, clause: dict, plan: str | None, *, previous: str | None = None, amounts: bool = True
) -> list[tuple[float, str]]:
    """Score each sentence or list item of a clause against the question. A list item is
    scored by its label ("Electronics, computers and phones: …"), which says what the row is
    about; its figures only say how much. In a follow-up, what the earlier question already
    said counts less than what is new ("is the fuel for the rental covered too?"). Which plan's
    figure is the claimant's is the runtime's to say; a sentence that names only another plan is
    never the claimant's."""
    asked = terms(question) - GENERIC_STEMS
    # In a follow-up, the terms of the words the earlier question did not use are the subject.
    said = set(tokens(previous)) if previous else set()
    fresh = terms(" ".join(w for w in tokens(question) if w not in said)) if previous else asked
    before = asked - fresh
    wants_amount = amounts and bool(_AMOUNT_QUESTION.search(question))
    body = clause["text"].split("\n", 1)[1] if "\n" in clause["text"] else clause["text"]
    scored = []
    for sentence in _SENTENCE.split(body):
        for span in _spans(sentence):
            named = plan_names(span)
            if plan and named and plan not in named:
                continue  # a sentence about another plan only ("On the Premier plan the excess is …")
            label = _label(span)
            words = terms(label) if label else terms(span)
            shared = asked & words
            # A specific subject (STRONG) says more than any other shared word.
            score = sum((0.25 if t in before else 1.0) * (2.0 if t in STRONG else 1.0) for t in shared)
            if wants_amount and re.search(r"NZD|\d", span):
                score += 1.0
            if score > 0 and shared:
                scored.append((score, span))
    return sorted(scored, key=lambda s: -s[0])


def _label(span: str) -> str | None:
    """A list item's label, the words before its ":" ("Jewellery and watches: …")."""
    head, sep, _ = span.partition(":")
    return head if sep and len(head.split()) <= 8 else None


def _spans(sentence: str) -> list[str]:
    """A sentence or a list item, whole: the runtime serves it whole, and a row cut at its
    ";" would read as one plan's figure alone."""
    text = sentence.strip().lstrip("-*> ").strip()
    if not text or text.startswith("#"):
        return []
    return [text] if len(text.split()) >= 4 else []


def limit_sentence(clause: dict, quote: str) -> str | None:
    """A benefit's amount or duration sentence, so an answer about a benefit states its limit."""
    body = clause["text"].split("\n", 1)[1] if "\n" in clause["text"] else clause["text"]
    for sentence in _SENTENCE.split(body):
        for span in _spans(sentence):
            if span != quote and span not in quote and _LIMIT.search(span):
                return span
    return None


def decided_first(
    quotes: list[tuple[float, str]], clause: dict, deciding: tuple[tuple[str, str], ...], plan: str | None
) -> list[tuple[float, str]]:
    """A recalled clause's sentences that the recalled question's answer quoted, ahead of the
    rest (at the best sentence's score, or 1 when none shares a word with the question): a
    clause that decided the same question decides it by the same sentence, whatever words
    the new question happens to use."""
    # A quote of a few words would match many sentences: only one of four words or more counts.
    quoted = [normalise_space(s) for cid, s in deciding if cid == clause["clause_id"] and len(s.split()) >= 4]
    if not quoted:
        return quotes
    body = clause["text"].split("\n", 1)[1] if "\n" in clause["text"] else clause["text"]
    spans = [span for sentence in _SENTENCE.split(body) for span in _spans(sentence)]
    held = [
        span
        for span in spans
        if any(q in normalise_space(span) or normalise_space(span) in q for q in quoted)
        and not (plan and plan_names(span) and plan not in plan_names(span))
    ]
    if not held:
        return quotes
    top = quotes[0][0] if quotes else 1.0
    return [(top, span) for span in dict.fromkeys(held)] + [q for q in quotes if q[1] not in held]


def also_served(quotes: list[tuple[float, str]], *, most: int = ALSO_MOST) -> list[str]:
    """Further sentences of the same clause that carry the question's subject nearly as well
    as the best one: the decisive sentence is often the second ("… except keys that are lost").
    Never a second row of a limits list: another item's limit is not an answer."""
    best, first = quotes[0]
    if _label(first):
        return []
    return [span for score, span in quotes[1:] if score >= ALSO_RATIO * best and not _label(span)][:most]
