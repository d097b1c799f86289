"""Text comparison of the two versions: clauses added, removed and reworded (a word diff), and
the figures (amounts, periods, shares) that change."""

from __future__ import annotations

import difflib
import re
from collections import Counter

from agent.answering.check_report import (
    AddedClause,
    DiffOp,
    FigureChange,
    FigureChanges,
    RemovedClause,
    RewordedClause,
    TextChanges,
)

# Amounts (NZD 60, $1,500, A$500, AUD 500, £250, GBP 250, €40, EUR 40), periods (21 days,
# 12 months) and shares (10%, 20 percent).
FIGURE = re.compile(
    r"(?:NZD|NZ\$|AUD|A\$|GBP|£|EUR|€|USD|\$)\s?\d(?:[\d,]*\d)?(?:\.\d+)?"
    r"|\b\d[\d,]*(?:\.\d+)?\s?(?:%|per ?cent\b)"
    r"|\b\d[\d,]*\s(?:days?|weeks?|months?|years?|hours?|km|kilometres?)\b",
    re.IGNORECASE,
)


def word_diff(old: str, new: str, *, context: int = 8) -> tuple[DiffOp, ...]:
    """difflib on words: runs of equal, deleted and inserted words; long equal runs are
    shortened to `context` words either side of a change."""
    a, b = old.split(), new.split()
    ops: list[DiffOp] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            words = a[i1:i2]
            if len(words) > 2 * context:
                first = not ops
                last = i2 == len(a)
                head = [] if first else words[:context]
                tail = [] if last else words[-context:]
                words = [*head, "…", *tail]
            ops.append(DiffOp("equal", " ".join(words)))
            continue
        if tag in ("delete", "replace"):
            ops.append(DiffOp("delete", " ".join(a[i1:i2])))
        if tag in ("insert", "replace"):
            ops.append(DiffOp("insert", " ".join(b[j1:j2])))
    return tuple(ops)


def _sentences(text: str) -> list[str]:
    parts = re.split(r"(?<=[.;:])\s+|\n+", text)
    return [p.strip(" -") for p in parts if p.strip(" -")]


def figures(text: str) -> list[tuple[str, str]]:
    """(figure, the sentence it stands in), in order, whitespace and case normalised."""
    found = []
    for sentence in _sentences(text):
        for match in FIGURE.finditer(sentence):
            found.append((re.sub(r"\s+", " ", match.group(0)).strip(), sentence))
    return found


def figure_changes(old: str, new: str) -> FigureChanges:
    """Figures that are in one text and not the other (as multisets), with their sentences."""
    before, after = figures(old), figures(new)
    gone = Counter(f for f, _ in before) - Counter(f for f, _ in after)
    came = Counter(f for f, _ in after) - Counter(f for f, _ in before)

    def pick(items: list[tuple[str, str]], wanted: Counter) -> tuple[FigureChange, ...]:
        left = Counter(wanted)
        chosen = []
        for figure, sentence in items:
            if left[figure] > 0:
                left[figure] -= 1
                chosen.append(FigureChange(figure, sentence))
        return tuple(chosen)

    return FigureChanges(removed=pick(before, gone), added=pick(after, came))


def compare_clauses(
    baseline: dict[str, tuple[str, str]], candidate: dict[str, tuple[str, str]]
) -> TextChanges:
    """Clause ID -> (title, text) of each version: what was added, removed and reworded."""
    added = tuple(
        AddedClause(cid, candidate[cid][0], tuple(f for f, _ in figures(candidate[cid][1])))
        for cid in candidate
        if cid not in baseline
    )
    removed = tuple(RemovedClause(cid, baseline[cid][0]) for cid in baseline if cid not in candidate)
    reworded = []
    for cid in candidate:
        if cid not in baseline or baseline[cid] == candidate[cid]:
            continue
        (old_title, old_text), (new_title, new_text) = baseline[cid], candidate[cid]
        changes = figure_changes(old_text, new_text)
        reworded.append(
            RewordedClause(
                clause_id=cid,
                old_title=old_title,
                title=new_title,
                title_changed=old_title != new_title,
                diff=word_diff(old_text, new_text),
                figures_removed=changes.removed,
                figures_added=changes.added,
            )
        )
    return TextChanges(added=added, removed=removed, reworded=tuple(reworded))
