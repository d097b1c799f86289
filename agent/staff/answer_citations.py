"""What a staff answer quotes: its citations checked on the wording that governs the claim, and
the claimant's message that shows them."""

from __future__ import annotations

from collections.abc import Sequence

from agent.boundary.checks import cited_were_fetched, spans_verbatim
from agent.boundary.citation import Citation, Quote
from agent.boundary.selection import Point
from agent.boundary.units import readable
from agent.db.tables import Policy
from agent.policy.terms import TermInForce
from agent.staff.waiting_list import CitationRefused
from knowledge.clauses import MAX_CLAUSES_PER_FETCH, ClauseLibrary, verbatim

# An answer quotes at most three clauses (the design's limit), any number of their sentences:
# MAX_CITATIONS only bounds what one request may carry. Clauses the runtime added to a draft
# as qualifiers count toward neither.
MAX_ANSWER_CLAUSES = 3  # clauses one answer quotes (the runtime's qualifiers aside)
MAX_CITATIONS = 12


def verify_citations(
    library: ClauseLibrary,
    policy: Policy,
    term: TermInForce | None,
    text: str,
    citations: Sequence[Quote],
    *,
    runtime_added: frozenset[str] = frozenset(),
) -> list[Citation]:
    """The agent's citation checks, on the wording that governs the claim's term.

    Returns what the claimant is shown: a Citation per quote, the clause's whole text with
    its first quote.
    Raises CitationRefused, or the knowledge layer's errors when the store cannot be read.
    `runtime_added`: clauses the runtime put in a draft as qualifiers, outside the clause limit.
    """
    if not citations:
        return []
    if len(citations) > MAX_CITATIONS:
        raise CitationRefused(f"at most {MAX_CITATIONS} quotes per answer")
    chosen = list(dict.fromkeys(c.clause_id for c in citations if c.clause_id not in runtime_added))
    if len(chosen) > MAX_ANSWER_CLAUSES:
        raise CitationRefused(
            f"an answer quotes at most {MAX_ANSWER_CLAUSES} clauses (any number of their sentences); "
            f"this one quotes {len(chosen)}: {', '.join(chosen)}"
        )
    if term is None:
        raise CitationRefused(
            f"no term of policy {policy.policy_number} holds the claim's incident date, so no wording "
            "governs it yet; answer without citations, or once the incident date is recorded"
        )
    entry = library.governing(policy.family, term.term_start)
    directory = library.directory(entry)
    wording = f"{entry.family} wording {entry.version}"
    outside = [c.clause_id for c in citations if directory.get(c.clause_id) is None]
    if outside:
        raise CitationRefused(
            f"{', '.join(outside)} is not in the governing {wording} for policy "
            f"{policy.policy_number}; cite only clauses of that wording"
        )
    ids = list(dict.fromkeys(c.clause_id for c in citations))  # each clause fetched once, however many quotes
    fetched = {
        c.clause_id: c
        for n in range(0, len(ids), MAX_CLAUSES_PER_FETCH)  # runtime-added qualifiers may make it more
        for c in library.fetch(directory, ids[n : n + MAX_CLAUSES_PER_FETCH]).clauses
    }
    points = [Point(clause_id=c.clause_id, span=c.quote) for c in citations]
    failed = [
        c for c in (cited_were_fetched(points, fetched), spans_verbatim(points, fetched)) if not c.passed
    ]
    if failed:
        raise CitationRefused(f"{wording}: " + "; ".join(c.detail for c in failed))
    # The whole clause rides with its first quote, so the claimant's page can open it later
    # without reading the store on every poll.
    shown: list[Citation] = []
    for c in citations:
        clause = fetched[c.clause_id]
        first = all(s.clause_id != c.clause_id for s in shown)
        shown.append(
            Citation(
                clause_id=c.clause_id,
                quote=c.quote,
                title=clause.title,
                version=entry.version,
                full_text=readable(clause.text) if first else None,
            )
        )
    return shown


def _quoted_line(c: Citation) -> str:
    return f"{c.title} (your policy wording {c.version}): “{c.quote}”"


def staff_message_body(text: str, shown: list[Citation]) -> str:
    """The claimant's conversation shows a staff answer's citations in its text, each once: a
    quote the text already holds (a draft composed from the wording quotes them) is not repeated.
    A clause is named by its title, as the claimant reads it (its ID is the wording's code)."""
    lines = [text.strip()]
    lines += [_quoted_line(c) for c in shown if not verbatim(c.quote, text)]
    return "\n\n".join(lines)


def staff_text_of(body: str, shown: list[Citation]) -> str:
    """The handler's own words of a staff message: its body less the quotes appended to it."""
    appended = {_quoted_line(c) for c in shown}
    parts = body.split("\n\n")
    while len(parts) > 1 and parts[-1] in appended:
        parts.pop()
    return "\n\n".join(parts)
