"""Links between units: a unit that uses a defined term links to its definition, and a
cross-reference ("see Section 7", "under 'Emergency repairs'") links to the unit it names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge.importing.segment import KIND_WORDS, Unit

# A term used in more than this share of units ("you", "we") is everywhere: linking it
# would fetch the definition with every clause, so it is left out and the report says so.
UBIQUITOUS = 0.4
SECTION_REF = re.compile(r"\b(?:see|in|under|refer to)\s+(?:section|part)\s+([A-Z0-9]{1,2})\b", re.I)
DEFINITIONS_HEADING = re.compile(dict(KIND_WORDS)["DEF"], re.I)
QUOTED_REF = re.compile(r"(?:see|under|in|refer to)\s+(?:the\s+)?[‘'“\"]([^’'”\"]{3,60})[’'”\"]", re.I)


@dataclass(frozen=True)
class Linked:
    links: list[tuple[str, ...]]  # per unit, the IDs it links to
    definitions: int  # links to definitions
    references: int  # links from cross-references
    everywhere: list[str]  # defined terms not linked because nearly every unit uses them


def _terms(heading: str) -> list[str]:
    parts = re.split(r"\s*/\s*|\s+or\s+|,\s*", heading.strip(" :'‘’\""))
    return [p for p in (x.strip() for x in parts) if len(p) >= 2]


def _defined_under(unit: Unit) -> tuple[str, ...]:
    """The headings above a definition's list ("Family legal protection" for "Family legal
    protection › Definitions › Costs"); () for a list at the top of the wording."""
    for i, heading in enumerate(unit.path):
        if DEFINITIONS_HEADING.search(heading):
            return unit.path[:i]
    return ()


def definition_scopes(units: list[Unit]) -> list[tuple[str, ...]]:
    """Per unit, where a definition it holds applies. A wording with one list of definitions
    defines its words everywhere; where sections carry lists of their own ("In this section,
    Costs means …"), the list with the most terms is the wording's and each other list applies
    only inside its section, so a word a section defines for itself is not linked from clauses
    that use it in its plain sense."""
    under = [_defined_under(u) if u.kind == "DEF" else () for u in units]
    sizes: dict[tuple[str, ...], int] = {}
    for unit, scope in zip(units, under, strict=True):
        if unit.kind == "DEF":
            sizes[scope] = sizes.get(scope, 0) + 1
    main = max(sizes, key=lambda s: (sizes[s], -len(s)), default=())
    return [() if scope == main else scope for scope in under]


def link(units: list[Unit], ids: list[str], scopes: list[tuple[str, ...]]) -> Linked:
    """The units' links; `scopes`: definition_scopes(units), where each definition applies."""
    texts = [u.body() for u in units]
    by_term: dict[str, list[str]] = {}  # a term, lower case -> the definitions of it
    scope_of: dict[str, tuple[str, ...]] = {}  # a definition's ID -> the headings it applies under
    for unit, cid, scope in zip(units, ids, scopes, strict=True):
        if unit.kind == "DEF" and unit.part_no <= 1:
            scope_of[cid] = scope
            for term in _terms(unit.heading):
                by_term.setdefault(term.lower(), []).append(cid)
    # One scan of each text for every term (a lookahead finds a term at each position, the
    # longest first), not a scan per term: a long wording has thousands of terms and units.
    used: list[set[str]] = [set() for _ in texts]
    if by_term:
        terms = sorted(by_term, key=len, reverse=True)
        anywhere = re.compile(rf"(?=(?<![\w-])({'|'.join(map(re.escape, terms))})(?![\w-]))", re.I)
        used = [{m.lower() for m in anywhere.findall(t)} for t in texts]
    users: dict[str, int] = {}
    for found_terms in used:
        for term in found_terms:
            users[term] = users.get(term, 0) + 1
    everywhere = []
    usable: list[tuple[str, str]] = []  # (term, definition ID) in the order they were defined
    for term, cids in by_term.items():
        if users.get(term, 0) > UBIQUITOUS * len(units):
            everywhere.append(term)
        else:
            usable.extend((term, cid) for cid in cids)
    headings: dict[str, str] = {}
    sections: dict[str, str] = {}
    for unit, cid in zip(units, ids, strict=True):
        if not unit.citable:
            continue
        headings.setdefault(unit.heading.lower().strip(" :"), cid)
        for h in unit.path[:2]:  # parts and sections, not the numbered items inside them
            if m := re.match(r"^(?:(?:section|part)\s*)?([A-Z0-9]{1,2})\b\s*[:.–—-]?\s+\w", h, re.I):
                sections.setdefault(m[1].upper(), cid)
    out: list[tuple[str, ...]] = []
    n_def = n_ref = 0
    for unit, cid, text, terms_in in zip(units, ids, texts, used, strict=True):
        found: list[str] = []
        if unit.citable:
            for term, target in usable:
                scope = scope_of[target]
                if unit.path[: len(scope)] != scope:
                    continue
                if target != cid and target not in found and term in terms_in:
                    found.append(target)
                    n_def += 1
            refs = [sections.get(m[1].upper()) for m in SECTION_REF.finditer(text)]
            refs += [headings.get(m[1].lower().strip(" :")) for m in QUOTED_REF.finditer(text)]
            for target in refs:
                if target and target != cid and target not in found:
                    found.append(target)
                    n_ref += 1
        out.append(tuple(found))
    return Linked(out, n_def, n_ref, sorted(set(everywhere)))
