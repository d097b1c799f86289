"""Reading the prompt back: what the instructions and this run's messages say.

The instructions give the claimant's policy and plan, the schedule, the wording and its
directory (or, for a large wording, its parts); the messages give the questions asked, what
the tools returned this run, and what the earlier answer cited.
"""

from __future__ import annotations

import re

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from agent.answering.examples import Cover
from agent.boundary.selection import NOT_THEIRS, PARTS_TOOL, TOOL
from knowledge.clauses import MAX_CLAUSES_PER_FETCH
from knowledge.source import CLAUSE_ID

# A two-level directory's part lines: "3 Part A: Loss and damage (12)".
PART_LINE = re.compile(r"^(\d+) (.+) \((\d+)\)$", re.MULTILINE)
DIRECTORY_LINE = re.compile(rf"^({CLAUSE_ID}) (.+)$", re.MULTILINE)
WORDING_LINE = re.compile(r"^Wording (\S+) (\S+)\. Clause directory:", re.MULTILINE)
POLICY_LINE = re.compile(r"\(([a-z][a-z0-9_]*), plan ([^)]*)\)")
SCHEDULE_LINE = re.compile(r"^Schedule: (.*)$", re.MULTILINE)
_LISTED = re.compile(r"optional sections listed: (.*?); excess:")


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


def tool_result_this_run(messages: list[ModelMessage]) -> dict | None:
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


def earlier_cited(messages: list[ModelMessage]) -> list[str]:
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


def previous_clause_ids(messages: list[ModelMessage]) -> list[str]:
    """Clause IDs the latest earlier answer cited (else resolved), for a follow-up question."""
    for message in reversed(messages):
        if isinstance(message, ModelResponse):
            for part in message.parts:
                if not isinstance(part, ToolCallPart):
                    continue
                args = part.args_as_dict()
                if part.tool_name != TOOL and args.get("points"):
                    cited = [c.get("clause_id") for c in args["points"] if isinstance(c, dict)]
                    return list(dict.fromkeys(c for c in cited if c))[:MAX_CLAUSES_PER_FETCH]
                if part.tool_name == TOOL and args.get("clause_ids"):
                    return list(args["clause_ids"])[:MAX_CLAUSES_PER_FETCH]
    return []


def choosing_instructions(messages: list[ModelMessage]) -> str | None:
    """The instructions of this run's first request, which showed the directory."""
    for message in reversed(messages):
        if isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts):
            return message.instructions
    return None


def directory_now(
    messages: list[ModelMessage], instructions: str, *, theirs_only: bool = False
) -> list[tuple[str, str]]:
    """The `ID Title` lines the model may name now: the directory, or the parts opened this run;
    titles without the mark of another cover level's clause, and with `theirs_only` without
    those clauses at all."""
    lines = (
        (opened_this_run(messages) or [])
        if PART_LINE.search(instructions)
        else DIRECTORY_LINE.findall(instructions)
    )
    return [
        (cid, title.removesuffix(NOT_THEIRS))
        for cid, title in lines
        if not (theirs_only and title.endswith(NOT_THEIRS))
    ]


def opened_this_run(messages: list[ModelMessage]) -> list[tuple[str, str]] | None:
    """The `ID Title` lines of the parts open_parts listed after the latest question; None
    when it has not run."""
    content = _returned_this_run(messages, PARTS_TOOL)
    if content is None:
        return None
    return DIRECTORY_LINE.findall("\n".join(p.get("clauses", "") for p in content.get("parts", [])))


def cover_of(instructions: str) -> Cover:
    """The claimant's plan and listed sections as the context states them ("(motor, plan
    Comprehensive)", "Schedule: plan …; optional sections listed: a, b; excess: …")."""
    policy = POLICY_LINE.search(instructions)
    schedule = SCHEDULE_LINE.search(instructions)
    listed = _LISTED.search(schedule.group(1)) if schedule else None
    sections = [] if listed is None or listed.group(1) == "none" else listed.group(1).split(", ")
    return Cover(policy.group(2) if policy else None, frozenset(sections))
