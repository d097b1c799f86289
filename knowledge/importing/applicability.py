"""Applicability drafted from a wording's text: plans or cover levels, optional sections and
endorsements, as the fields of a clause's applies line. The word lists are data, here.
"""

from __future__ import annotations

import re

from knowledge.importing.segment import Unit, is_generic

# Words of plan or cover-level names, for the headings under a list of them.
PLAN_WORDS = re.compile(
    r"comprehensive|third party|fire and theft|standard|premier|basic|essential|plus|gold|silver", re.I
)
PLAN_LIST = re.compile(
    r"choice of cover|types of (insurance|cover)|levels? of cover|your cover options", re.I
)
OPTIONAL = re.compile(
    r"\(optional( extra| cover)?\)|\boptional (extra|section|cover)\b|\(?this section is only included if",
    re.I,
)
OPTIONAL_TEXT = re.compile(
    r"only (included|applies|covered) if (you have|your schedule)|schedule will show if you have chosen", re.I
)
NOT_COVERED_PARTS = re.compile(r"not covered under parts? (.+)", re.I)
EXCLUDING_ENDORSEMENT = re.compile(r"exclusion of ([a-z ]{4,40})", re.I)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def section_name(heading: str) -> str:
    """The schedule entry of an optional section: its heading without the words that say it
    is optional and without its "Section D -" number."""
    name = OPTIONAL.split(heading)[0] or OPTIONAL.sub("", heading)
    name = re.sub(r"^(?:section|part)\s+[a-z0-9]{1,3}\s*[:–—-]\s*", "", name.strip(), flags=re.I)
    return slug(name) or slug(heading)


def heading_words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{3,}", text.lower())) - {"the", "and", "this", "policy", "meaning", "your"}


def plans_named(units: list[Unit]) -> list[str]:
    """Plan or cover-level names, from a list of them ('Choice of cover', 'types of
    insurance'): the headings under it, or its list items up to a dash."""
    plans: list[str] = []
    for unit in units:
        if any(PLAN_LIST.search(h) for h in unit.path[:-1]) and PLAN_WORDS.search(unit.heading):
            plans.append(unit.heading)
    blocks = [b for u in units for b in u.blocks]
    for n, b in enumerate(blocks):
        if b.kind == "para" and PLAN_LIST.search(b.text) and len(b.text) < 120:
            for item in blocks[n + 1 : n + 12]:
                if item.kind != "item":
                    continue
                name = re.split(r"\s+[–—-]\s+", re.sub(r"^[•\-–]\s*", "", item.text))[0].strip()
                if 1 <= len(name.split()) <= 6 and PLAN_WORDS.search(name):
                    plans.append(name)
    return list(dict.fromkeys(plans))


def _plan_of(unit: Unit, plans: list[str]) -> tuple[str, ...]:
    norm = [" ".join(re.sub(r"[^a-z]+", " ", p.lower().replace("&", " and ")).split()) for p in plans]
    for heading in unit.path[:2]:
        h = re.sub(r"^\d+\s+", "", heading.lower())
        h = " ".join(re.sub(r"[^a-z]+", " ", h.replace("&", " and ")).split())
        for plan, n in zip(plans, norm, strict=True):
            if h == n:
                return (plan,)
    return ()


def _parts_excluded(units: list[Unit], plans: list[str]) -> dict[str, set[str]]:
    """For each plan, the parts its own unit says it does not cover ("You are not covered
    under Parts A, D and E"); a sentence about some sections of a part leaves the part in."""
    out: dict[str, set[str]] = {}
    for unit in units:
        plan = next((p for p in plans if p.lower() == unit.heading.lower()), None)
        if plan is None:
            continue
        for sentence in re.split(r"(?<=[.;])\s+|\n", unit.body()):
            m = NOT_COVERED_PARTS.search(sentence)
            if m and not re.search(r"\bsections?\b", sentence[: m.start()] + m[0], re.I):
                listed = re.split(r"\band other\b", m[1])[0]
                out.setdefault(plan, set()).update(re.findall(r"(?<![\w–-])([A-Z])(?![\w])", listed))
    return out


def endorsement_key(unit: Unit) -> str | None:
    """The schedule entry that lists an endorsement ("Endorsement 11 – …" → endorsement_11):
    a schedule names endorsements by number, never by clause ID."""
    if unit.kind == "END" and re.match(r"endorsement\s+\w+", unit.heading, re.I):
        return slug(re.split(r"\s[–—-]\s", unit.heading)[0])
    return None


def applicability(units: list[Unit], ids: list[str], plans: list[str]) -> list[dict[str, tuple[str, ...]]]:
    out: list[dict[str, tuple[str, ...]]] = []
    # removed_by and changed_by hold the endorsement's schedule entry, which is what the
    # runtime reads against the claimant's schedule (the END unit's own ID where it has none).
    removers: list[tuple[str, str]] = []  # (subject words, schedule entry) of "Exclusion of …"
    for unit, cid in zip(units, ids, strict=True):
        if unit.kind == "END" and (m := EXCLUDING_ENDORSEMENT.search(unit.heading)):
            removers.append((m[1].strip().lower(), endorsement_key(unit) or cid))
    # Other endorsements change what they name: the parts they cite ("under Part A") or the
    # units whose heading shares two words with theirs ("Protected no claims discount").
    changers: list[tuple[set[str], set[str], str]] = []  # (part letters, heading words, entry)
    for unit, cid in zip(units, ids, strict=True):
        if unit.kind == "END" and unit.heading and not EXCLUDING_ENDORSEMENT.search(unit.heading):
            letters = set(re.findall(r"\bParts?\s+([A-Z])\b", unit.body()))
            subject = re.split(r"\s[–—-]\s", unit.heading, maxsplit=1)[-1]
            words = heading_words(re.sub(r"\(.*?\)", "", subject))
            changers.append((letters, words, endorsement_key(unit) or cid))
    excluded = _parts_excluded(units, plans)
    said_optional: dict[tuple[str, ...], str] = {}
    for unit, cid in zip(units, ids, strict=True):
        fields: dict[str, tuple[str, ...]] = {}
        part = re.match(r"^part\s+([a-z])\b", unit.path[0] if unit.path else "", re.I)
        if plan := _plan_of(unit, plans):
            fields["plans"] = plan
        elif part and any(part[1].upper() in letters for letters in excluded.values()):
            fields["plans"] = tuple(p for p in plans if part[1].upper() not in excluded.get(p, set()))
        optional = next((h for h in unit.path if OPTIONAL.search(h)), None)
        if optional is None:  # a section said to be optional in its opening text, all of it
            optional = next(
                (h for prefix, h in said_optional.items() if unit.path[: len(prefix)] == prefix), None
            )
        if optional is None and unit.blocks and OPTIONAL_TEXT.search(unit.blocks[0].text):
            at = next((k for k in range(len(unit.path) - 1, -1, -1) if not is_generic(unit.path[k])), None)
            if at is not None:
                optional = unit.path[at]
                said_optional[unit.path[: at + 1]] = optional
        if own := endorsement_key(unit):
            fields["added_by"] = (own,)  # an endorsement applies where the schedule lists it
        elif optional and unit.kind != "END":
            fields["added_by"] = (section_name(optional),)
        own_entry = endorsement_key(unit) or cid
        removed = tuple(
            e for words, e in removers if e != own_entry and any(words in h.lower() for h in unit.path)
        )
        if removed:
            fields["removed_by"] = removed
        if unit.kind != "END" and unit.citable:
            words = heading_words(" ".join(unit.path[1:]) or unit.heading)
            changed = tuple(
                e
                for letters, heading, e in changers
                if e not in removed and ((part and part[1].upper() in letters) or len(heading & words) >= 2)
            )
            if changed:
                fields["changed_by"] = changed
        out.append(fields)
    return out
