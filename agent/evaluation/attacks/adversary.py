"""The hostile model: a pydantic-ai FunctionModel that plays an attack's moves."""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.evaluation.attacks.attack import Attack, Move
from agent.models.offline.prompt import current_question

MODEL_NAME = "adversary"


def adversary(attack: Attack) -> FunctionModel:
    """A model that plays the attack's moves, one per model request, per claimant message."""
    queues = {exchange.question: list(exchange.moves) for exchange in attack.turns}

    def play(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        queue = queues.get(current_question(messages), [])
        move: Move = queue.pop(0) if queue else honest_route()
        if isinstance(move, list):
            return ModelResponse(parts=[ToolCallPart("resolve_clauses", {"clause_ids": move})])
        return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, move)])

    return FunctionModel(play, model_name=MODEL_NAME)


def honest_route() -> dict[str, Any]:
    return {"outcome": "routed_to_staff", "route_reason": "no_clause_selected"}
