"""Amendments: a supplementary document that patches the wording by page and dot point
(the NRMA supplementary PDS) applied into one consolidated text.

The superseded text is taken out, so it is never served beside its replacement; what it
said, where it was and what replaced it go into the import report. An instruction that is
not understood, or whose target is not found, is a failure the policy owner resolves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from knowledge.importing.accounting import Ledger
from knowledge.importing.extract.blocks import Block
from knowledge.importing.segment import Unit

_Q = r"[‘'“\"]([^’'”\"]{3,80})[’'”\"]"
REPLACE_SECTION = re.compile(
    rf"amended by removing the {_Q} section on page (\d+) and replacing it with the following", re.I
)
REPLACE_POINT = re.compile(r"amended by replacing the dot point on page (\d+)", re.I)
REPLACE_LAST = re.compile(
    rf"amended by deleting the last (\w+) paragraphs? in the (?:sub)?section {_Q} on page (\d+),? and "
    r"replacing (?:it|them) with the following",
    re.I,
)
INSTRUCTION = re.compile(r"\bis amended by\b", re.I)
ISSUER = re.compile(r"^this (spds|supplementary|document) is issued by|^spds\d+", re.I)
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


@dataclass(frozen=True)
class Amendment:
    change: str  # the heading of the change in the supplementary document
    page: int | None  # the file page of the instruction
    instruction: str
    target_page: str
    target: str  # the heading (or dot point) it replaces
    applied_to: int | None = None  # index of the unit patched, None if it failed
    replaced: str = ""
    replacement: str = ""


@dataclass(frozen=True)
class Failure:
    page: int | None
    unit: str
    problem: str
    action: str


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w$%]+", " ", text.lower()).split())


def _on_page(unit: Unit, page: str) -> bool:
    pages = {b.printed_page for b in unit.blocks if b.printed_page}
    return not pages or page in pages or any(p.isdigit() and abs(int(p) - int(page)) <= 1 for p in pages)


def _body_paragraphs(blocks: list[Block]) -> list[list[Block]]:
    groups: list[list[Block]] = []
    for b in blocks:
        if groups and b.kind in ("item", "row"):
            groups[-1].append(b)
        else:
            groups.append([b])
    return groups


def consolidate(
    units: list[Unit], supplement: list[Unit], ledger: Ledger | None = None
) -> tuple[list[Unit], list[Amendment], list[Failure]]:
    """Apply every change of the supplement the owner named to the wording's units. Only a
    supplement changes the wording: a heading of the wording itself that looks like one
    ("Changes to your policy") is the wording's own text. What the supplement says beyond
    its replacement texts, and the text it supersedes, are booked under their rules."""
    ledger = ledger if ledger is not None else Ledger()
    if not supplement:
        return units, [], []
    done: list[Amendment] = []
    failed: list[Failure] = []
    placed: set[int] = set()  # ids of supplement blocks that became wording text
    for unit in supplement:
        blocks = [b for b in unit.blocks if not ISSUER.search(b.text)]
        k = 0
        while k < len(blocks):
            text = blocks[k].text
            if not INSTRUCTION.search(text) or re.search(r"amended by the following:?$", text, re.I):
                k += 1
                continue
            rest_end = next(
                (j for j in range(k + 1, len(blocks)) if INSTRUCTION.search(blocks[j].text)), len(blocks)
            )
            following = blocks[k + 1 : rest_end]
            if m := REPLACE_SECTION.search(text):
                result = _replace_section(units, m[1], m[2], following)
            elif m := REPLACE_LAST.search(text):
                n = NUMBERS.get(m[1].lower(), int(m[1]) if m[1].isdigit() else 0)
                result = _replace_last(units, m[2], m[3], n, following)
            elif m := REPLACE_POINT.search(text):
                result = _replace_point(units, m[1], following)
            else:
                result = "the instruction is not one the importer can apply"
            if isinstance(result, str):
                failed.append(
                    Failure(
                        blocks[k].page,
                        unit.heading,
                        f"amendment not applied: {result}: {text[:120]!r}",
                        "apply this change by hand in the draft, then delete the superseded text",
                    )
                )
            else:
                target, index, old, new = result
                for b in old:
                    ledger.remove_spans("superseded-by-amendment", b.spans)
                placed.update(id(b) for b in new)
                done.append(
                    Amendment(
                        unit.heading,
                        blocks[k].page,
                        text,
                        _target_page(text),
                        target,
                        index,
                        "\n\n".join(b.text for b in old),
                        "\n\n".join(b.text for b in new),
                    )
                )
            k = rest_end
    # The supplement's own words (its title, the instructions, the quoted old text) are applied,
    # not served: each booked once.
    for unit in supplement:
        for b in unit.blocks:
            if id(b) not in placed:
                ledger.remove_spans("supplement-instruction", b.spans)
    for h in {id(h): h for u in supplement for h in u.heads}.values():
        ledger.remove_spans("supplement-instruction", h.spans)
    return units, done, failed


def _target_page(text: str) -> str:
    m = re.search(r"on page (\d+)", text)
    return m[1] if m else ""


def _body(blocks: list[Block]) -> list[Block]:
    return [b for b in blocks if not re.match(r"^with the following:?$", b.text, re.I)]


def _replace_section(units: list[Unit], heading: str, page: str, new: list[Block]):  # type: ignore[no-untyped-def]
    for index, unit in enumerate(units):
        if _norm(unit.heading) == _norm(heading) and _on_page(unit, page):
            old = list(unit.blocks)
            page_of = unit.blocks[0]
            body = _body(new)
            unit.blocks[:] = [replace(b, page=page_of.page, printed_page=page_of.printed_page) for b in body]
            return heading, index, old, body
    return f"no unit headed {heading!r} on page {page}"


def _replace_last(units: list[Unit], heading: str, page: str, n: int, new: list[Block]):  # type: ignore[no-untyped-def]
    for index, unit in enumerate(units):
        if _norm(unit.heading) == _norm(heading) and _on_page(unit, page):
            groups = _body_paragraphs(unit.blocks)
            if n <= 0 or len(groups) < n:
                return f"{heading!r} has {len(groups)} paragraphs, fewer than the {n} to delete"
            old = [b for g in groups[-n:] for b in g]
            kept = [b for g in groups[:-n] for b in g]
            last = old[0]
            body = _body(new)
            unit.blocks[:] = kept + [replace(b, page=last.page, printed_page=last.printed_page) for b in body]
            return heading, index, old, body
    return f"no unit headed {heading!r} on page {page}"


def _replace_point(units: list[Unit], page: str, following: list[Block]):  # type: ignore[no-untyped-def]
    points = [b for b in following if b.kind == "item"]
    if len(points) < 2:
        return "the old and the new dot point could not both be read"
    old, new = points[0], points[1]
    # Without printed page numbers (text extracted by another tool) the first match is taken.
    paged = any(b.printed_page for u in units for b in u.blocks)
    for index, unit in enumerate(units):
        for n, b in enumerate(unit.blocks):
            on_page = b.printed_page == page if paged else True
            if b.kind == "item" and _norm(b.text) == _norm(old.text) and on_page:
                unit.blocks[n] = replace(new, page=b.page, printed_page=b.printed_page)
                return old.text, index, [b], [new]
    return f"the dot point {old.text[:60]!r} is not on page {page}"
