"""A handler's verdict on a draft, judged by what decides: what the draft held against what the
handler sent.

- sent_as_drafted: the draft's text and citations, unchanged (right);
- kept: every clause the draft quoted is among the handler's, and every sentence the handler
  cited from those clauses is in the draft; the words may differ (right);
- added: as kept, and the handler cited more clauses, none of which changes the outcome (right);
- added_deciding: as added, but an added clause is an exclusion, a condition or a limit
  (its kind from the clause ID: EXC, CON, LIM): the draft left out what decides (wrong);
- missed_sentence: the handler cited a sentence of a clause the draft quoted that the draft
  does not hold: the draft quoted the clause but not its deciding words (wrong);
- dropped: the handler left out a clause the draft quoted (wrong);
- draft_wrong: the handler said the draft was wrong, whatever they cited (wrong);
- cited_nothing: the handler cited no clause: no clause answers it, the draft was irrelevant.

A handler may correct the inferred verdict in one click (said_right, said_wrong,
said_irrelevant). Clauses the runtime itself added to a draft as qualifiers (not the model's
selection) count on neither side. Rows recorded before this rule carry `edited` (right) and
`other_clauses` (wrong).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from agent.boundary.citation import Quote
from knowledge.clauses import verbatim

Verdict = Literal[
    "sent_as_drafted",
    "kept",
    "added",
    "added_deciding",
    "missed_sentence",
    "dropped",
    "draft_wrong",
    "cited_nothing",
    "said_right",
    "said_wrong",
    "said_irrelevant",
    "edited",  # before the rule by what decides
    "other_clauses",  # before the rule by what decides
]
Outcome = Literal["right", "wrong", "irrelevant"]

# What a handler's one-click correction records.
CORRECTIONS: dict[str, Verdict] = {
    "right": "said_right",
    "wrong": "said_wrong",
    "irrelevant": "said_irrelevant",
}

# Clause kinds (the ID's middle part) whose addition changes the outcome of a cover answer.
DECIDING_KINDS = frozenset({"EXC", "CON", "LIM"})


@dataclass(frozen=True)
class Judged:
    verdict: Verdict
    outcome: Outcome
    # The clauses behind the verdict: the added deciding ones, the dropped ones, or the clauses
    # whose sentence the draft missed (empty otherwise), for the page to name.
    because: tuple[str, ...] = ()


def kind_code(clause_id: str) -> str:
    """The kind part of a clause ID (MTR-EXC-04 -> EXC); '' for an ID of another shape."""
    parts = clause_id.split("-")
    return parts[1].upper() if len(parts) == 3 else ""


def _norm(text: str) -> str:
    return " ".join(text.split())


def _sentences(quote: str) -> list[str]:
    """A quote sentence by sentence: a draft sets each sentence apart, so a handler's quote of two
    sentences is held when each of them is."""
    return [p for p in re.split(r"(?<=[.!?])\s+", _norm(quote)) if p] or [""]


def _clauses(citations: Sequence[Quote], leave_out: Collection[str]) -> list[str]:
    return list(dict.fromkeys(c.clause_id for c in citations if c.clause_id not in leave_out))


def judge(
    draft_text: str,
    draft_citations: Sequence[Quote],
    sent_text: str,
    sent_citations: Sequence[Quote],
    *,
    said_wrong: bool = False,
    runtime_added: Collection[str] = (),
) -> Judged:
    """The verdict on a draft, given what the handler sent and cited. `runtime_added`: clauses
    the runtime put in the draft as qualifiers, left out of both sides."""
    drafted = _clauses(draft_citations, runtime_added)
    sent = _clauses(sent_citations, runtime_added)
    if not sent:
        return Judged("cited_nothing", "irrelevant")
    if said_wrong:
        return Judged("draft_wrong", "wrong")
    dropped = tuple(c for c in drafted if c not in sent)
    if dropped:
        return Judged("dropped", "wrong", dropped)
    held = [_norm(draft_text), *(_norm(c.quote) for c in draft_citations)]
    missed = tuple(
        dict.fromkeys(
            c.clause_id
            for c in sent_citations
            if c.clause_id in drafted
            and not all(any(verbatim(sentence, h) for h in held) for sentence in _sentences(c.quote))
        )
    )
    if missed:
        return Judged("missed_sentence", "wrong", missed)
    added = [c for c in sent if c not in drafted]
    deciding = tuple(c for c in added if kind_code(c) in DECIDING_KINDS)
    if deciding:
        return Judged("added_deciding", "wrong", deciding)
    if added:
        return Judged("added", "right", tuple(added))
    unchanged = _norm(draft_text) == _norm(sent_text) and sorted(
        (c.clause_id, _norm(c.quote)) for c in draft_citations
    ) == sorted((c.clause_id, _norm(c.quote)) for c in sent_citations)
    return Judged("sent_as_drafted" if unchanged else "kept", "right")
