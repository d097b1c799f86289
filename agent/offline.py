"""The built-in offline model: no key, no network, extractive answers with verbatim quotes.

It sees exactly what any model sees (instructions with the directory, the question, the
history, the tool results) and plays by the same rules: it picks clause IDs by matching the
question to directory titles, calls resolve_clauses, and answers by quoting the sentences
of the returned clauses that best match the question, or routes to staff.
"""

from __future__ import annotations

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

from agent.vocabulary import GENERIC, SERVICE, STRONG, terms

MODEL_NAME = "clausedesk-offline"
TOOL = "resolve_clauses"
_DIRECTORY_LINE = re.compile(r"^([A-Z]{3}-[A-Z]{3}-\d{2}) (.+)$", re.MULTILINE)
_FOLLOW_UP = re.compile(r"\b(that|it|this|those|these|same|also|too)\b", re.IGNORECASE)
_AMOUNT_QUESTION = re.compile(
    r"\b(how (much|many|long)|limit|max|maximum|cost|amount|worth|"
    r"per day|a day|days)\b",
    re.IGNORECASE,
)
_LIMIT = re.compile(r"\b(?:up to|at most|the most we pay)\b.*\b(?:NZD|\d+ (?:days|weeks|months))", re.I)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
MAX_CLAUSES = 3


@dataclass(frozen=True)
class Choice:
    clause_id: str
    score: float


def select_clauses(question: str, directory: list[tuple[str, str]]) -> list[Choice]:
    """Rank directory titles against the question; [] when no title fits."""
    asked = terms(question)
    if not asked or not directory:
        return []
    titles = {cid: terms(f"{title}") for cid, title in directory}
    in_titles = set().union(*titles.values())
    if asked & SERVICE:
        return []  # claim progress, prices, other insurers: not in any wording
    strong = asked & STRONG
    if strong and not strong & in_titles:
        return []  # the question is about a subject this wording has no clause for
    df = {t: sum(t in ts for ts in titles.values()) for t in asked}
    n = len(directory)

    def weight(term: str) -> float:
        base = math.log(1 + n / df[term])
        if term in STRONG:
            return 3 * base
        return 0.3 * base if term in GENERIC else base

    scored = [Choice(cid, sum(weight(t) for t in asked & ts)) for cid, ts in titles.items()]
    scored = sorted((c for c in scored if c.score > 0), key=lambda c: -c.score)
    if not scored or scored[0].score < 1.5:
        return []
    top = scored[0].score
    return [c for c in scored[:MAX_CLAUSES] if c.score >= 0.4 * top]


def best_quotes(question: str, clause: dict, plan: str | None) -> list[tuple[float, str]]:
    """Score each sentence (or ';' part of one) of a clause against the question."""
    asked = terms(question) - GENERIC
    wants_amount = bool(_AMOUNT_QUESTION.search(question))
    body = clause["text"].split("\n", 1)[1] if "\n" in clause["text"] else clause["text"]
    scored = []
    for sentence in _SENTENCE.split(body):
        for span in _spans(sentence):
            words = terms(span)
            score = float(len(asked & words))
            if wants_amount and re.search(r"NZD|\d", span):
                score += 1.0
            if plan and re.search(r"\b(Standard|Premier)\b", span):
                score += 2.0 if plan.lower() in span.lower() else -3.0
            if score > 0:
                scored.append((score, span))
    return sorted(scored, key=lambda s: -s[0])


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
    question = _current_question(messages)
    returned = _tool_result_this_run(messages)
    if returned is None:
        directory = _DIRECTORY_LINE.findall(info.instructions or "")
        ids = [c.clause_id for c in select_clauses(question, directory)]
        if not ids and _FOLLOW_UP.search(question):
            ids = _previous_clause_ids(messages)
        return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": ids})], model_name=MODEL_NAME)
    output_tool = info.output_tools[0].name
    return ModelResponse(
        parts=[ToolCallPart(output_tool, compose_reply(question, returned))], model_name=MODEL_NAME
    )


def compose_reply(question: str, returned: dict) -> dict:
    """An extractive answer from the returned clauses, or a route to staff."""
    plan = (returned.get("schedule") or {}).get("plan")
    picks = []
    for clause in returned.get("clauses", []):
        quotes = best_quotes(question, clause, plan)
        if quotes:
            picks.append((quotes[0][0], clause, quotes[0][1]))
    if not picks:
        reason = "clause_not_in_directory" if returned.get("not_found") else "no_clause_selected"
        return {
            "text": "I can't find the answer to that in your policy wording.",
            "outcome": "routed_to_staff",
            "citations": [],
            "staff_question": question,
            "route_reason": reason,
        }
    picks.sort(key=lambda p: -p[0])
    top = picks[0][0]
    picks = [p for p in picks if p[0] >= 0.6 * top][:2]
    lines, citations = [], []
    for _, clause, quote in picks:
        ref = f"{clause['clause_id']} ({clause['title']})"
        limit = _limit_sentence(clause, quote)
        if clause.get("schedule_includes") is False:
            section = (clause.get("optional_section") or "").replace("_", " ")
            lines.append(
                f"Your schedule does not list {section}, so your policy does not include "
                f"this benefit. {ref} says: “{quote}”"
            )
        else:
            lines.append(f"{ref} says: “{quote}”")
            benefit = clause.get("optional_section") or "-BEN-" in clause["clause_id"]
            if benefit and limit:
                lines.append(f"Its limit: “{limit}”")
                citations.append({"clause_id": clause["clause_id"], "quote": limit})
            if benefit:
                lines.append("Your policy includes this benefit, subject to the claim being accepted.")
        citations.append({"clause_id": clause["clause_id"], "quote": quote})
    if plan and any(re.search(r"\b(Standard|Premier)\b", q) for _, _, q in picks):
        lines.insert(0, f"Your schedule names the {plan} plan.")
    return {
        "text": " ".join(lines),
        "outcome": "answered",
        "citations": citations,
        "staff_question": None,
        "route_reason": None,
    }


def _current_question(messages: list[ModelMessage]) -> str:
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
    """Clause IDs the latest earlier turn resolved, for a follow-up question."""
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if isinstance(part, ToolCallPart) and part.tool_name == TOOL:
                    ids = part.args_as_dict().get("clause_ids") or []
                    if ids:
                        return list(ids)[:MAX_CLAUSES]
    return []
