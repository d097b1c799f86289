"""A handler's verdict on a draft, read from what they sent against what was drafted.

- sent_as_drafted: the draft's text and citations, unchanged;
- edited: the same clauses cited, the words changed (a greeting, context for the claimant);
- other_clauses: some of the draft's clauses, with others added or some dropped;
- draft_wrong: none of the draft's clauses, or the handler said the draft was wrong.

The draft is what would have been served, so the verdict scores it: the first two right, the
others wrong, and a draft for a question the handler answered citing nothing (no clause answers
it) irrelevant.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Verdict = Literal["sent_as_drafted", "edited", "other_clauses", "draft_wrong"]
VERDICTS: tuple[str, ...] = Verdict.__args__  # type: ignore[attr-defined]


def _cited(citations: Sequence[dict[str, str]]) -> list[tuple[str, str]]:
    return [(c["clause_id"], " ".join(c["quote"].split())) for c in citations]


def verdict_on(
    draft_text: str,
    draft_citations: Sequence[dict[str, str]],
    sent_text: str,
    sent_citations: Sequence[dict[str, str]],
    *,
    said_wrong: bool = False,
) -> tuple[Verdict, str]:
    """(verdict, outcome) of a draft, given what the handler sent and cited."""
    drafted = {c for c, _ in _cited(draft_citations)}
    sent = {c for c, _ in _cited(sent_citations)}
    if said_wrong or not (drafted & sent):
        return "draft_wrong", "wrong" if sent else "irrelevant"
    if drafted != sent:
        return "other_clauses", "wrong"
    same_words = " ".join(draft_text.split()) == " ".join(sent_text.split())
    if same_words and sorted(_cited(draft_citations)) == sorted(_cited(sent_citations)):
        return "sent_as_drafted", "right"
    return "edited", "right"
