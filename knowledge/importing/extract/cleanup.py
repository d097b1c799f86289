"""What every format's blocks need once read: running headers, footers, page numbers and
margin labels out, and a sentence cut by a line, column or page break joined again."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from knowledge.importing.accounting import Ledger
from knowledge.importing.extract.blocks import END, PAGE_NUMBER, Block, joined


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def drop_furniture(blocks: list[Block], ledger: Ledger | None = None) -> list[Block]:
    """Running headers, footers and page numbers: short lines at the top or bottom of a page
    that recur on many pages (digits ignored), and lines that are only a page number."""
    ledger = ledger if ledger is not None else Ledger()
    pages = {b.page for b in blocks if b.page is not None}
    if len(pages) < 3:
        kept = []
        for b in blocks:
            if PAGE_NUMBER.match(b.text.strip()):
                ledger.remove_spans("page-number", b.spans)
            else:
                kept.append(b)
        return kept
    edges: Counter[str] = Counter()
    by_page: dict[int | None, list[int]] = {}
    for i, b in enumerate(blocks):
        by_page.setdefault(b.page, []).append(i)
    top: set[int] = set()
    foot: set[int] = set()
    for page, idx in by_page.items():
        if page is None:
            continue
        edge = 2 if len(idx) >= 6 else 1  # on a short page the second block is the text
        top.update(idx[:edge])
        foot.update(idx[-edge:])
        for shape in {_shape(blocks[i].text) for i in idx[:edge] + idx[-edge:]}:
            edges[shape] += 1
    threshold = max(3, len(pages) // 4)
    # A label in the margin that several pages print (a section's tab: a name, a few words)
    # is the page's furniture; one printed once, or one that says something, is a side note.
    labels: dict[str, set[int | None]] = {}
    for b in blocks:
        if b.column == "margin" and len(b.text.split()) <= 6:
            labels.setdefault(_shape(b.text), set()).add(b.page)
    kept = []
    for i, b in enumerate(blocks):
        text = b.text.strip()
        if PAGE_NUMBER.match(text):
            ledger.remove_spans("page-number", b.spans)
            continue
        if b.column == "margin" and len(labels.get(_shape(text), ())) >= 2:
            ledger.remove_spans("margin-label", b.spans)
            continue
        if (i in top or i in foot) and edges[_shape(text)] >= threshold and len(text.split()) <= 12:
            ledger.remove_spans("running-header" if i in top else "running-footer", b.spans)
            continue
        kept.append(b)
    return kept


# A line that repeats its section's title as "… continued" at the top of a page.
_CONTINUED_LINE = re.compile(r"^.{3,80}\bcontinued\.?$", re.I)


def rejoin(blocks: list[Block], ledger: Ledger | None = None) -> list[Block]:
    """A paragraph or item that stops mid-sentence, followed (on the same or a later page, in
    this or the next column) by a paragraph that starts in lower case, is one sentence cut
    by the layout; a side note or a heading between the two does not end the sentence."""
    ledger = ledger if ledger is not None else Ledger()
    out: list[Block] = []
    for n, b in enumerate(blocks):
        after = blocks[n + 1] if n + 1 < len(blocks) else None
        last = next((o for o in reversed(out) if not o.note), None)
        if (
            b.kind == "para"
            and _CONTINUED_LINE.match(b.text)
            and len(b.text.split()) <= 10
            and last is not None
            and last.kind in ("para", "item")
            and not END.search(last.text)
            and after is not None
            and after.text[:1].islower()
        ):
            # "Part A: Loss and damage continued" between the halves of a sentence cut by a page
            ledger.remove_spans("repeated-heading", b.spans)
            continue
        at = next((n for n in range(len(out) - 1, -1, -1) if not out[n].note), None)
        prev = out[at] if at is not None else None
        between = out[at + 1 :] if at is not None else []
        if (
            b.kind == "para"
            and not b.note
            and prev is not None
            and prev.kind in ("para", "item")
            and not END.search(prev.text)
            and b.text[:1].islower()
            and (not between or all(x.note for x in between))
        ):
            out[at] = replace(prev, text=f"{prev.text} {b.text}", spans=joined(prev.spans, b.spans))
            continue
        out.append(b)
    return out
