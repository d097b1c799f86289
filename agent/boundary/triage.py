"""The runtime's own reading of a claimant's message: never the model's word alone.

- `chatter`: thanks, a greeting, an acknowledgement. The runtime's short reply, no staff item.
- `off_topic`: an English question that names things of its own but not one word of insurance,
  of this claimant's wording (its titles) or of their claim ("who won the rugby last night?"). The
  model is still asked: only if it, too, finds nothing to fetch does the runtime answer with what
  it can help with, and no staff item. A remark without a question may be news about the claim,
  and a question in another language may be about anything: a person reads both.
- `claim_decision`: a question about what will be decided on this claim or this policy (accepted,
  declined, written off, paid, the premium). No clause sentence is its answer, however it reads:
  it goes to a person before any model is asked.
- `urgent`, `complaint`, `action_requested`: a message that needs a person. It always reaches the
  waiting list, whatever the model selects (an answer from the wording may come with it).
- `question`: anything else; the model selects, the runtime composes or routes.

Silence is only for chatter and off-topic messages: a message the model says asks nothing but
the runtime reads as a question goes to staff. Urgency, a complaint or a request is never
chatter. A word of the wording or of insurance anywhere makes a message a question, and so
does a question about the claimant's own things or what they must do ("I've put new wheels
on, do I need to tell you?"): an unsure reading errs towards a person, never towards silence.
Asking how to complain is a question (the wording's complaints section answers it); complaining is
a complaint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent.boundary.qualifiers import stems
from agent.boundary.vocabulary import any_word, word_lists

Kind = Literal[
    "chatter", "off_topic", "claim_decision", "urgent", "complaint", "action_requested", "question"
]

_PLEASANTRIES = frozenset(
    "hi hello hey kia ora thanks thank you cheers ta ok okay great good morning afternoon evening "
    "bye goodbye noted awesome sweet perfect lovely all much very nice day night".split()
)
_WORDS = word_lists("triage_words.toml")
_THANKS = any_word(_WORDS["thanks"], re.IGNORECASE)
_URGENT = any_word(_WORDS["urgent"], re.IGNORECASE)
_COMPLAINT = any_word(_WORDS["complaint"], re.IGNORECASE)
# A question about the complaints process ("how do I make a complaint?", "what is your disputes
# process?"): the wording's complaints section answers it, so it is a question, unless the rest
# of the message complains.
_HOW_TO_COMPLAIN = re.compile(
    r"\b(?:how|where|who|what|which)\b[^.!?]{0,60}?\b(?:complain\w*|complaints?|dispute\w*|ombudsman|ifso)"
    r"\b[^.!?]{0,60}\?",
    re.IGNORECASE,
)
# Things only a person can do. Paying is left out: "will you pay the panel beater?" asks what
# the policy provides (or for a decision), which the wording or staff answer either way.
_ASK_VERBS = (
    r"(?:send|call|ring|phone|email|e-mail|text|arrange|book|cancel|change|update|correct|contact|"
    r"speak|talk|visit|close|reopen)"
)
_REQUEST = re.compile(
    rf"\b(?:please\s+{_ASK_VERBS}|(?:can|could|would|will)\s+(?:you|u|someone|somebody)\s+(?:please\s+)?"
    rf"{_ASK_VERBS}|i\s+(?:want|need|would like|'d like|wish)\s+to\s+{_ASK_VERBS}|{_ASK_VERBS}\s+me\b|"
    r"(?:speak|talk)\s+to\s+(?:a|an|someone|somebody|a person|a human|a manager))",
    re.IGNORECASE,
)
# A question about a decision on this claim or policy: whether it is accepted or declined, paid,
# written off, or what the premium will be. Questions about what the policy pays for ("will you
# pay for a rental car?") are not among them: the wording answers those.
_CLAIM = r"(?:my|the|this|our|that)\s+(?:\w+\s+)?claim"
_VERDICT = (
    r"(?:accept|approv|declin|reject|deny|denied|refus|turn\w*\s+down|settl|paid|pa(?:y|id)\s+out|cover)\w*"
)
_DECISION = re.compile(
    rf"\b(?:(?:has|have|is|was|will|would|does|did)\s+{_CLAIM}\s+(?:been\s+|be\s+|get\s+|going\s+to\s+be\s+)?"
    rf"{_VERDICT}|(?:will|would|are|did|have|going\s+to|do)\s+(?:you|they|u)\s+(?:\w+\s+)?(?:accept|approve|decline|"
    rf"reject|deny|refuse|turn\s+down|settle|pay\s+out)\s+(?:my|the|this|our|it|that)\b|"
    rf"\b(?:written|write|writing)\s+(?:it\s+|my\s+\w+\s+|the\s+\w+\s+)?off\b|\bwrite-?off\b|"
    rf"(?:is|be|was)\s+(?:it|my\s+\w+|the\s+\w+)\s+(?:now\s+)?(?:a\s+)?total\s+loss|"
    rf"(?:what|how\s+much)\s+(?:will|would|is|does)\s+(?:my|the)\s+(?:new\s+)?premium|"
    rf"premium\s+(?:go|goes|going|went|rise|increase|change)|"
    rf"(?:outcome|decision)\s+(?:on|of|about)\s+{_CLAIM}|"
    rf"(?:am\s+i|are\s+we)\s+(?:going\s+to\s+)?(?:get(?:ting)?|be)\s+paid\b)",
    re.IGNORECASE,
)
# "How much would I get if they write it off?": what the wording pays once a decision is made is
# the wording's to answer, not a decision to route.
_IF_DECIDED = re.compile(
    r"\b(?:if|when|once|in\s+case)\b[^?.!]*\b(?:writ\w*\s+(?:\w+\s+){0,2}off|write-?off|total\s+loss)\b",
    re.IGNORECASE,
)
# The claimant speaking of their own things, or asking what they must do: about their policy.
_OWN = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|im|ive|my|mine|me|we|we've|our|us)\b.*\?|"
    r"\b(?:do|should|must|would|can|could)\s+(?:i|we)\s+(?:need\s+to\s+|have\s+to\s+)?"
    r"(?:tell|let|notify|inform|declare|disclose|mention)\b|\b(?:tell|let)\s+you\s+know\b",
    re.IGNORECASE,
)
# Words of insurance and claims in any wording: a message holding one is about the policy or
# the claim, whatever else it says.
_INSURANCE = stems(
    "insurance insure insured insurer policy policies cover covered covering claim claims claimant "
    "excess premium schedule benefit benefits limit limits exclusion excluded wording clause "
    "damage damaged accident crash collision stolen theft burglary break-in broken lost loss "
    "repair repairs repairer replace replacement assessor assessment quote invoice receipt payment "
    "pay paid payout refund cancel renewal renew settle settlement total write-off written "
    "car vehicle house home contents belongings property storm flood fire water leak leaking hail "
    "earthquake windscreen glass tow towing rental hire driver driving injury liability lawyer "
    "photo photos document form reference staff handler agent person someone "
    "news update updates progress status happening waiting wait heard hear anyone back call called "
    "reply response respond answer ready long "
    "plan plans level option options add extra upgrade downgrade switch cheaper price cost costs "
    "quote buy sell deal compare provider company business tenant landlord rent mortgage bank "
    "finance loan legal court sue police report garage mechanic panel beater workshop builder "
    "plumber electrician roof ceiling wall floor window door lock key keys phone laptop jewellery "
    "bike bicycle furniture tv appliance fridge freezer boat caravan trailer pet dog cat travel "
    "thief thieves burglar stole steal robbed smashed hit dent scratch broke "
    "discount discounts bonus no-claims alarm alarms security deductible sum valuables item items "
    "cheap expensive afford money dollars "
    "wheels wheel tyres tyre suspension engine modification modifications modified modify alteration "
    "renovation renovate extension tell disclose declare notify"
)
# Common English words: a question without two of them may be in another language (te reo
# Māori, say), which this reading cannot judge.
_ENGLISH = frozenset(
    "the a an is are was were who what when where why how which do does did can could will would "
    "you your my i me we our it this that there of to in on at for with and or last next".split()
)
# An off-topic message names things of its own: a word or two ("Any news?", "Tell me more")
# are not enough to say it is not about the claim. Unsure, the message goes to a person.
OFF_TOPIC_WORDS = 3


@dataclass(frozen=True)
class Triage:
    kind: Kind

    @property
    def silent(self) -> bool:
        """Whether the runtime answers it alone, with no model and no staff item."""
        return self.kind == "chatter"

    @property
    def needs_person(self) -> bool:
        """Whether it reaches the waiting list whatever the model selects."""
        return self.kind in ("claim_decision", "urgent", "complaint", "action_requested")


def asks_how_to_complain(text: str) -> bool:
    """Whether the message asks about the complaints process and nothing in it complains."""
    return bool(_HOW_TO_COMPLAIN.search(text)) and not _COMPLAINT.search(_HOW_TO_COMPLAIN.sub(" ", text))


def triage(text: str, known: frozenset[str] = frozenset()) -> Triage:
    """The runtime's reading of `text`; `known` holds the stems of this claimant's own words
    (their wording's clause titles, schedule labels, claim incident)."""
    if _URGENT.search(text):
        return Triage("urgent")
    if _COMPLAINT.search(_HOW_TO_COMPLAIN.sub(" ", text)):
        return Triage("complaint")
    if _REQUEST.search(text):
        return Triage("action_requested")
    if _DECISION.search(text) and not _IF_DECIDED.search(text):
        return Triage("claim_decision")
    words = re.findall(r"[a-z]+", text.lower())
    if not words or ("?" not in text and all(w in _PLEASANTRIES for w in words)):
        return Triage("chatter")  # thanks, a greeting, or nothing to read (an emoji)
    said = stems(text)
    about_us = bool(said & (_INSURANCE | known))
    if "?" not in text and _THANKS.search(text) and not about_us:
        return Triage("chatter")  # "Thanks, that's all I needed to know."
    english = sum(w in _ENGLISH for w in re.findall(r"[a-z]+", text.lower()))
    if (
        about_us
        or _OWN.search(text)
        or len(words) > 30
        or len(said) < OFF_TOPIC_WORDS
        or "?" not in text
        or english < 2
    ):
        # About the policy or the claim, or too little to tell, or a remark (which may be news
        # about the claim): a question, for the model and, failing it, a person.
        return Triage("question")
    return Triage("off_topic")


def known_words(*texts: str) -> frozenset[str]:
    """The stems a claimant's own context gives triage (titles, labels, the incident)."""
    return frozenset().union(*(stems(t) for t in texts if t))
