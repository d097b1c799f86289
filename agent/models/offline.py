"""The built-in offline model: no key, no network, a selection of verbatim spans.

It sees exactly what any model sees (instructions with the directory, the question, the
history, the tool results) and plays by the same rules: it picks clause IDs by matching the
question to directory titles, calls resolve_clauses, and selects the spans of the returned
clauses that best match the question, or routes to staff. The runtime composes the reply
from its selection (whole sentences, whether the schedule includes each clause, the plan).

Answerability comes before answering: a question about another product, a service request,
claim progress, advice, a complaint or a price is routed without fetching anything, and a
fetched clause that only shares a word with the question is not quoted (an irrelevant cited
answer is worse than routing). Plan names come from the schedule and the clause text, not
from constants.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.answering.examples import Cover
from agent.boundary.triage import asks_how_to_complain
from agent.models.memory import Memories, Recall
from agent.models.vocabulary import (
    ADVICE,
    COMPLAINT,
    CUE_PHRASES,
    DECISION,
    FINANCE,
    GENERIC_STEMS,
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
    STRONG,
    stems,
    terms,
    tokens,
)
from knowledge.clauses import normalise_space
from knowledge.source import CLAUSE_ID

MODEL_NAME = "clausedesk-offline"
TOOL = "resolve_clauses"
PARTS_TOOL = "open_parts"
# A two-level directory's part lines: "3 Part A: Loss and damage (12)".
_PART_LINE = re.compile(r"^(\d+) (.+) \((\d+)\)$", re.MULTILINE)
_DIRECTORY_LINE = re.compile(rf"^({CLAUSE_ID}) (.+)$", re.MULTILINE)
_WORDING_LINE = re.compile(r"^Wording (\S+) (\S+)\. Clause directory:", re.MULTILINE)
_POLICY_LINE = re.compile(r"\(([a-z][a-z0-9_]*), plan ([^)]*)\)")
_SCHEDULE_LINE = re.compile(r"^Schedule: (.*)$", re.MULTILINE)
_LISTED = re.compile(r"optional sections listed: (.*?); excess:")
_FOLLOW_UP = re.compile(r"\b(that|it|this|those|these|same|also|too)\b", re.IGNORECASE)
_AMOUNT_QUESTION = re.compile(
    r"\b(how (much|many|long)|limit|max|maximum|the most|cost|amount|worth|"
    r"per day|a day|days)\b",
    re.IGNORECASE,
)
_LIMIT = re.compile(r"\b(?:up to|at most|the most we pay)\b.*\b(?:NZD|\d+ (?:days|weeks|months))", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_PLAN_NAME = re.compile(r"\b([A-Z][a-z]+) plan\b")
MAX_CLAUSES = 3
# Further sentences of the chosen clause that carry the question's subject at least half as
# well as the best one are served too: a clause's decisive sentence is often not the best-scored.
ALSO_RATIO = 0.5
ALSO_MOST = 3
# What a verified question of the same meaning cites outranks a sentence that merely shares a word.
PREFERRED_BONUS = 1.0
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


@dataclass(frozen=True)
class Choice:
    clause_id: str
    score: float


def unanswerable(question: str, family: str | None = None) -> str | None:
    """Why no policy wording answers this question, or None when one may.

    Each kind is a combination of general words (a product noun next to "insurance", a
    request to the insurer to do something, claim progress, advice, a complaint, a price)
    or a set phrase of everyday usage ("press charges", "this once", "a copy of").
    """
    words = tokens(question)
    have = set(words)
    own = own_product(family)
    products = (stems(PRODUCTS) | ANY_PRODUCT) - own
    nouns = stems(PRODUCT_NOUNS)
    if have & stems(COMPLAINT) and not asks_how_to_complain(question):
        return "complaint"  # asking how to complain, a complaints section may answer
    for kind, phrases in CUE_PHRASES.items():
        if any(phrase.search(question) for phrase in phrases):
            return kind
    if have & stems(SERVICE_PLACES):
        return "service_request"
    for i, word in enumerate(words):
        if word in products and set(words[i + 1 : i + 3]) & nouns:
            return "other_product"
    if have & stems(SELLING) and have & nouns and have & (stems(PRODUCTS) - own):
        return "other_product"
    if have & stems(FINANCE):
        return "finance"
    if have & stems(OTHER_INSURER) and have & {"anoth", "other", "differ"}:
        return "other_insurer"
    for i, word in enumerate(words):
        asks = word in _REQUEST and set(words[i + 1 : i + 3]) & _YOU
        if asks and set(words[i + 2 : i + 6]) & stems(SERVICE_VERBS):
            return "service_request"
    if have & stems(LEGAL_ACTION) and not _AGAINST_US.search(question):
        return "legal_action"
    for i, word in enumerate(words):  # "send me", "email us": the insurer is asked to do something
        asked_of_us = i == 0 or words[i - 1] in {"pleas", "you", "u"}
        if asked_of_us and word in stems(SERVICE_VERBS) and words[i + 1 : i + 2] in (["me"], ["us"]):
            return "service_request"
    if have & stems(ADVICE):
        return "advice"
    if have & stems(DECISION) or re.search(r"\byes or no\b|\bor not\s*\??$", question, re.IGNORECASE):
        return "decision"
    if have & stems(PROGRESS) and ("claim" in have or have & stems(PROGRESS_PEOPLE)):
        return "claim_progress"
    # What the assessor did or said about this claim is the claim's own business, for staff.
    people_did = {"book", "been", "come", "name", "number", "talk", "speak", "say", "said", "told", "why"}
    if have & stems(PROGRESS_PEOPLE) and have & people_did:
        return "claim_progress"
    if ({"when", "long"} & have) and have & {"money", "payment", "payout", "fund"}:
        return "claim_progress"
    if {"where", "claim", "up"} <= have:
        return "claim_progress"
    if any(a == "worth" and b == "claim" for a, b in itertools.pairwise(words)):
        return "advice"
    price_moves = {"up", "increas", "rise", "cheaper", "discount", "lower", "higher", "affect", "chang"}
    if have & stems(PRICE) and have & price_moves:
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
    return [c for c in scored[:MAX_CLAUSES] if c.score >= 0.2 * top]


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
    needed = 1 if _FOLLOW_UP.search(question) and len(asked) <= 2 else 2
    return len(shared) >= needed


def _applies(clause: dict) -> bool:
    """Whether the runtime says the clause applies to this claimant as part of their cover."""
    return clause.get("applies_to_claimant", "included") == "included"


def _limit_sentence(clause: dict, quote: str) -> str | None:
    """A benefit's amount or duration sentence, so an answer about a benefit states its limit."""
    body = clause["text"].split("\n", 1)[1] if "\n" in clause["text"] else clause["text"]
    for sentence in _SENTENCE.split(body):
        for span in _spans(sentence):
            if span != quote and span not in quote and _LIMIT.search(span):
                return span
    return None


def _spans(sentence: str) -> list[str]:
    """A sentence or a list item, whole: the runtime serves it whole, and a row cut at its
    ";" would read as one plan's figure alone."""
    text = sentence.strip().lstrip("-*> ").strip()
    if not text or text.startswith("#"):
        return []
    return [text] if len(text.split()) >= 4 else []


def offline_model(memory: Memories | None = None) -> FunctionModel:
    """The offline model; with a memory, it learns from the governing wording's verified examples."""

    def function(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return respond(messages, info, memory)

    return FunctionModel(function, model_name=MODEL_NAME)


def respond(messages: list[ModelMessage], info: AgentInfo, memory: Memories | None = None) -> ModelResponse:
    question = current_question(messages)
    returned = _tool_result_this_run(messages)
    instructions = info.instructions or ""
    policy = _POLICY_LINE.search(instructions)
    family, plan = (policy.group(1), policy.group(2)) if policy else (None, None)
    if returned is None:
        parts = _PART_LINE.findall(instructions)
        if parts and not unanswerable(question, family) and _opened_this_run(messages) is None:
            # A large wording shows its parts first: open the ones whose names fit, then pick
            # from their clauses as from a directory.
            numbers = best_parts(question, parts, family, plan)
            if numbers:
                call = ToolCallPart(PARTS_TOOL, {"parts": numbers})
                return ModelResponse(parts=[call], model_name=MODEL_NAME)
        ids = own_choice(question, messages, instructions, family, plan)
        # The memory is consulted whether or not a part was opened: what a close verified
        # question cites is fetched by ID first (the tool says what is not in the claimant's
        # directory), then the title choice.
        recalled = recall(memory, instructions, question, family, messages)
        if recalled is not None and recalled.close:
            ids = list(dict.fromkeys([*recalled_ids(recalled, messages, instructions), *ids]))[:MAX_CLAUSES]
        return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": ids})], model_name=MODEL_NAME)
    output_tool = info.output_tools[0].name
    # The schedule is in the context, where every model reads it; the tool does not repeat it.
    summary = _SCHEDULE_LINE.search(instructions)
    returned = {**returned, "schedule": {"plan": plan, "summary": summary.group(1) if summary else ""}}
    follow_up = bool(_FOLLOW_UP.search(question))
    previous = previous_question(messages) if follow_up else None
    continuing = tuple(_earlier_cited(messages)) if follow_up else ()
    # The directory is withdrawn once clauses come back: the choice is re-read from the request
    # that made it (deterministic: the same question and directory give the same choice).
    choosing = _choosing_instructions(messages) or instructions
    recalled = recall(memory, choosing, question, family, messages)
    close = recalled is not None and recalled.close
    preferred = tuple(recalled_ids(recalled, messages, choosing)) if close else ()
    deciding = recalled.example.deciding if recalled is not None and close else ()
    selection = selection_for(
        question, returned, previous, continuing, family, preferred=preferred, deciding=deciding
    )
    if memory is not None and selection["outcome"] == "answered" and not confident(selection, recalled):
        selection["confident"] = False  # the runtime drafts it for a claims handler
    return ModelResponse(parts=[ToolCallPart(output_tool, selection)], model_name=MODEL_NAME)


def _choosing_instructions(messages: list[ModelMessage]) -> str | None:
    """The instructions of this run's first request, which showed the directory."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            return message.instructions
    return None


def _directory_now(messages: list[ModelMessage], instructions: str) -> list[tuple[str, str]]:
    """The `ID Title` lines the model may name now: the directory, or the parts opened this run."""
    if _PART_LINE.search(instructions):
        return _opened_this_run(messages) or []
    return _DIRECTORY_LINE.findall(instructions)


def own_choice(
    question: str, messages: list[ModelMessage], instructions: str, family: str | None, plan: str | None
) -> list[str]:
    """The clauses the model picks from titles alone (a follow-up keeps the earlier answer's)."""
    directory = _directory_now(messages, instructions)
    ids = [c.clause_id for c in select_clauses(question, directory, family, plan)]
    if not ids and _FOLLOW_UP.search(question) and not unanswerable(question, family):
        ids = _previous_clause_ids(messages)
    return ids


def recall(
    memory: Memories | None,
    instructions: str,
    question: str,
    family: str | None,
    messages: list[ModelMessage],
) -> Recall | None:
    """The nearest verified questions of the governing wording version that may steer this
    claimant (their plan and schedule sections, from the context every model reads), for a
    question a wording may answer."""
    wording = _WORDING_LINE.search(instructions)
    if memory is None or wording is None or unanswerable(question, family):
        return None
    visible = frozenset(cid for cid, _ in _directory_now(messages, instructions))
    return memory.recall(
        wording.group(1), wording.group(2), question, cover=cover_of(instructions), visible=visible
    )


def cover_of(instructions: str) -> Cover:
    """The claimant's plan and listed sections as the context states them ("(motor, plan
    Comprehensive)", "Schedule: plan …; optional sections listed: a, b; excess: …")."""
    policy = _POLICY_LINE.search(instructions)
    schedule = _SCHEDULE_LINE.search(instructions)
    listed = _LISTED.search(schedule.group(1)) if schedule else None
    sections = [] if listed is None or listed.group(1) == "none" else listed.group(1).split(", ")
    return Cover(policy.group(2) if policy else None, frozenset(sections))


def recalled_ids(recalled: Recall | None, messages: list[ModelMessage], instructions: str) -> list[str]:
    """What the recalled example cites, by ID, whatever the titles matched or the parts opened.
    A one-level directory is the claimant's whole directory: what it lacks is not asked for. Of a
    wording shown in parts, every ID: the tool fetches what is in the claimant's directory and
    says what is not."""
    if recalled is None or recalled.example.routed:
        return []
    if _PART_LINE.search(instructions):
        return list(recalled.example.clause_ids)
    named = {cid for cid, _ in _DIRECTORY_LINE.findall(instructions)}
    return [cid for cid in recalled.example.clause_ids if cid in named]


def confident(selection: dict, recalled: Recall | None) -> bool:
    """Whether an answer is served or drafted for staff. Served: the nearest verified question
    is close in meaning and the answer quotes first a clause it cites; or every clause the answer
    quotes (the model's own choice, fetched from titles) is cited by the nearest verified
    questions. Otherwise no evidence backs it, and a claims handler checks it."""
    if recalled is None or not selection.get("points"):
        return False
    quoted = [p["clause_id"] for p in selection["points"]]
    if recalled.close and not recalled.example.routed and quoted[0] in recalled.example.clause_ids:
        return True
    return set(quoted) <= recalled.supported


def best_parts(
    question: str, parts: list[tuple[str, str, str]], family: str | None, plan: str | None, *, most: int = 2
) -> list[int]:
    """The parts (number, name, size) whose names fit the question best, as directory titles do."""
    ranked = select_clauses(question, [(number, name) for number, name, _ in parts], family, plan)
    return [int(c.clause_id) for c in ranked[:most]]


def _opened_this_run(messages: list[ModelMessage]) -> list[tuple[str, str]] | None:
    """The `ID Title` lines of the parts open_parts listed after the latest question; None
    when it has not run."""
    content = _returned_this_run(messages, PARTS_TOOL)
    if content is None:
        return None
    return _DIRECTORY_LINE.findall("\n".join(p.get("clauses", "") for p in content.get("parts", [])))


def asks_nothing(question: str) -> bool:
    """Thanks, a greeting, an acknowledgement: no question to answer or route."""
    words = re.findall(r"[a-z]+", question.lower())
    return bool(words) and "?" not in question and all(w in _PLEASANTRIES for w in words)


# Why a question no wording answers goes to staff, where that is not a missing clause: the
# claim itself (a decision on it, or how it is going), a request to act, or a kind of question
# no wording answers (advice, a price, another product or insurer, the claimant's legal steps).
_ROUTE_KIND = {
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
_CLAIM_ITSELF = ("needs_decision", "claim_progress")
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


def _also(quotes: list[tuple[float, str]], *, most: int = ALSO_MOST) -> list[str]:
    """Further sentences of the same clause that carry the question's subject nearly as well
    as the best one: the decisive sentence is often the second ("… except keys that are lost").
    Never a second row of a limits list: another item's limit is not an answer."""
    best, first = quotes[0]
    if _label(first):
        return []
    return [span for score, span in quotes[1:] if score >= ALSO_RATIO * best and not _label(span)][:most]


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
    plan = schedule.get("plan")
    parts = question_parts(question)
    # A part about the claim itself ("and when will it be ready?") goes to staff; the rest is answered.
    about_the_claim = [p for p in parts if _ROUTE_KIND.get(unanswerable(p, family)) in _CLAIM_ITSELF]
    staff_parts = about_the_claim if len(parts) > 1 else []
    kind = unanswerable(question if len(parts) == 1 else parts[0], family)
    if kind in _ROUTE_KIND and (len(parts) == 1 or len(staff_parts) == len(parts)):
        return {"outcome": "routed_to_staff", "route_reason": _ROUTE_KIND[kind]}
    asked = " ".join(p for p in parts if p not in staff_parts) if staff_parts else question
    facts = schedule_keys(asked, schedule)
    answered_parts = [p for p in parts if p not in staff_parts]

    def picks_for(text: str) -> list[tuple[float, dict, str, list[str]]]:
        found = []
        for clause in returned.get("clauses", []):
            relevant = (
                clause["clause_id"] in preferred
                or addresses(asked, clause, plan)
                or (previous is not None and addresses(f"{previous} {asked}", clause, plan))
            )
            if not relevant:
                continue  # shares a word with the question, not its subject
            # Where the schedule gives the amount, a sentence is not chosen for having one.
            quotes = best_quotes(text, clause, plan, previous=previous, amounts=not facts)
            if clause["clause_id"] in preferred:
                quotes = decided_first(quotes, clause, deciding, plan)
            if quotes:
                carried_on = 0.5 if clause["clause_id"] in continuing else 0.0
                carried_on += PREFERRED_BONUS if clause["clause_id"] in preferred else 0.0
                also = _also(quotes)
                if not _applies(clause):  # no limit of a benefit they lack
                    also = [span for span in also if not re.search(r"NZD|\d", span)]
                found.append((quotes[0][0] + carried_on, clause, quotes[0][1], also))
        return sorted(found, key=lambda p: -p[0])

    if len(answered_parts) > 1:  # each question of the message gets its own best span
        picks, missing = [], []
        for part in answered_parts:
            best = picks_for(part)[:1]
            if best:
                picks += [b for b in best if all(b[2] != p[2] for p in picks)]
            elif not schedule_keys(part, schedule):
                missing.append(part)
        staff_parts += missing if picks or facts else []
    else:
        picks = picks_for(asked)[:2]
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
    if not picks and not facts:
        if staff_parts and (kind := unanswerable(staff_parts[0], family)) in _ROUTE_KIND:
            # "Where's my claim up to? I sent the photos": nothing else in it is answered, so
            # the reason is the part about the claim itself, not a missing clause.
            return {"outcome": "routed_to_staff", "route_reason": _ROUTE_KIND[kind]}
        reason = "clause_not_in_directory" if returned.get("not_found") else "no_clause_selected"
        return {"outcome": "routed_to_staff", "route_reason": reason}
    points: list[dict] = []
    for _, clause, quote, also in picks:
        for span in (quote, *also):
            if all(p["span"] != span for p in points):
                points.append({"clause_id": clause["clause_id"], "span": span})
        benefit = clause.get("optional_section") or "-BEN-" in clause["clause_id"]
        limit = _limit_sentence(clause, quote)
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


def current_question(messages: list[ModelMessage]) -> str:
    """The latest question the claimant asked in these messages."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return ""


def previous_question(messages: list[ModelMessage]) -> str | None:
    """The claimant's question before the latest one, for a follow-up."""
    seen = 0
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    seen += 1
                    if seen == 2:
                        return part.content
    return None


def _tool_result_this_run(messages: list[ModelMessage]) -> dict | None:
    """The resolve_clauses result after the latest question, if the tool has run."""
    return _returned_this_run(messages, TOOL)


def _returned_this_run(messages: list[ModelMessage], tool: str) -> dict | None:
    """What `tool` returned after the latest question (the newest call that ran; a refused
    call, returned as a retry, is passed over), if it has run."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and part.tool_name == tool and part.outcome == "success":
                    return part.content if isinstance(part.content, dict) else None
                if isinstance(part, UserPromptPart):
                    return None
    return None


def _earlier_cited(messages: list[ModelMessage]) -> list[str]:
    """Clause IDs the answer before this question cited (this turn's own calls skipped)."""
    asked = False
    for message in reversed(messages):
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            if asked:
                return []  # the earlier question got no answer with points
            asked = True
        elif asked and isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart) and part.tool_name != TOOL:
                    points = part.args_as_dict().get("points") or []
                    return list(dict.fromkeys(c["clause_id"] for c in points if isinstance(c, dict)))
    return []


def _previous_clause_ids(messages: list[ModelMessage]) -> list[str]:
    """Clause IDs the latest earlier answer cited (else resolved), for a follow-up question."""
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if not isinstance(part, ToolCallPart):
                    continue
                args = part.args_as_dict()
                if part.tool_name != TOOL and args.get("points"):
                    cited = [c.get("clause_id") for c in args["points"] if isinstance(c, dict)]
                    return list(dict.fromkeys(c for c in cited if c))[:MAX_CLAUSES]
                if part.tool_name == TOOL and args.get("clause_ids"):
                    return list(args["clause_ids"])[:MAX_CLAUSES]
    return []
