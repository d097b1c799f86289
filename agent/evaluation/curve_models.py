"""Evaluation-only models of a stated accuracy for the learning curve (`scripted:0.99`).

Such a model knows the inventory's labels: for a stated share P of the inventory's questions it
fetches and quotes the labelled clauses (or routes a question no clause answers), and for the
rest it quotes a clause the labels do not name (or answers a question no clause answers). Which
questions it misses is fixed by the seed per question ID: the (1 - P) share of the inventory
whose seeded draws are lowest, so the same question always gets the same selection and the
model is right on exactly the stated share (independent draws per question made `0.99` right on
97 % of the Kowhai inventory with the default seed). The gate's behaviour is shown apart from
any model's reading. It is built here and handed to the app the
curve serves in its own process; `python -m agent serve` cannot reach it.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.boundary.selection import TOOL
from agent.models.offline.prompt import current_question
from agent.wording.questions import Question, normalise

PREFIX = "scripted:"
SCHEDULE_LINE = re.compile(r"^Schedule: (.*)$", re.MULTILINE)  # in the instructions every model reads
SCHEDULE_ITEM = re.compile(r"([a-z_0-9]+) ([A-Z]{3} [\d,.]+)")
POLICY = re.compile(r"^Claim \S+, policy (\S+) \(", re.MULTILINE)  # the context line of the instructions
MAX_POINTS = 6


class ScriptedSpecError(ValueError):
    """A `scripted:P` model string whose P is not an accuracy between 0 and 1."""


def scripted_accuracy(spec: str) -> float | None:
    """The accuracy a `scripted:P` model string states; None for any other model string."""
    if not spec.startswith(PREFIX):
        return None
    try:
        accuracy = float(spec[len(PREFIX) :])
    except ValueError as exc:
        raise ScriptedSpecError(f"{spec!r}: give the accuracy as a number, e.g. scripted:0.99") from exc
    if not 0 <= accuracy <= 1:
        raise ScriptedSpecError(f"{spec!r}: the accuracy must be between 0 and 1")
    return accuracy


@dataclass(frozen=True)
class Labelled:
    """A question as the scripted model knows it: what a right answer cites, and its facts."""

    question: Question
    clauses: tuple[str, ...]


def draw(seed: int, question_id: str) -> random.Random:
    """The per-question random stream: the same seed and question, the same draws."""
    digest = hashlib.sha256(f"{seed}:{question_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def missed(accuracy: float, question_ids: Sequence[str], seed: int) -> frozenset[str]:
    """The questions a model right on `accuracy` of them misses: the (1 - accuracy) share, rounded,
    whose first seeded draw is lowest."""
    ids = sorted(set(question_ids))
    count = round((1 - accuracy) * len(ids))
    return frozenset(sorted(ids, key=lambda q: draw(seed, q).random())[:count])


def _fetched(messages: list[ModelMessage]) -> dict[str, Any] | None:
    """What resolve_clauses returned after the latest question, if it ran."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and part.tool_name == TOOL:
                    return part.content if isinstance(part.content, dict) else None
                if getattr(part, "part_kind", "") == "user-prompt":
                    return None
    return None


def spans(text: str, facts: Sequence[Sequence[str]]) -> list[str]:
    """Lines of a clause to quote: those holding a fact of the question, else its first line of
    six words or more (a handler and a right model quote what decides)."""
    body = text.split("\n", 1)[1] if "\n" in text else text
    lines = [line.strip().strip("-•*").strip() for line in body.splitlines()]
    lines = [line for line in lines if len(line.split()) >= 3]
    wanted = [normalise(s) for group in facts for s in group]
    holding = [line for line in lines if any(w and w in normalise(line) for w in wanted)]
    if holding:
        return holding
    long = [line for line in lines if len(line.split()) >= 6]
    return (long or lines)[:1]


def schedule_facts(instructions: str, facts: Sequence[Sequence[str]]) -> list[str]:
    """The schedule keys a right answer names: those whose figure is in one of the question's facts
    (an agreed value, an excess), and the plan when a fact names it."""
    line = SCHEDULE_LINE.search(instructions)
    if not line:
        return []
    wanted = [normalise(s) for group in facts for s in group]
    with_figure, named = [], []
    for key, value in SCHEDULE_ITEM.findall(line.group(1)):
        # The figure whole ("NZD 15,000" is not in "NZD 150,000"), without the list's comma.
        figure = re.compile(rf"{re.escape(normalise(value.rstrip(',.')))}(?![\d,]*\d)")
        holding = [w for w in wanted if figure.search(w)]
        if holding:
            with_figure.append(key)
            if any(key.replace("_", " ") in w for w in holding):
                named.append(key)
    # Several keys with the figure: those the fact names ("Standard excess: NZD 500").
    keys = named or with_figure
    plan = re.search(r"plan ([^;,]+)", line.group(1))
    if plan and any(normalise(plan.group(1)) in w for w in wanted):
        keys.insert(0, "plan")
    return list(dict.fromkeys(keys))


def scripted_model(
    accuracy: float,
    labelled: Sequence[Labelled],
    pools: Mapping[str, Sequence[str]],
    *,
    seed: int = 0,
    name: str | None = None,
) -> FunctionModel:
    """A model right on `accuracy` of the `labelled` questions, which ones fixed by the seed per
    question ID. `pools`: family -> the clause IDs a wrong selection may quote."""
    # The same words asked on another policy may have another right answer (a section one
    # schedule lists and another does not): a question is known by its words and its policy.
    by_text: dict[tuple[str, str], Labelled] = {}
    for item in labelled:
        by_text.setdefault((normalise(item.question.text), item.question.policy), item)
    wrong = missed(accuracy, [item.question.id for item in labelled], seed)

    def choice(item: Labelled) -> tuple[bool, list[str]]:
        rng = draw(seed, item.question.id)
        rng.random()  # the draw that ranked it
        right = item.question.id not in wrong
        if right:
            return True, list(item.clauses[:3])
        others = [c for c in pools.get(item.question.family, ()) if c not in item.clauses]
        return False, [rng.choice(others)] if others else []

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        output = info.output_tools[0].name
        policy = POLICY.search(info.instructions or "")
        item = by_text.get((normalise(current_question(messages)), policy.group(1) if policy else ""))
        if item is None:  # not an inventory question: nothing to know it by
            return ModelResponse(parts=[ToolCallPart(output, _route("no_clause_selected"))])
        right, clauses = choice(item)
        fetched = _fetched(messages)
        if fetched is None:
            return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": clauses})])
        returned = {c["clause_id"]: c["text"] for c in fetched.get("clauses", [])}
        if right and not item.clauses:
            return ModelResponse(parts=[ToolCallPart(output, _route("clauses_do_not_answer"))])
        facts = item.question.facts if right else ()
        points = [
            {"clause_id": clause_id, "span": span}
            for clause_id in clauses
            if clause_id in returned
            for span in spans(returned[clause_id], facts)
        ][:MAX_POINTS]
        keys = schedule_facts(info.instructions or "", facts)
        if not points and not keys:
            return ModelResponse(parts=[ToolCallPart(output, _route("clauses_do_not_answer"))])
        selection = {"outcome": "answered", "points": points, "schedule_facts": keys}
        return ModelResponse(parts=[ToolCallPart(output, selection)])

    return FunctionModel(play, model_name=name or f"{PREFIX}{accuracy:g}")


def _route(reason: str) -> dict[str, Any]:
    return {"outcome": "routed_to_staff", "route_reason": reason}
