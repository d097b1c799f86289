"""What an answer quotes. A `Quote` is a clause ID and words from it, not yet checked: what a
handler asks to cite, and what a verdict on a draft compares. A `Citation` is a quote checked
against the governing wording, with the clause's title and the version: one per served
sentence (agent.boundary.compose), the turn's and a staff answer's citations, and the API's
`CitationOut` built from it.

Stored as JSON (the turn record's `citations`, a draft's `citations`, an answered item's
`answer_citations`) only through `Citation.as_dict`, and read back through `Citation.of`; the
listing of what a version affected (agent.wording.affected) also reads its `clause_id` and
`version` keys in the database's own JSON functions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Quote:
    clause_id: str
    quote: str  # the words quoted, meant to be verbatim in the clause


@dataclass(frozen=True, kw_only=True)  # by name: the stored keys' order is not the fields'
class Citation(Quote):
    title: str  # what the claimant reads the clause by
    version: str  # the wording version the quote was checked against
    # The whole clause, kept with a staff answer's first quote of each clause so the claimant's
    # page can open it without reading the store; None everywhere else. Never on the wire as
    # part of a citation (CitationOut has no such field): the staff answer's clauses carry it.
    full_text: str | None = None

    def as_dict(self) -> dict[str, str]:
        """The stored form: the four keys every stored row has, and `full_text` when held."""
        stored = {
            "clause_id": self.clause_id,
            "title": self.title,
            "version": self.version,
            "quote": self.quote,
        }
        if self.full_text is not None:
            stored["full_text"] = self.full_text
        return stored

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> Citation:
        """A stored citation (rows stored before `full_text` was kept read with None)."""
        return cls(
            clause_id=stored["clause_id"],
            quote=stored["quote"],
            title=stored["title"],
            version=stored["version"],
            full_text=stored.get("full_text"),
        )

    @classmethod
    def all_of(cls, stored: Iterable[Mapping[str, Any]] | None) -> list[Citation]:
        """A stored list; None (an item not answered) reads as none."""
        return [cls.of(c) for c in stored or ()]
