"""A PDF page's lines in reading order: section tab numbers and margin labels taken apart,
two columns found by their gutter (or the rule printed between them), and bands read top to
bottom, the first column before the second and side notes after them."""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise

from knowledge.importing.accounting import Ledger
from knowledge.importing.extract.blocks import BULLET, END
from knowledge.importing.extract.pdf_grid import unruled_tables
from knowledge.importing.extract.pdf_words import (
    Line,
    cover_tables,
    ligatures,
    lines_of,
    median_size,
    word_rows,
)


def _gutter(words: list[dict], width: float) -> float | None:
    """The x of a gap between two columns, if the page has one: rows with text on both sides
    of it are split by a wide space there (not a word space, as in ragged single-column
    text), and almost no row has a word across it."""
    if len(words) < 40:
        return None
    rows: dict[int, list[dict]] = {}
    for w in words:
        rows.setdefault(round(w["top"] / 3), []).append(w)
    best: tuple[int, int] | None = None
    # A column's left edge is where words start: only those places are tried.
    candidates = sorted({int(w["x0"]) - 2 for w in words if width * 0.2 < w["x0"] < width * 0.8})
    for x in [c for n, c in enumerate(candidates) if n == 0 or c - candidates[n - 1] > 2]:
        crossing = 0
        starts: Counter[int] = Counter()
        for row in rows.values():
            if any(w["x0"] < x - 2 and w["x1"] > x + 2 for w in row):
                crossing += 1
                continue
            right = [w["x0"] for w in row if w["x0"] >= x]
            left = [w["x1"] for w in row if w["x1"] <= x]
            if right and (not left or min(right) - max(left) >= 12):
                starts[round(min(right) / 4)] += 1
        # A column has a left edge: its rows start at one x (justified text's wide spaces do not).
        good = (
            sum(n for key, n in starts.items() if abs(key - starts.most_common(1)[0][0]) <= 1)
            if starts
            else 0
        )
        # A side-note column (near the edge, in smaller type) may hold only a few rows.
        side = x > width * 0.65 and median_size(w for w in words if w["x0"] >= x) < median_size(
            w for w in words if w["x1"] <= x
        )
        if good >= (3 if side else 5) and crossing <= max(2, len(rows) // 12):
            score = good - 3 * crossing
            if best is None or score > best[1]:
                best = (x, score)
    return best[0] if best else None


def _words(page, ledger: Ledger, number: int) -> tuple[object, list[dict]]:  # type: ignore[no-untyped-def]
    """The page without the characters that are no reading of their own, and its words; the
    characters are counted as read, a second print of one booked under its rule."""
    # pdfplumber expands a ligature glyph ("ﬁ") to its letters, so the count does too, or each
    # ligature would be booked twice.
    chars = page.chars
    ledger.read(number, "".join(ligatures().get(c["text"], c["text"]) for c in chars))
    twice = _overprinted(chars)
    ledger.remove("overprinted", number, "".join(ligatures().get(c["text"], c["text"]) for c in twice))
    dropped = {id(c) for c in twice} | _hidden_spaces(chars)
    page = page.filter(lambda obj: id(obj) not in dropped) if dropped else page
    return page, page.extract_words(extra_attrs=["size", "fontname"], x_tolerance=1.5, keep_blank_chars=False)


def _overprinted(chars: list[dict]) -> list[dict]:
    """Characters printed a second time over themselves (same glyph, font and size, at the same
    place within a point): an overprint the eye reads once; read twice, a page number "52" is
    "52 52"."""
    seen: set[tuple] = set()  # type: ignore[type-arg]
    out = []
    for c in chars:
        key = (c["text"], c["fontname"], round(c["size"], 1), round(c["x0"]), round(c["top"]))
        if key in seen and c["text"].strip():
            out.append(c)
        seen.add(key)
    return out


def _hidden_spaces(chars: list[dict]) -> set[int]:
    """The ids of spaces drawn wholly inside the letter beside them (a title's first letter
    kerned back over the space before it): read as a break, such a space cuts "M otor". (A
    space the next letter only overlaps, in tight text, is a word space.)"""
    hidden = set()
    for n, c in enumerate(chars):
        if c["text"] != " ":
            continue
        for o in (chars[n - 1] if n else None, chars[n + 1] if n + 1 < len(chars) else None):
            inside = o is not None and o["x0"] <= c["x0"] + 0.5 and c["x1"] <= o["x1"] + 0.5
            if inside and o["text"].strip() and abs(o["top"] - c["top"]) < 1:
                hidden.add(id(c))
    return hidden


def _folios(words: list[dict], height: float) -> list[Line]:
    """A page number at the page's foot in the outer margin, on the row of the text's last line
    (beside it, far outside the text's edge): read as a line of its own, not as that line's
    first or last word. Its words are taken out of `words`."""
    folios = []
    for row in word_rows([w for w in words if w["top"] > 0.85 * height]):
        for w in row:
            others = [o for o in words if o is not w]
            outside = others and (
                w["x1"] < min(o["x0"] for o in others) - 6 or w["x0"] > max(o["x1"] for o in others) + 6
            )
            if len(row) > 1 and re.fullmatch(r"\d{1,3}", w["text"]) and outside:
                folios.append(w)
    taken = {id(w) for w in folios}
    words[:] = [w for w in words if id(w) not in taken]
    return [line for w in folios for line in lines_of([w], "main")]


def page_lines(page, ledger: Ledger, number: int) -> list[Line]:  # type: ignore[no-untyped-def]
    page, words = _words(page, ledger, number)
    # A section's number printed huge beside its title is a tab, not part of the title.
    typical = median_size(words)
    for w in words:
        if w["text"].isdigit() and w["size"] >= 2.5 * typical:
            ledger.remove("section-tab-number", number, w["text"])
    words = [w for w in words if not (w["text"].isdigit() and w["size"] >= 2.5 * typical)]
    # Tables first: a ruled cover table's cells, then a grid printed without rules (its last
    # column would otherwise pass for a label in the margin).
    table_rows = cover_tables(page, words)
    table_rows += unruled_tables(words)
    # A label in the outer margin beside the text (a section's tab) is read apart from the
    # lines it sits beside; its number printed large is the tab's, as above.
    label = _margin_label(words, page.width)
    taken = {id(w) for w in label}
    for w in label:
        if w["text"].isdigit() and w["size"] >= 1.5 * typical:
            ledger.remove("section-tab-number", number, w["text"])
    label = [w for w in label if not (w["text"].isdigit() and w["size"] >= 1.5 * typical)]
    words = [w for w in words if id(w) not in taken]
    margin = lines_of(label, "margin") + _folios(words, page.height)
    gutter = _ruled(page, _gutter(words, page.width), words)
    if gutter is not None and _page_numbers(words, gutter):
        gutter = None
    if gutter is None:
        if table_rows or margin:
            return _reading_order(lines_of(words, "main") + table_rows + margin)
        return lines_of(words, "main")
    side = page.width - gutter < page.width * 0.32
    crossing = [w for w in words if w["x0"] < gutter - 3 and w["x1"] > gutter + 3]
    full_rows = {round(w["top"]) for w in crossing}
    full = [w for w in words if round(w["top"]) in full_rows]
    # A row whose words meet across the gutter at a word space is one line of text that runs
    # over it (a paragraph set across the page above the columns), not two columns' lines.
    for row in word_rows(words):
        before = [w["x1"] for w in row if w["x0"] < gutter]
        after = [w["x0"] for w in row if w["x0"] >= gutter]
        if before and after and min(after) - max(before) < 0.6 * median_size(row):
            full.extend(w for w in row if round(w["top"]) not in full_rows)
    taken = {id(w) for w in full}
    rest = [w for w in words if id(w) not in taken]
    left = [w for w in rest if w["x0"] < gutter]
    right = [w for w in rest if w["x0"] >= gutter]
    lines = lines_of(full, "main") + lines_of(left, "main") + lines_of(right, "side" if side else "right")
    return _reading_order(lines + table_rows + margin)


def _page_numbers(words: list[dict], gutter: float) -> bool:
    """Whether what stands right of the gutter is a contents page's column of page numbers (a
    lone number on almost every row that has anything there): no second column of text, but
    each title's number, read with it."""
    right = [[w for w in row if w["x0"] >= gutter] for row in word_rows(words)]
    right = [part for part in right if part]
    numbers = sum(1 for part in right if len(part) == 1 and re.fullmatch(r"\d{1,3}", part[0]["text"]))
    return numbers >= 5 and numbers >= 0.8 * len(right)


def _margin_label(words: list[dict], width: float) -> list[dict]:
    """The words of a label printed in the outer margin beside the text (a section's tab, a
    side heading): a stack of at most six short lines in the right-hand part of the page, each
    apart from the text on its row by a wide space, with nothing else in that margin for three
    lines above and below, and lines of text running beside it. Read with the text, its words
    land in the middle of the lines it sits beside; a label alone on its rows is left as it
    is read (a line of its own)."""
    if len(words) < 20:
        return []
    typical = median_size(words)
    ends: list[list[dict]] = []  # the last run of each row, after a wide space, near the edge
    for row in word_rows(words):
        row = sorted(row, key=lambda w: w["x0"])
        runs = [[row[0]]]
        for w in row[1:]:
            if w["x0"] - runs[-1][-1]["x1"] >= 2 * typical:
                runs.append([w])
            else:
                runs[-1].append(w)
        if runs[-1][0]["x0"] >= 0.6 * width and len(runs[-1]) <= 5:
            ends.append(runs[-1])
    stacks: list[list[dict]] = []
    lines_in: list[int] = []
    for run in sorted(ends, key=lambda r: min(w["top"] for w in r)):
        top = min(w["top"] for w in run)
        x0, x1 = min(w["x0"] for w in run), max(w["x1"] for w in run)
        last = stacks[-1] if stacks else None
        if (
            last
            and top - max(w["bottom"] for w in last) <= 1.5 * typical
            and x0 < max(w["x1"] for w in last)
            and x1 > min(w["x0"] for w in last)
        ):
            last.extend(run)
            lines_in[-1] += 1
        else:
            stacks.append(list(run))
            lines_in.append(1)
    out: list[dict] = []
    for stack, lines in zip(stacks, lines_in, strict=True):
        if lines > 6 or not re.search(r"[A-Za-z]{2,}", " ".join(w["text"] for w in stack)):
            continue
        ids = {id(w) for w in stack}
        x0, x1 = min(w["x0"] for w in stack), max(w["x1"] for w in stack)
        top, bottom = min(w["top"] for w in stack), max(w["bottom"] for w in stack)
        others = [w for w in words if id(w) not in ids]
        if any(
            w["x1"] > x0 - 2
            and w["x0"] < x1 + 2
            and w["bottom"] > top - 3 * typical
            and w["top"] < bottom + 3 * typical
            for w in others
        ):
            continue  # a column or a table's cells, not a label
        beside = [w for w in others if w["x1"] < x0 and w["bottom"] > top and w["top"] < bottom]
        if len(beside) >= 3:
            out.extend(stack)
    return out


def _ruled(page, gutter: float | None, words: list[dict]) -> float | None:  # type: ignore[no-untyped-def]
    """The gutter on the rule printed between two boxed columns, where there is one: words
    start a few points right of the rule (or on it, in a box drawn round the column), so a
    gutter found from where words start can fall past the first words of the second column
    and read them into the first. No word crosses such a rule, so the split is just left of it."""
    # A rule may be drawn as one stroke or as a stroke per table row: pieces at one x that
    # meet are one rule. A rule that a word runs across (within the rule's height) is no
    # column's edge: a box inside a column, a table's ruling.
    pieces: dict[int, list[tuple[float, float]]] = {}
    for e in page.edges:
        if e["orientation"] == "v" and page.width * 0.3 < e["x0"] < page.width * 0.7:
            pieces.setdefault(round(e["x0"]), []).append((e["top"], e["bottom"]))
    rules = []
    for x, spans in sorted(pieces.items()):
        runs: list[list[float]] = []
        for top, bottom in sorted(spans):
            if runs and top <= runs[-1][1] + 2:
                runs[-1][1] = max(runs[-1][1], bottom)
            else:
                runs.append([top, bottom])
        top, bottom = max(runs, key=lambda r: r[1] - r[0])
        crossed = any(
            w["x0"] < x - 1 and w["x1"] > x + 1 and w["top"] < bottom and w["bottom"] > top for w in words
        )
        if bottom - top > 0.2 * page.height and not crossed and not (rules and x - rules[-1] <= 3):
            rules.append(x)  # (the two edges of one stroke drawn as a thin box are one rule)
    if gutter is not None:
        # A gutter found from where words start can be an indent inside the second column (its
        # bullets' text); the rule left of it is the column's edge.
        near = [x for x in rules if -40 <= x - gutter <= 15]
        return min(near, key=lambda x: abs(x - gutter)) - 1 if near else gutter
    return rules[0] - 1 if len(rules) == 1 else None


def _reading_order(lines: list[Line]) -> list[Line]:
    """Bands from top to bottom, broken at full-width rows and at headings of the first
    column; in each band the first column, then the second, then side notes."""
    mains = sorted((ln for ln in lines if ln.column == "main"), key=lambda ln: ln.top)
    others = sorted((ln for ln in lines if ln.column != "main"), key=lambda ln: ln.top)
    # A heading stands apart from the line above it; a line of bold terms inside a paragraph
    # ("you, your family and") follows it at the paragraph's line spacing and breaks nothing.
    breaks = [
        ln.top
        for n, ln in enumerate(mains)
        if (
            ln.bold
            and len(ln.text.split()) <= 10
            and (n == 0 or ln.top - mains[n - 1].bottom > 0.5 * ln.size or ln.cells)
        )
        or re.match(r"\d{1,2}\.\s", ln.text)
    ]

    def cuts_a_paragraph(y: float) -> bool:
        # Columns that run on independently (no row of the first lines up with the second):
        # a break there would read the second column's paragraph in pieces between the first's.
        # (A side note beside a heading is read after its band, as before.)
        second = [ln for ln in others if ln.column == "right"]
        for a, b in pairwise(second):
            if a.top < y - 4 <= b.top:
                ends = END.search(a.text.strip()) and (b.text[:1].isupper() or BULLET.match(b.text))
                return b.top - a.bottom < 0.5 * b.size and not ends
        return False

    breaks = [y for y in breaks if not cuts_a_paragraph(y)]
    # A side note or margin label is read whole in the band where it starts: its lines that
    # run on (at its line spacing) past a heading of the text beside it stay with it.
    anchor: dict[int, float] = {}
    for n, ln in enumerate(others):
        prev = next((o for o in reversed(others[:n]) if o.column == ln.column), None)
        runs_on = (
            ln.column in ("side", "margin") and prev is not None and ln.top - prev.bottom < 0.9 * ln.size
        )
        anchor[id(ln)] = anchor[id(prev)] if runs_on and prev is not None else ln.top
    out: list[Line] = []
    bounds = [*breaks, float("inf")]
    start = float("-inf")
    for stop in bounds:
        out.extend(ln for ln in mains if start <= ln.top < stop)
        out.extend(ln for ln in others if start - 4 <= anchor[id(ln)] < stop - 4)
        start = stop
    return out
