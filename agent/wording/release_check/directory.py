"""Directory size: the candidate's and the baseline's clause directory, in tokens, as the model
reads it in the turn context."""

from __future__ import annotations

from agent.models.tokenizer import tokenizer
from knowledge.clauses import Directory


def directory_text(directory: Directory) -> str:
    """The directory as the model reads it in the turn context ('ID Title' lines)."""
    lines = [f"Wording {directory.family} {directory.version}. Clause directory:"]
    lines += [f"{e.clause_id} {e.title}" for e in directory.entries]
    return "\n".join(lines)


def directory_tokens(directory: Directory) -> int:
    return len(tokenizer().encode(directory_text(directory)))
