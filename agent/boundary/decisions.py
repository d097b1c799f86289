"""The decision detector: does a reply decide this claim, in either direction, in any phrasing?

A reply may say what the policy wording provides ("the wording says we pay up to NZD 60 a
day", a verbatim quotation of a cited clause); it may not say what happens to this claim
("claim approved", "we'll pay", "it's not covered", "you will receive the payout").

The text is folded first (plaintext.fold), contractions are expanded, and only two things
are set aside before the rules run: quotations verbatim in cited wording, and a cited
clause's ID followed by its exact title in brackets. Nothing else is exempt. The one
sanctioned sentence ("your policy includes this benefit, subject to the claim being
accepted") passes because it decides nothing, not because it is listed.

Generic statements are judged in three steps: a phrase that can only be about this claim
(claim approved, payout, payment authorised, entitled, decision:) always counts; a
commitment ("we will pay", "has agreed to settle") or a verdict ("is covered", "is not
covered") counts unless the sentence attributes it to the wording and it is about the
policy in general (an "up to" limit, or no "your/this/it" object); a plain present-tense
description of the policy ("the policy pays up to", "we do not pay for fuel") counts only
when its object is this claim ("we don't cover that", "we pay your claim"). Last, a backstop
for words the rules do not know: an outcome word (pay, cover, settle, owed, foot the bill...)
in an unattributed, unconditional assertion about this claim or the claimant.

Phrasing no rule has seen still gets through: on batches written before the detector saw
them, about a third of new decision phrasings were missed (README). The phrase corpus and
the adversarial suite are where new phrasing goes once found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from agent.boundary.plaintext import blank, fold, quotations, verbatim_in
from agent.boundary.vocabulary import any_word, either, word_lists
from knowledge.source import CLAUSE_ID


@dataclass(frozen=True)
class Finding:
    rule: str
    phrase: str

    def __str__(self) -> str:
        return f"{self.phrase!r} ({self.rule})"


# Preparation --------------------------------------------------------------------------------------

_CONTRACTIONS = [
    (r"\bwon't\b", "will not"),
    (r"\bcan't\b", "can not"),
    (r"\bcannot\b", "can not"),
    (r"\bshan't\b", "shall not"),
    (r"\bain't\b", "is not"),
    (r"n't\b", " not"),
    (r"'ll\b", " will"),
    (r"'ve\b", " have"),
    (r"'re\b", " are"),
    (r"\bi'm\b", "i am"),
    (r"'d\b", " would"),
    (r"\b(it|that|this|there|here|what|who|everything|nothing|yours|claim|which)'s\b", r"\1 is"),
    # "Kowhai's decided", "we've": "has" before a past participle
    (r"(\w)'s (?=(?:decided|agreed|been|got|chosen|already)\b)", r"\1 has "),
    # "your rental's covered", "the tow's paid": a possessive is never followed by these
    (
        r"(\w)'s (?=(?:not|been|being|going|definitely|fully|now|also|all|covered|approved|accepted|"
        r"declined|rejected|denied|paid|settled|payable|excluded|eligible|entitled|included|on us)\b)",
        r"\1 is ",
    ),
]
# Conditions on the claim's outcome say nothing about it.
_CONDITIONAL = re.compile(
    r"\b(?:subject to|if|whether|unless|until|before|once|when|after|pending)\s+(?:your|the|this|a)\s+"
    r"claim\s+(?:being|is|has been|gets|was|will be)\s+(?:\w+\s+)?(?:accepted|approved|assessed|settled|"
    r"decided|paid|declined|covered)(?:\s+or\s+(?:not|declined|\w+))?\b"
)


def prepare(text: str, wording: Iterable[str] = (), titles: Mapping[str, str] | None = None) -> str:
    """Folded text with quotations of the cited wording and "ID (Title)" references set aside."""
    folded = fold(text)
    sources = [fold(w) for w in wording]
    spans = [(q.start, q.end) for q in quotations(folded) if verbatim_in(q, sources)]
    folded = blank(folded, spans, ' "" ')
    for clause_id, title in (titles or {}).items():
        folded = folded.replace(f"{clause_id.lower()} ({fold(title)})", clause_id.lower())
    for pattern, replacement in _CONTRACTIONS:
        folded = re.sub(pattern, replacement, folded)
    return _CONDITIONAL.sub(" ", folded)


_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\s+-\s+|\n+")


def sentences(prepared: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(prepared) if s.strip()]


# Vocabulary -----------------------------------------------------------------------------------------

# The word lists are data (decision_words.toml beside this file), so what was tuned is in one
# place; the rules below say how the words combine.
WORDS = word_lists("decision_words.toml")


# A clause ID in folded (lower-case) text.
_ID = CLAUSE_ID.lower()
_WE = either(WORDS["speakers"])
_POLICY = either([*WORDS["policy"], _ID])
# Verbs that decide a claim when someone commits to them.
_VERB = either(WORDS["deciding_verbs"])
# Words between a subject and its verb that make a commitment of it.
_COMMIT = either(WORDS["commitments"])
_FILLER = r"(?:" + either(WORDS["fillers"]) + r"\s+)*"
# "That topic", "this question": a subject of conversation, not this claim.
_TOPIC = r"\s+" + either(WORDS["topics"]) + r"\b"
# What makes a statement about this claim rather than the policy in general.
_SPECIFIC = re.compile(
    r"^(?:\s*(?:for|to|you|out|off|on))*\s*(?:it\b|(?:this|that)\b(?!" + _TOPIC + r")|these\b|those\b|you\b|"
    r"yours\b|your\b|"
    r"everything\b|all of it\b|in full\b|the (?:claim|full|whole|total|entire|cost|costs|bill|"
    r"invoice|rental|repair|repairs|tow|towing|damage|loss|amount|excess)\b|liability\b|"
    r"responsibility\b|(?:nzd|nz\$|\$)\s?\d|\d[\d,]*\s?(?:nzd|dollars))"
)
# In a plain present-tense description "you" and "your car" are the policy's generic words.
_SPECIFIC_PRESENT = re.compile(
    r"^(?:\s*(?:for|to|you|out|off|on))*\s*(?:it\b|(?:this|that)\b(?!" + _TOPIC + r")|these\b|those\b|"
    r"yours\b|everything\b|"
    r"all of it\b|in full\b|(?:the|your|this) claim\b|liability\b|"
    r"your (?:[\w-]+ ){0,2}(?:costs|bill|bills|invoice|invoices|expenses|receipts|fares)\b|"
    # "the fuel you use", "the taxi you took": the claimant's own costs
    r"the (?:[\w-]+ ){1,2}(?:you|your)\b)"
)
_LIMIT = any_word(WORDS["limits"])
_ATTRIBUTION = re.compile(
    r"\b(?:(?:the|your|this|that) (?:policy|wording|clause|schedule|document|policy wording)"
    r"(?: wording)? (?:says|states|provides|sets out|explains|reads|notes|is clear|spells out|"
    r"describes|mentions|talks about|defines)|under (?:the|your|this"
    rf"|that) (?:policy|wording|clause)|under {_ID}|"
    rf"{_ID} (?:says|states|provides|sets out|explains|reads|lists)|according to|"
    r"in (?:the|your) (?:policy )?wording|as (?:the|your) (?:policy|wording|clause) (?:says|puts it)|"
    rf"per {_ID}|the wording of|policy's wording|in general)\b"
)
_PARTICIPLE = either(WORDS["verdict_participles"])
_BE = either(WORDS["be_forms"])
_SUBJECT_SPECIFIC = re.compile(
    r"(?:\b(?:it|this|that|these|those|you|yours|everything|claim|all of it|which|this one|that one)|"
    r"\byour(?:\s+[\w-]+){1,3}|\b(?:this|that|the)\s+(?:claim|loss|damage|repair|repairs|rental|bill|"
    r"invoice|cost|costs|tow|event|hire car|car|item|items|amount))\s*$"
)
_SUBJECT_EXEMPT = re.compile(r"\b" + either(WORDS["exempt_subjects"]) + r"\s*$")


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# Phrases that can only be about this claim's outcome.
_ALWAYS: list[tuple[str, re.Pattern[str]]] = [
    (
        "claim verdict",
        _rx(
            r"(?<!a )(?<!any )(?<!each )(?<!every )\bclaim\b(?:\s+[\w-]+){0,4}?\s+(?:(?:has|have)\s+)?"
            r"(?:been\s+|now\s+|is\s+|was\s+|will be\s+|and\s+|"
            r"not\s+|never\s+|also\s+|fully\s+)*"
            r"(?:approved|accepted|declined|rejected|denied|refused|settled|successful|unsuccessful|paid|"
            r"granted|upheld|turned down|authori[sz]ed|finali[sz]ed|covered|honou?red|signed off|"
            r"green-?lit|good to go|a goer|a go|sorted|gone through|come through|gone ahead|knocked back|"
            r"turned away|thrown out|bounced|goes through|went through|okayed|ok'd)\b"
        ),
    ),
    (
        "claim verdict",
        _rx(
            r"(?<!may )(?<!might )(?<!could )(?<!before we"
            r" )(?<!if we )(?<!once we )(?<!when we )(?<!until we )"
            r"\b(?:approv\w*|accept\w*|declin\w*|reject\w*"
            r"|den(?:y|ied|ies)|refus\w*|settl\w*|pay|paid|paying|"
            r"honou?r\w*|uphold|upheld|grant\w*|turn\w* down|cover\w*|fund\w*|authori[sz]\w*|say no to|"
            r"sa(?:y|ys|id|ying) (?:yes|no) to|sign\w* off)\s+"
            r"(?:(?:all of |the whole of |the rest of )?(?:your"
            r"|this|the|that) )(?:whole |entire |full |)claim\b"
        ),
    ),
    (
        "claim verdict",
        _rx(
            r"\bclaim\b(?:\s+[\w-]+){0,3}?\s+(?:can not|will"
            r" not|can|will|may not|is not able to|is unable to)"
            r" (?:go ahead|proceed|succeed)\b"
        ),
    ),
    (
        "decision stated",
        _rx(
            r"\bdecision\s*[:=-]|\b(?:our|the|my|final|a) decision (?:is|was|has been|on your claim is)\b|"
            r"\b(?:have|has|had) (?:now )?decided (?:to|that"
            r"|in)\b|\bdecided in your favou?r|\bin your favou?r\b|"
            r"\bverdict\b|\boutcome\s*[:=-]|\bstatus\s*[:=-]\s*(?:approved|accepted|paid|declined|rejected|"
            r"settled|covered)"
        ),
    ),
    (
        "approval",
        _rx(
            r"(?<!to be )(?<!if )(?<!once )(?<!unless )(?<!whether )(?<!until )(?<!when )(?<!being )"
            r"\b(?:pre-?)?approv(?:ed|es|ing)\b(?!\s+(?:repairers?|builders?|suppliers?|glaziers?|"
            r"tradespe\w+|contractors?|providers?|storage|plans?|by (?:the |your |a )?council|"
            r"under the building|child (?:car )?(?:seats?|restraints?)|locks?|alarms?|immobilisers?|"
            r"devices?|(?:building )?consent|(?:policy )?wordings?|versions?|releases?))"
            r"|\b(?:claim|payment|final|full|formal) approval\b|\bapproval (?:of|for) (?:your|the|this) "
            r"(?:claim|payment|rental|hire car|repair)|\b(?:has|have|got|received|given|granted) "
            r"(?:final |full )?approval\b"
        ),
    ),
    (
        "payout",
        _rx(
            r"\b(?<!maximum )(?<!most )(?<!highest )(?<!largest )(?<!limit on )(?<!limit of )"
            r"(?:pay-?outs?|pay outs?)\b(?!\s+(?:limit|limits|cap))"
        ),
    ),
    (
        "payment",
        _rx(
            r"\b(?:payment|money|funds|cheque|transfer|refund|reimbursement|settlement|compensation|"
            r"deposit|the (?:full )?amount)\b(?:\s+[\w,$-]+){0,8}?\s+"
            r"(?:(?:is|are|was|were|has been|have been|will be|is being|shall"
            r" be|should be)\s+(?:now\s+|fully\s+|already\s+)?(?:authori[sz]ed|"
            r"approved|released|issued|on (?:its|their|the) way|transferred|deposited|scheduled|confirmed|"
            r"cleared|due to you)|(?:has been|have been|will be|is being|was|were)\s+(?:now\s+|already\s+)?"
            r"(?:made|sent|processed|arranged|paid)|(?:has|have|is|was) (?:now |already |)(?:gone out|gone "
            r"through|left|landed|cleared))\b"
            r"|\b(?:sent|transferred|paid|deposited|released|issued) (?:you )?(?:the |your |a )?(?:money|"
            r"funds|payment|payout|cheque|refund)\b"
            r"|\bconsider (?:it|this|that|the [\w-]+|your [\w-]+) (?:paid|covered|approved|accepted|settled|"
            r"sorted|done)\b"
            r"|\b(?:payment|money|funds|cheque|refund|payout"
            r"|settlement)\b[^.]{0,30}\bon (?:its|their|the) way\b"
            r"|\b(?:into|to|in) your (?:bank )?account\b"
            r"|\bfull (?:and final )?settlement\b|\bsettlement (?:of|for) (?:nzd|\$|\d)|\byour settlement\b"
            r"|\bpayable to you\b|\bowed to you\b|\bwe owe you\b"
        ),
    ),
    (
        "entitlement",
        _rx(
            r"\bentitle(?:d|s|ment)?\b|\b(?:you|claim|it|this) (?:now |also |does not |do not |will not |)"
            r"(?:qualify|qualifies)\b|"
            r"\byou (?:are|will be|would be|should be) (?:now |also |fully )?eligible\b"
        ),
    ),
    (
        "you will receive",
        _rx(
            r"\byou (?:will|shall|are going to|are about to|should|are set to|can expect to) (?:now |soon |"
            r"shortly |also |definitely |then )?(?:not )?(?:receive|be receiving|get|be getting|be given|"
            r"be sent|be offered|be paid|be reimbursed|be refunded|be compensated|be covered|have your)\b"
            r"(?!\s+(?:a |an |the |our |your |any )?(?:reply|answer|response|message|update|email|e-mail|"
            r"letter|call|phone call|written notice|notice|reference|claim number|form|text|copy|"
            r"acknowledg\w*|decision|chance|opportunity|questions?|request)\b)"
            r"|\byou (?:will|would) (?:not |never )?(?:have to|need to) pay (?:anything|a cent|nothing|the "
            r"excess|for (?:it|this|that))|\b(?:will|would) (?:not )?cost you (?:anything|nothing|a cent)\b|"
            r"\byou (?:can |could |may |will |)(?:also |then |now |)(?:get|claim|receive|be given|be paid) "
            r"(?:an extra |another |a further |a |an |)(?:nzd|nz\$|\$)\s?\d|"
            r"\bat no cost to you\b|\bfree of charge\b|\bout of"
            r" pocket\b|\bnothing (?:will be|is|is going to be) "
            r"(?:paid|payable)\b|\bno payment (?:will|is going to) be made\b"
        ),
    ),
    (
        "we have agreed",
        _rx(
            r"\b" + _WE + r" (?:have |has |had )?(?:now |also )?agreed\b|\bagreed to (?:pay|settle|cover|"
            r"accept|approve|fund|reimburse|refund|your|the claim)\b|\b(?:we|i|kowhai)(?: mutual)? "
            r"(?:have |has )?got you(?: covered)?\b|\bgreen light\b|\bgo-ahead\b|"
            r"\bgo ahead and (?:book|hire|get|arrange|start|proceed|organise|organize|pick)\b"
        ),
    ),
    (
        "outcome in other words",
        _rx(
            r"\b(?:included|covered|approved|paid|allowed|available"
            r"|accepted) (?:for|in|on|under) (?:your|this|the) "
            r"claim\b|\b(?:it|everything|claim|this) is all (?:good|sorted|done|fine|set)\b|"
            r"\bproceed(?:s|ing)? to (?:payment|settlement)\b|\b(?:fine|okay|ok|cleared|free) to proceed\b|"
            r"\b(?:will be|is|are|has been|have been|gets|get) (?:met|paid|covered|funded|borne|picked up|"
            r"reimbursed|refunded|settled) by (?:us|kowhai|the insurer|your insurer|our team)\b"
        ),
    ),
    (
        "money to the claimant",
        _rx(
            r"\b(?:see|get|receive) (?:a cent|a dollar|a thing|anything back|the money)\b|"
            r"\b(?:costs?|money|amount|excess|funds) (?:will |should |)(?:come|comes|coming) back to you\b|"
            r"\bsend(?:ing)? you (?:the |a |an |)(?:nzd|nz\$|\$|money|payment|cheque|funds|refund)|"
            r"\b(?:it|that|this|the answer) is a (?:yes|no)\b"
        ),
    ),
    (
        "promise of care",
        _rx(
            r"\b(?:will be|has been|is being|is going to be) (?:taken care of|looked after|sorted(?: out)?|"
            r"handled by us|fixed up)\b|\b(?:is|are) yours\b|\b(?:has|have|got) you covered\b|"
            r"\bgo ahead with (?:the|your|this) (?:repair|repairs|claim|rental|hire|replacement|payment|"
            r"settlement|rebuild)\b|\bexcess (?:does not|will not|is not going to|would not) apply (?:to you|"
            r"this time|to (?:this|your) claim|here)\b|\bno excess (?:to pay|for you)\b"
        ),
    ),
    (
        "refuses help with the cost",
        _rx(
            r"\b(?:can not|will not|unable to|not able to|not be"
            r" able to) help (?:you )?with (?:the|your|this|that) "
            r"(?:cost|costs|bill|bills|payment|claim|fuel|tow|towing|repair|repairs|rental)\b"
        ),
    ),
    ("accepts liability", _rx(r"\baccept\w* (?:full |)(?:liability|responsibility)\b")),
    (
        "cover for this claim",
        _rx(
            r"\b(?:that|this|it|these|those|which)(?: [\w-]+)?"
            r" (?:is|are|will be|would be) (?:not |definitely |)"
            r"(?:something|anything|one|a thing|what) (?:that |which )?"
            r"(?:we|the policy|your policy|kowhai|the insurer) "
            r"(?:will |would |can |do |does |)(?:not |)(?:cover|pay|fund|accept)"
            r"|\b(?:is|are|will be|'s) on (?:us|the house|kowhai|the insurer)\b"
            r"|\ba (?:yes|no) from (?:us|me|kowhai|the insurer)\b|\bat (?:our|kowhai's|the insurer's) "
            r"(?:cost|expense)\b"
            r"|\b(?:excess|premium)\b(?:\s+[\w-]+){0,2}?\s+(?:has"
            r" been|have been|will be|is being|was|is now)\s+"
            r"(?:waived|refunded|reduced|removed|dropped|cancelled)\b"
            r"|\bno excess (?:will|would|is going to|shall)\b"
        ),
    ),
    (
        "yes or no on cover",
        _rx(
            r"(?:^|[:,]\s*)(?:yes|yep|yeah|no|nope|sorry"
            r"|unfortunately|good news|great news)\b[,.!:]?\s*(?:-\s*)?"
            r"(?:it is|you are|they are|we will|it will|you will|we can|it does|we do|it has been|you have "
            r"been|that is|this is)\b(?!\s+(?:listed|in your schedule|a question|not something i can))"
            r"|(?:^|[:,]\s*)(?:sorry,? |unfortunately,? |good"
            r" news,? |great news,? |yes,? |no,? )?(?:not |fully |"
            r"definitely |all |totally |completely )?(?:covered"
            r"|approved|accepted|declined|rejected|denied|paid|"
            r"settled|payable)\s*(?:[.!]|$)"
            r"|\b(?:fully|definitely|totally|completely|100%) "
            r"(?:covered|approved|accepted|paid|settled|declined)\b"
        ),
    ),
]

# A commitment: someone with a modal or perfect tense, then a deciding verb.
_COMMITMENT = re.compile(
    r"\b(?P<subject>"
    + _WE
    + "|"
    + _POLICY
    + r")\s+(?P<aux>"
    + _COMMIT
    + r")\s+"
    + _FILLER
    + r"(?P<verb>"
    + _VERB
    + r")\b(?=(?P<rest>.{0,80}))"
)
# A present-tense description: "we pay", "the policy does not cover", with its object.
_PRESENT = re.compile(
    r"\b(?P<subject>" + _WE + "|" + _POLICY + r")\s+(?:(?:do|does) not\s+|(?:do|does)\s+|also\s+|only\s+)?"
    r"(?P<verb>" + _VERB + r")\b(?=(?P<rest>.{0,80}))"
)
# How a claim is settled, said of the claimant's own thing: "your laptop will be replaced".
_SETTLED_AS = either(WORDS["settled_as"])
# A verdict: something is (not) covered, paid, approved.
_VERDICT = re.compile(
    r"(?P<before>^|.{0,60}?\b)(?P<be>" + _BE + r")\s+(?:(?:not|never|now|also|fully|definitely|"
    r"certainly|already|still|all|only|therefore|so|indeed|completely|entirely|partly|partially|"
    r"in fact|then)\s+)*(?P<verb>" + _PARTICIPLE + "|" + _SETTLED_AS + r")\b(?=(?P<rest>.{0,40}))"
)
# "covered with a tarp", "covered the main points": the other sense of the word.
_PHYSICAL = re.compile(
    r"^\s*(?:with|in (?!full)|above|earlier|already|by (?:a|an|some)\b|the (?:main|key) points|the basics)"
)
_COVER_NOUN = re.compile(
    r"\b(?:you|your policy|the policy|this policy|it)\s+(?:do not |does not |will not |will |would |)"
    r"(?:have|has|get|gets|give|gives|provide|provides)\s+(?:you\s+)?(?:no\s+|any\s+|full\s+|)"
    r"(?:cover|coverage|insurance)\s+for\s+(?P<rest>.{0,40})"
    r"|\bthere (?:is|will be|would be) (?:no |full |)(?:cover|coverage|payment|payout|benefit) for "
    r"(?P<rest2>.{0,40})"
)


_NEGATIVE = re.compile(r"\b(?:not|never|unable)\b")


def _shown(match: str, rest: str) -> str:
    """The matched phrase with a few words of what follows it."""
    return f"{match} {' '.join(rest.split()[:4])}".strip()


def _is_limit(rest: str) -> bool:
    return bool(_LIMIT.search(rest[:40]))


def find_decision(
    text: str, wording: Iterable[str] = (), titles: Mapping[str, str] | None = None
) -> Finding | None:
    """The first phrase in `text` that decides the claim, or None.

    `wording`: texts a quotation may come from and still be policy wording (the cited
    clauses); `titles`: cited clause ID -> title, for "ID (Title)" references.
    """
    for sentence in sentences(prepare(text, wording, titles)):
        found = _in_sentence(sentence)
        if found:
            return found
    return None


def _in_sentence(sentence: str) -> Finding | None:
    hedged = bool(_ATTRIBUTION.search(sentence))
    return (
        _always(sentence)
        or _commitment(sentence)
        or _present(sentence)
        or _verdict(sentence, hedged)
        or _cover(sentence, hedged)
        or _backstop(sentence, hedged)
    )


# A condition, a time, a question or a description of how: not an assertion about this claim.
_CONDITION_BEFORE = re.compile(
    r"\b(?:whether|if|unless|once|when|until|before|after|while|how)\s+(?:[\w-]+\s+){0,3}$"
)


# A backstop for phrasing the rules above do not know: an outcome word, said of this claim or
# the claimant, in an assertion, with no attribution to the wording, no condition and no
# question. Measured on a batch written after the rules were fixed (README).
_OUTCOME_WORD = any_word(WORDS["outcome_words"])
_NOT_OUTCOME = re.compile(
    r"\byou (?:do not |will |have |)(?:need to |have to |)(?:pay|paid)\b|\b(?:need|needs|without) "
    r"(?:our |)approval\b|\bapproved (?:repairer|builder|supplier)s?\b|\bcovered (?:the (?:main|key) points|"
    r"above|earlier|the basics|with|in (?!full))"
)
_CLAIMANT = re.compile(
    r"\b(?:your claim|the claim|this claim|claim for|you|your (?!policy|schedule|wording|plan|policy's)"
    r"[\w-]+|it|(?:this|that) (?:one|claim|cost|bill|is|will|has))\b|\b(?:this|that)\s*[.!]?$"
    r"|\bthe (?:repair|repairs|rental|hire car|tow|towing|bill|invoice|damage|loss)\b"
)
_ASSERTIVE = re.compile(
    r"\b(?:will|would|shall|going to|has been|have been|has|have|is|are|was|were|can|can not|do|does|"
    r"did|goes|got)\b"
)
_NOT_ASSERTION = re.compile(
    r"\b(?:if|whether|unless|when|once|until|before|after|how|what|which|i can not|i am not|i do not|"
    r"i could not|i can|subject to)\b|\?$"
)


def _backstop(sentence: str, hedged: bool) -> Finding | None:
    if hedged or _NOT_ASSERTION.search(sentence):
        return None
    sentence = _NOT_OUTCOME.sub(" ", sentence)
    word = _OUTCOME_WORD.search(sentence)
    if word and _CLAIMANT.search(sentence) and _ASSERTIVE.search(sentence):
        return Finding("outcome said of this claim", sentence[:80])
    return None


def _always(sentence: str) -> Finding | None:
    for rule, pattern in _ALWAYS:
        for m in pattern.finditer(sentence):
            if not _CONDITION_BEFORE.search(sentence[: m.start()]):
                return Finding(rule, m.group(0).strip())
    return None


def _commitment(sentence: str) -> Finding | None:
    """ "We will pay", "has agreed to settle": a decision unless the wording is speaking
    ("the wording says we will pay up to ...", "the policy will pay for a hire car")."""
    for m in _COMMITMENT.finditer(sentence):
        rest = m.group("rest")
        if m.group("verb").startswith("cover") and _PHYSICAL.match(rest):
            continue
        if m.group("subject") == "i" and _NEGATIVE.search(m.group("aux") + " " + m.group(0)):
            continue  # "I can't approve claims": the assistant's own limits, not the insurer's answer
        # Only an attribution before the commitment makes it the wording's: not
        # "we'll pay. MTR-BEN-03 says ...".
        wording_speaks = bool(_ATTRIBUTION.search(sentence[: m.start()])) or not re.fullmatch(
            _WE, m.group("subject")
        )
        if wording_speaks and _is_limit(rest):
            continue
        if _SPECIFIC.match(rest) or (_NEGATIVE.search(m.group(0)) and re.match(r"\s*(?:for )?the\b", rest)):
            return Finding("commitment about this claim", _shown(m.group(0), rest))
        if not wording_speaks:
            return Finding("commitment", m.group(0).strip())
    return None


def _present(sentence: str) -> Finding | None:
    """ "We pay", "the policy does not cover": what the policy does, unless its object is
    this claim ("we don't cover that", "we pay your claim")."""
    for m in _PRESENT.finditer(sentence):
        rest = m.group("rest")
        if _SPECIFIC_PRESENT.match(rest) and not _is_limit(rest):
            return Finding("decision about this claim", _shown(m.group(0), rest))
    return None


def _verdict(sentence: str, hedged: bool) -> Finding | None:
    """ "Is covered", "was declined": always about this claim when its subject is ("it",
    "your claim", "you"); about the policy only when the wording is named as saying it."""
    for m in _VERDICT.finditer(sentence):
        before, verb, rest = m.group("before"), m.group("verb"), m.group("rest")
        if _SUBJECT_EXEMPT.search(before) or (verb == "covered" and _PHYSICAL.match(rest)):
            continue
        if _CONDITION_BEFORE.search(before):
            continue  # a condition, a time or a question, not a verdict
        if re.search(r"\bto\s*$", before):
            continue  # "for it to be covered, ..." states a condition
        words = before.split()
        phrase = f"{words[-1] if words else ''} {m.group(0)[len(before) :]}".strip()
        subject = _SUBJECT_SPECIFIC.search(before)
        if subject and hedged and _is_limit(rest) and subject.group(0).startswith("your"):
            continue  # "the policy says outdoor furniture at your home is covered up to NZD 2,000"
        if subject:
            return Finding("verdict on this claim", phrase)
        if not hedged and re.fullmatch(_PARTICIPLE, verb):
            return Finding("verdict", phrase)
    return None


def _cover(sentence: str, hedged: bool) -> Finding | None:
    """ "You have no cover for this", "there is cover for your hire car"."""
    for m in _COVER_NOUN.finditer(sentence):
        rest = m.group("rest") or m.group("rest2") or ""
        if _SPECIFIC.match(rest) or (not hedged and m.group(0).startswith("there")):
            return Finding("cover for this claim", m.group(0)[: len(m.group(0)) - len(rest)] + rest[:20])
    return None
