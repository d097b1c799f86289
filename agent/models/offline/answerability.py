"""Answerability, which comes before answering: whether any policy wording answers a question.

A question about another product, a service request, claim progress, advice, a complaint or
a price is routed to staff without fetching anything, for the reason its kind gives; a
message that only thanks or greets asks nothing.
"""

from __future__ import annotations

import itertools
import re

from agent.boundary.triage import asks_how_to_complain
from agent.models.vocabulary import (
    ADVICE,
    COMPLAINT,
    CUE_PHRASES,
    DECISION,
    FINANCE,
    LEGAL_ACTION,
    OTHER_INSURER,
    PRICE,
    PRODUCT_NOUNS,
    PRODUCTS,
    PROGRESS,
    PROGRESS_PEOPLE,
    SELLING,
    SERVICE_PLACES,
    SERVICE_VERBS,
    stemmed,
    tokens,
)

# Words a claimant uses for their own product, per family: "car insurance" from a motor
# claimant is this policy; from a contents claimant it is another product.
OWN_PRODUCT = {
    "motor": frozenset({"car", "vehicl", "motor"}),
    "home": frozenset({"home", "hous"}),
    "contents": frozenset({"content"}),
}
ANY_PRODUCT = frozenset().union(*OWN_PRODUCT.values())


def own_product(family: str | None) -> frozenset[str]:
    """The claimant's own product words: the family's, or for an imported family named after
    its wording ("axa_car") those of every family whose words its name holds."""
    if not family:
        return frozenset()
    if family in OWN_PRODUCT:
        return OWN_PRODUCT[family]
    named = set(tokens(family.replace("_", " ")))
    return frozenset().union(*(w for w in OWN_PRODUCT.values() if w & named), frozenset())


_REQUEST = frozenset({"can", "could", "will", "would"})
# Legal action against the claimant ("they're suing me", "take us to court") is liability.
_AGAINST_US = re.compile(
    r"\b(?:sue|suing|sued|court|prosecut\w*|lawyers?)\b.{0,12}\b(?:me|us)\b|\b(?:me|us) to court\b", re.I
)
_YOU = frozenset({"you", "u", "ya"})
# A message made only of these asks nothing: the runtime answers it with its own sentence.
_PLEASANTRIES = frozenset(
    "hi hello hey kia ora thanks thank you cheers ta ok okay great good morning afternoon evening "
    "bye goodbye noted awesome sweet perfect lovely all".split()
)


def unanswerable(question: str, family: str | None = None) -> str | None:
    """Why no policy wording answers this question, or None when one may.

    Each kind is a combination of general words (a product noun next to "insurance", a
    request to the insurer to do something, claim progress, advice, a complaint, a price)
    or a set phrase of everyday usage ("press charges", "this once", "a copy of").
    """
    words = tokens(question)
    have = set(words)
    own = own_product(family)
    products = (stemmed(PRODUCTS) | ANY_PRODUCT) - own
    nouns = stemmed(PRODUCT_NOUNS)
    if have & stemmed(COMPLAINT) and not asks_how_to_complain(question):
        return "complaint"  # asking how to complain, a complaints section may answer
    for kind, phrases in CUE_PHRASES.items():
        if any(phrase.search(question) for phrase in phrases):
            return kind
    if have & stemmed(SERVICE_PLACES):
        return "service_request"
    for i, word in enumerate(words):
        if word in products and set(words[i + 1 : i + 3]) & nouns:
            return "other_product"
    if have & stemmed(SELLING) and have & nouns and have & (stemmed(PRODUCTS) - own):
        return "other_product"
    if have & stemmed(FINANCE):
        return "finance"
    if have & stemmed(OTHER_INSURER) and have & {"anoth", "other", "differ"}:
        return "other_insurer"
    for i, word in enumerate(words):
        asks = word in _REQUEST and set(words[i + 1 : i + 3]) & _YOU
        if asks and set(words[i + 2 : i + 6]) & stemmed(SERVICE_VERBS):
            return "service_request"
    if have & stemmed(LEGAL_ACTION) and not _AGAINST_US.search(question):
        return "legal_action"
    for i, word in enumerate(words):  # "send me", "email us": the insurer is asked to do something
        asked_of_us = i == 0 or words[i - 1] in {"pleas", "you", "u"}
        if asked_of_us and word in stemmed(SERVICE_VERBS) and words[i + 1 : i + 2] in (["me"], ["us"]):
            return "service_request"
    if have & stemmed(ADVICE):
        return "advice"
    if have & stemmed(DECISION) or re.search(r"\byes or no\b|\bor not\s*\??$", question, re.IGNORECASE):
        return "decision"
    if have & stemmed(PROGRESS) and ("claim" in have or have & stemmed(PROGRESS_PEOPLE)):
        return "claim_progress"
    # What the assessor did or said about this claim is the claim's own business, for staff.
    people_did = {"book", "been", "come", "name", "number", "talk", "speak", "say", "said", "told", "why"}
    if have & stemmed(PROGRESS_PEOPLE) and have & people_did:
        return "claim_progress"
    if ({"when", "long"} & have) and have & {"money", "payment", "payout", "fund"}:
        return "claim_progress"
    if {"where", "claim", "up"} <= have:
        return "claim_progress"
    if any(a == "worth" and b == "claim" for a, b in itertools.pairwise(words)):
        return "advice"
    price_moves = {"up", "increas", "rise", "cheaper", "discount", "lower", "higher", "affect", "chang"}
    if have & stemmed(PRICE) and have & price_moves:
        return "price"
    if "premium" in have and have & {"fortnight", "monthli", "instal", "instalment"}:
        return "price"
    if have & {"better", "cheaper"} and have & {"valu", "deal"}:
        return "price"
    if have & {"quot", "discount", "cheaper"}:
        return "price"
    if "cost" in have and have & {"add", "ad"}:
        return "price"
    return None


def asks_nothing(question: str) -> bool:
    """Thanks, a greeting, an acknowledgement: no question to answer or route."""
    words = re.findall(r"[a-z]+", question.lower())
    return bool(words) and "?" not in question and all(w in _PLEASANTRIES for w in words)


# Why a question no wording answers goes to staff, where that is not a missing clause: the
# claim itself (a decision on it, or how it is going), a request to act, or a kind of question
# no wording answers (advice, a price, another product or insurer, the claimant's legal steps).
ROUTE_KIND = {
    "decision": "needs_decision",
    "claim_progress": "claim_progress",
    "service_request": "request_for_staff",
    "complaint": "request_for_staff",
    "advice": "outside_the_wording",
    "price": "outside_the_wording",
    "other_product": "outside_the_wording",
    "other_insurer": "outside_the_wording",
    "finance": "outside_the_wording",
    "legal_action": "outside_the_wording",
}
# Parts of a message handed to staff while the rest is answered: those about the claim itself.
CLAIM_ITSELF = ("needs_decision", "claim_progress")
