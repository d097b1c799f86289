"""The offline model's loop: a FunctionModel that, like any model, reads the context, calls
open_parts or resolve_clauses, and answers with a selection; and the public builder.

With a memory, what a close verified question of the governing wording cites is fetched
first, and an answer no verified question backs is drafted for a claims handler.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent.boundary.selection import PARTS_TOOL, TOOL
from agent.models.memory import Memories, Recall
from agent.models.offline.answerability import unanswerable
from agent.models.offline.choosing import FOLLOW_UP, best_parts, select_clauses, selection_for
from agent.models.offline.prompt import (
    DIRECTORY_LINE,
    PART_LINE,
    POLICY_LINE,
    SCHEDULE_LINE,
    WORDING_LINE,
    choosing_instructions,
    cover_of,
    current_question,
    directory_now,
    earlier_cited,
    opened_this_run,
    previous_clause_ids,
    previous_question,
    tool_result_this_run,
)
from knowledge.clauses import MAX_CLAUSES_PER_FETCH

MODEL_NAME = "clausedesk-offline"


def offline_model(memory: Memories | None = None) -> FunctionModel:
    """The offline model; with a memory, it learns from the governing wording's verified examples."""

    def function(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return respond(messages, info, memory)

    return FunctionModel(function, model_name=MODEL_NAME)


def respond(messages: list[ModelMessage], info: AgentInfo, memory: Memories | None = None) -> ModelResponse:
    question = current_question(messages)
    returned = tool_result_this_run(messages)
    instructions = info.instructions or ""
    policy = POLICY_LINE.search(instructions)
    family, plan = (policy.group(1), policy.group(2)) if policy else (None, None)
    if returned is None:
        parts = PART_LINE.findall(instructions)
        if parts and not unanswerable(question, family) and opened_this_run(messages) is None:
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
            first = [*recalled_ids(recalled, messages, instructions), *ids]
            ids = list(dict.fromkeys(first))[:MAX_CLAUSES_PER_FETCH]
        return ModelResponse(parts=[ToolCallPart(TOOL, {"clause_ids": ids})], model_name=MODEL_NAME)
    output_tool = info.output_tools[0].name
    # The schedule is in the context, where every model reads it; the tool does not repeat it.
    summary = SCHEDULE_LINE.search(instructions)
    returned = {**returned, "schedule": {"plan": plan, "summary": summary.group(1) if summary else ""}}
    follow_up = bool(FOLLOW_UP.search(question))
    previous = previous_question(messages) if follow_up else None
    continuing = tuple(earlier_cited(messages)) if follow_up else ()
    # The directory is withdrawn once clauses come back: the choice is re-read from the request
    # that made it (deterministic: the same question and directory give the same choice).
    choosing = choosing_instructions(messages) or instructions
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


def own_choice(
    question: str, messages: list[ModelMessage], instructions: str, family: str | None, plan: str | None
) -> list[str]:
    """The clauses the model picks from titles alone (a follow-up keeps the earlier answer's)."""
    directory = directory_now(messages, instructions)
    ids = [c.clause_id for c in select_clauses(question, directory, family, plan)]
    if not ids and FOLLOW_UP.search(question) and not unanswerable(question, family):
        ids = previous_clause_ids(messages)
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
    wording = WORDING_LINE.search(instructions)
    if memory is None or wording is None or unanswerable(question, family):
        return None
    visible = frozenset(cid for cid, _ in directory_now(messages, instructions, theirs_only=True))
    return memory.recall(
        wording.group(1), wording.group(2), question, cover=cover_of(instructions), visible=visible
    )


def recalled_ids(recalled: Recall | None, messages: list[ModelMessage], instructions: str) -> list[str]:
    """What the recalled example cites, by ID, whatever the titles matched or the parts opened.
    A one-level directory is the claimant's whole directory: what it lacks is not asked for. Of a
    wording shown in parts, every ID: the tool fetches what is in the claimant's directory and
    says what is not."""
    if recalled is None or recalled.example.routed:
        return []
    if PART_LINE.search(instructions):
        return list(recalled.example.clause_ids)
    named = {cid for cid, _ in DIRECTORY_LINE.findall(instructions)}
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
