"""Titles drafted from a unit's own text: what it covers, never a heading alone.

A model picks clauses from titles only, so a title names the subject (the nearest heading
that says something) and what the text is about (its list's first items, or its first
sentence), and no two titles of a wording are the same. Every drafted title is marked for
the policy owner's review in the import report.
"""

from __future__ import annotations

import re
from dataclasses import replace

from knowledge.importing.segment import KIND_WORDS, Unit, is_generic

KIND_WORDS_DEF = dict(KIND_WORDS)["DEF"]

# Whole words within this many characters, never cut with "…": a title the owner can accept.
MAX_TITLE = 90
# Words a title must not end on: a cut there reads as unfinished.
_DANGLING = re.compile(
    r"(?:[\s,;:–-]+|\s+(?:and|or|of|the|a|an|to|for|in|on|by|with|from|your|our|any|at|if|is|are|we|you))+$",
    re.I,
)
_PREFIX = re.compile(r"^(?:part|section)\s+[a-z0-9]{1,3}\s*[:–—-]\s*|^\d{1,2}[.)]?\s+(?=[A-Z])", re.I)
_LEAD = re.compile(r"^(?:[•▪●◦■\-–*]|\d{1,2}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\))\s*")


def _clean(text: str) -> str:
    text = re.sub(r"[#*|`<>\[\]]", " ", text)
    return " ".join(text.split()).strip(" ,;:.–-")


def _words(text: str, n: int) -> str:
    return " ".join(_clean(text).split()[:n])


def subject(unit: Unit) -> str:
    """The nearest heading that says something, with a generic own heading after it."""
    path = [_PREFIX.sub("", h).strip() or h for h in unit.path if h != "Note"]
    own = path[-1] if path else ""
    if own and not is_generic(own):
        return _clean(own)
    specific = next((h for h in reversed(path[:-1]) if not is_generic(h)), "")
    if specific and own:
        return f"{_clean(specific)}, {_clean(own).lower()}"
    return _clean(specific or own or "General terms")


def _phrase(item: str) -> str:
    """A list item's subject: up to its first comma, dash or bracket, six words at most."""
    text = re.split(
        r"[,;:(]|\s[–—-]\s|\s(?:or|and|unless|if|when|which|that)\s", _LEAD.sub("", item), maxsplit=1
    )[0]
    return " ".join(_clean(text).split()[:6])


def gist(unit: Unit, words: int = 12) -> str:
    """What the text is about: its first list items, or its first sentence."""
    items = [b.text for b in unit.blocks if b.kind in ("item", "row")]
    paras = [b.text for b in unit.blocks if b.kind == "para"]
    if len(items) >= 3 and (not paras or paras[0].endswith(":")):
        heads = [_phrase(i) for i in items[:3]]
        if len({h.lower() for h in heads}) == len(heads) and all(heads):
            return ", ".join(heads) + (" and more" if len(items) > 3 else "")
    sentence = ""
    for b in unit.blocks:  # a lead-in of a word or two ("You must:") reads on into what follows
        part = re.split(r"(?<=[.;:!?])\s", _LEAD.sub("", b.text), maxsplit=1)[0]
        sentence = f"{sentence} {part}".strip()
        if len(sentence.split()) >= 6:
            break
    return _words(sentence, words)


def draft_title(unit: Unit, level: str | None = None, defined_in: tuple[str, ...] = ()) -> str:
    """The drafted title; `level`: the one cover level the unit applies to, named first so the
    same subject for two cover levels reads as two titles; `defined_in`: the section a
    definition is made for (links.definition_scopes), () for the whole policy."""
    if not unit.citable:
        title = f"Note, not policy terms: {gist(unit, 10)}"
    elif unit.kind == "DEF" and unit.heading and not re.search(KIND_WORDS_DEF, unit.heading, re.I):
        where = f"in {_clean(defined_in[-1])}" if defined_in else "in this policy"
        title = f"Meaning of '{_clean(unit.heading)}' {where}: {gist(unit, 10)}"
    else:
        head = subject(unit)
        said = gist(unit, 14 if len(head) < 50 else 8)
        if said.lower() in head.lower() and len(unit.blocks) > 1:
            # the text opens by repeating its heading: what follows says what it covers
            said = gist(replace(unit, blocks=unit.blocks[1:]), 12)
        title = f"{head}: {said}"
    if level and _words_of(level) - _words_of(title):
        title = f"{level}: {title}"
    suffix = f" (part {unit.part_no} of {unit.parts})" if unit.parts else ""
    return shorten(title, MAX_TITLE - len(suffix)) + suffix


def _words_of(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower())) - {"insurance", "cover", "and", "the"}


def shorten(title: str, limit: int = MAX_TITLE) -> str:
    """Whole words within the limit, not ending on a word that leaves it unfinished."""
    title = " ".join(title.split())
    if len(title) > limit:
        title = title[: title.rfind(" ", 0, limit + 1)]
    title = _DANGLING.sub("", title).strip(" ,;:–-")
    return re.sub(r":\s*$", "", title)


def unique_titles(titles: list[str], units: list[Unit]) -> list[str]:
    """No two titles alike: a repeated one names the part it sits in, or says more of its own
    text; only then a number. Never a page number: a title says what, not where."""
    seen: set[str] = set()
    out = []
    for title, unit in zip(titles, units, strict=True):
        # "(part N of M)" does not make two titles different: each part says what it holds
        suffix = m[0] if (m := _PART_SUFFIX.search(title)) else ""
        title = title[: len(title) - len(suffix)] if suffix else title
        limit = MAX_TITLE - len(suffix)
        if title.lower() in seen:
            part = _clean(_PREFIX.sub("", unit.path[0])) if unit.path else ""
            more = gist(unit, 24)
            for candidate in (
                shorten(f"{part}: {title}", limit) if part and part.lower() not in title.lower() else "",
                shorten(f"{title.split(':')[0]}: {more}", limit),
                shorten(f"{more}", limit) if suffix else "",
            ):
                if candidate and candidate.lower() not in seen:
                    title = candidate
                    break
            else:
                n = 2
                while f"{shorten(title, limit - 4)} ({n})".lower() in seen:
                    n += 1
                title = f"{shorten(title, limit - 4)} ({n})"
        seen.add(title.lower())
        out.append(title + suffix)
    return out


_PART_SUFFIX = re.compile(r" \(part \d+ of \d+\)$")
