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

from agent.models.vocabulary import (
    ADVICE,
    COMPLAINT,
    FINANCE,
    GENERIC_STEMS,
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

MODEL_NAME = "clausedesk-offline"
TOOL = "resolve_clauses"
_DIRECTORY_LINE = re.compile(r"^([A-Z]{3}-[A-Z]{3}-\d{2}) (.+)$", re.MULTILINE)
_POLICY_LINE = re.compile(r"\(([a-z]+), plan ([^)]*)\)")
_FOLLOW_UP = re.compile(r"\b(that|it|this|those|these|same|also|too)\b", re.IGNORECASE)
_AMOUNT_QUESTION = re.compile(
    r"\b(how (much|many|long)|limit|max|maximum|cost|amount|worth|"
    r"per day|a day|days)\b",
    re.IGNORECASE,
)
_LIMIT = re.compile(r"\b(?:up to|at most|the most we pay)\b.*\b(?:NZD|\d+ (?:days|weeks|months))", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_PLAN_NAME = re.compile(r"\b([A-Z][a-z]+) plan\b")
MAX_CLAUSES = 3
# Words a claimant uses for their own product, per family: "car insurance" from a motor
# claimant is this policy; from a contents claimant it is another product.
OWN_PRODUCT = {
    "motor": frozenset({"car", "vehicl", "motor"}),
    "home": frozenset({"home", "hous"}),
    "contents": frozenset({"content"}),
}
ANY_PRODUCT = frozenset().union(*OWN_PRODUCT.values())
_REQUEST = frozenset({"can", "could", "will", "would"})
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

    Each kind is a combination of general words: a product noun next to "insurance", a
    request to the insurer to do something, claim progress, advice, a complaint, a price.
    """
    words = tokens(question)
    have = set(words)
    own = OWN_PRODUCT.get(family or "", frozenset())
    products = (stems(PRODUCTS) | ANY_PRODUCT) - own
    nouns = stems(PRODUCT_NOUNS)
    if have & stems(COMPLAINT):
        return "complaint"
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
    if have & stems(PROGRESS) and ("claim" in have or have & stems(PROGRESS_PEOPLE)):
        return "claim_progress"
    if have & stems(PROGRESS_PEOPLE) and have & {"book", "been", "come", "name", "number", "talk", "speak"}:
        return "claim_progress"
    if ({"when", "long"} & have) and have & {"money", "payment", "payout", "fund"}:
        return "claim_progress"
    if {"where", "claim", "up"} <= have:
        return "claim_progress"
    if have & stems(ADVICE):
        return "advice"
    if any(a == "worth" and b == "claim" for a, b in itertools.pairwise(words)):
        return "advice"
    if have & stems(PRICE) and (have & {"up", "increas", "rise", "cheaper", "discount", "lower", "higher"}):
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


def best_quotes(question: str, clause: dict, plan: str | None) -> list[tuple[float, str]]:
    """Score each sentence (or ';' part of one) of a clause against the question."""
    asked = terms(question) - GENERIC_STEMS
    wants_amount = bool(_AMOUNT_QUESTION.search(question))
    body = clause["text"].split("\n", 1)[1] if "\n" in clause["text"] else clause["text"]
    plans = plan_names(body)
    scored = []
    for sentence in _SENTENCE.split(body):
        for span in _spans(sentence):
            words = terms(span)
            score = float(len(asked & words))
            if wants_amount and re.search(r"NZD|\d", span):
                score += 1.0
            named = {p for p in plans if re.search(rf"\b{p}\b", span)}
            if plan and named:
                score += 2.0 if plan in named else -3.0
            if score > 0:
                scored.append((score, span))
    return sorted(scored, key=lambda s: -s[0])


def addresses(question: str, clause: dict, plan: str | None = None) -> bool:
    """Whether a clause speaks to the question beyond a shared everyday word: a subject of
    the question that the clause's title names, a specific subject anywhere in the clause,
    or two of the question's content words. A follow-up ("does that include fuel?")
    continues the clause's subject: one word will do."""
    asked = (terms(question) | claim_steps(question) | plan_asked(question, plan)) - GENERIC_STEMS
    titled = terms(clause["title"])
    shared = asked & (titled | terms(clause["text"]))
    if asked & STRONG:
        return bool(shared & STRONG)  # the question names its subject: the clause must have it
    if any(t.startswith("#") for t in shared & titled):
        return True
    needed = 1 if _FOLLOW_UP.search(question) and len(asked) <= 2 else 2
    return len(shared) >= needed


def _limit_sentence(clause: dict, quote: str) -> str | None:
    """A benefit's amount or duration sentence, so an answer about a benefit states its limit."""
    body = clause["text"].split("\n", 1)[1] if "\n" in clause["text"] else clause["text"]
    for sentence in _SENTENCE.split(body):
        for span in _spans(sentence):
            if span != quote and span not in quote and _LIMIT.search(span):
                return span
    return None


def _spans(sentence: str) -> list[str]:
    text = sentence.strip().lstrip("-*> ").strip()
    if not text or text.startswith("#"):
        return []
    parts = [p.strip() for p in text.split(";")] if ";" in text else [text]
    return [p for p in parts if len(p.split()) >= 4]


def offline_model() -> FunctionModel:
    return FunctionModel(respond, model_name=MODEL_NAME)


def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    question = current_question(messages)
    returned = _tool_result_this_run(messages)
    if returned is None:
        instructions = info.instructions or ""
        directory = _DIRECTORY_LINE.findall(instructions)
        policy = _POLICY_LINE.search(instructions)
        family, plan = (policy.group(1), policy.group(2)) if policy else (None, None)
        ids = [c.clause_id for c in select_clauses(question, directory, family, plan)]
        if not ids and _FOLLOW_UP.search(question) and not unanswerable(question, family):
            ids = _previous_clause_ids(messages)
        return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": ids})], model_name=MODEL_NAME)
    output_tool = info.output_tools[0].name
    return ModelResponse(
        parts=[ToolCallPart(output_tool, selection_for(question, returned))], model_name=MODEL_NAME
    )


def asks_nothing(question: str) -> bool:
    """Thanks, a greeting, an acknowledgement: no question to answer or route."""
    words = re.findall(r"[a-z]+", question.lower())
    return bool(words) and "?" not in question and all(w in _PLEASANTRIES for w in words)


def selection_for(question: str, returned: dict) -> dict:
    """Spans of the returned clauses that answer the question, or a route to staff."""
    if asks_nothing(question):
        return {"outcome": "nothing_asked"}
    plan = (returned.get("schedule") or {}).get("plan")
    picks = []
    for clause in returned.get("clauses", []):
        if not addresses(question, clause, plan):
            continue  # shares a word with the question, not its subject
        quotes = best_quotes(question, clause, plan)
        if quotes:
            picks.append((quotes[0][0], clause, quotes[0][1]))
    if not picks:
        reason = "clause_not_in_directory" if returned.get("not_found") else "no_clause_selected"
        return {"outcome": "routed_to_staff", "route_reason": reason}
    picks.sort(key=lambda p: -p[0])
    top = picks[0][0]
    picks = [p for p in picks if p[0] >= 0.6 * top][:2]
    points = []
    for _, clause, quote in picks:
        points.append({"clause_id": clause["clause_id"], "span": quote})
        benefit = clause.get("optional_section") or "-BEN-" in clause["clause_id"]
        limit = _limit_sentence(clause, quote)
        if benefit and limit and clause.get("schedule_includes") is not False:
            points.append({"clause_id": clause["clause_id"], "span": limit})
    return {"outcome": "answered", "points": points}


def current_question(messages: list[ModelMessage]) -> str:
    """The latest question the claimant asked in these messages."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return ""


def _tool_result_this_run(messages: list[ModelMessage]) -> dict | None:
    """The resolve_clauses result after the latest question, if the tool has run."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and part.tool_name == TOOL:
                    return part.content if isinstance(part.content, dict) else None
                if isinstance(part, UserPromptPart):
                    return None
    return None


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
