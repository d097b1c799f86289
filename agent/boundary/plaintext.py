"""Reply text as the boundary reads it: folded to plain Latin text, then taken apart into
quotations, clause IDs, figures and contact details.

Folding is what makes the checks hold for any model: a curly apostrophe, a zero-width
character or a Cyrillic "а" inside "approved" reads the same as the plain word.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache

from confusable_homoglyphs import confusables

from knowledge.clauses import verbatim
from knowledge.source import ID_NUMBER

_QUOTE_MARKS = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛′‵ʹʻʼʽˈ`´", "'"),
        **dict.fromkeys("“”„‟″‶«»〝〞＂", '"'),
        **dict.fromkeys("‐‑‒–—―−⁃﹣－", "-"),
    }
)


@cache
def _latin(char: str) -> str:
    """The ASCII letter a non-Latin look-alike (Cyrillic "а", Greek "ο") stands for, else the char."""
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin", "common"])
    if found:
        for glyph in found[0]["homoglyphs"]:
            latin = glyph["c"]
            if len(latin) == 1 and latin.isascii() and latin.isalpha():
                # Cyrillic "І" is listed as a look-alike of "l"; as a capital it reads "I".
                if char.isupper() and latin.islower():
                    return "I" if latin == "l" else latin.upper()
                return latin
    return char


def fold(text: str, *, casefold: bool = True) -> str:
    """NFKC; curly quotes, apostrophes and odd dashes made plain; invisible and format
    characters dropped; accents stripped; look-alike letters folded to Latin; whitespace
    collapsed; lower case unless told otherwise."""
    return _fold(text, casefold)


# Clause texts are folded by several checks on every turn: remember the latest ones.
@lru_cache(maxsize=2048)
def _fold(text: str, casefold: bool) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_QUOTE_MARKS)
    kept = []
    for char in unicodedata.normalize("NFKD", text):
        category = unicodedata.category(char)
        if category in ("Cf", "Mn", "Me") or (category == "Cc" and char not in "\n\t"):
            continue  # zero-width, joiners, bidi marks, soft hyphens, combining marks
        if not char.isascii() and char.isalpha():
            char = _latin(char)
        kept.append(char)
    text = " ".join(unicodedata.normalize("NFC", "".join(kept)).split())
    return text.lower() if casefold else text


# Quotations ----------------------------------------------------------------------------------

# Double quotes always quote. A single quote quotes only when it opens after a space or
# bracket and closes before a space or punctuation, so apostrophes (it's, drivers') do not.
_DOUBLE = re.compile(r'"([^"]+)"')
_SINGLE = re.compile(r"(?:(?<=^)|(?<=[\s(\[:]))'(?=[^\s'])([^']+?)(?<=[^\s])'(?=$|[\s.,;:!?)\]])")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")


@dataclass(frozen=True)
class Quotation:
    text: str
    start: int
    end: int

    def parts(self) -> list[str]:
        """The quoted words, split where an ellipsis marks left-out text, trimmed of the
        punctuation a sentence adds around a quotation."""
        pieces = (p.strip(" .,;:!?") for p in _ELLIPSIS.split(self.text))
        return [p for p in pieces if p]


def quotations(folded: str) -> list[Quotation]:
    found = [Quotation(m.group(1), m.start(), m.end()) for m in _DOUBLE.finditer(folded)]
    taken = [(q.start, q.end) for q in found]
    for m in _SINGLE.finditer(folded):
        if not any(s <= m.start() < e for s, e in taken):
            found.append(Quotation(m.group(1), m.start(), m.end()))
    return sorted(found, key=lambda q: q.start)


def verbatim_in(quotation: Quotation, folded_sources: list[str]) -> bool:
    """Every part of the quotation is verbatim (knowledge.clauses.verbatim) in one source, all
    folded the same way."""
    parts = quotation.parts()
    return bool(parts) and any(all(verbatim(p, source) for p in parts) for source in folded_sources)


def blank(text: str, spans: list[tuple[int, int]], filler: str = " ") -> str:
    """The text with the given spans replaced, so what is left can be checked alone."""
    out, last = [], 0
    for start, end in sorted(spans):
        if start < last:
            continue
        out.append(text[last:start])
        out.append(filler)
        last = end
    out.append(text[last:])
    return "".join(out)


# Clause IDs ------------------------------------------------------------------------------------

# A clause ID however it is spaced or joined ("MTR EXC 02", "mtr_exc_02"): the loose form of
# knowledge.source.CLAUSE_ID, for finding IDs a model wrote.
CLAUSE_ID = re.compile(
    rf"(?<![a-z0-9])([a-z]{{3}})\s*[-_]\s*([a-z]{{3}})\s*[-_]\s*({ID_NUMBER})(?!\d)", re.IGNORECASE
)


def clause_ids(folded: str) -> list[str]:
    return list(dict.fromkeys(f"{a}-{b}-{n}".upper() for a, b, n in CLAUSE_ID.findall(folded)))


# Figures -----------------------------------------------------------------------------------------

_NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14, "fifteen": 15,
    "twenty": 20, "twenty-one": 21, "thirty": 30, "sixty": 60, "ninety": 90,
}  # fmt: skip
_NUM = r"\d[\d,]*(?:\.\d+)?"
_SCALE = r"(?:\s?(?:k|m|thousand|million)\b)?"
# Amounts in the currencies wordings come in: NZD, AUD (A$), GBP (£), EUR (€) and bare dollars,
# the mark before or the name after the number. A figure's unit is its currency family, so
# "£500" is never sourced by "NZD 500"; dollars of any country count as one family (a reply
# may say "$60" for a clause's "NZD 60").
_BEFORE = r"nzd|nz\s?\$|aud|a\$|au\$|usd|us\$|\$|gbp|£|eur|€"
_AFTER = (
    r"nzd\b|aud\b|gbp\b|eur\b|(?:nz |new zealand |australian |us )?dollars?\b"
    r"|pounds?(?: sterling)?\b|euros?\b"
)
_AMOUNT = re.compile(
    rf"(?:{_BEFORE})\s?({_NUM}){_SCALE}"
    rf"|({_NUM}){_SCALE}\s?(?:{_AFTER})"
    r"|(?<![\d.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?)(?![\d,])"
)
_POUNDS = re.compile(r"£|gbp|pound")
_EUROS = re.compile(r"€|eur")


def _currency(shown: str) -> str:
    return "gbp" if _POUNDS.search(shown) else "eur" if _EUROS.search(shown) else "nzd"


_SCALE_OF = re.compile(r"\s?(k|m|thousand|million)\b")
_WORDS = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
_DURATION = re.compile(rf"\b({_NUM}|{_WORDS})[\s-]?(day|week|month|year|hour|business day|working day)s?\b")
_PERCENT = re.compile(rf"({_NUM})\s?(?:%|per\s?cent\b)")


@dataclass(frozen=True)
class Figure:
    kind: str  # amount | duration | percent
    value: Decimal
    unit: str
    shown: str

    @property
    def key(self) -> tuple[str, Decimal, str]:
        return (self.kind, self.value, self.unit)


def _number(raw: str) -> Decimal | None:
    if raw in _NUMBER_WORDS:
        return Decimal(_NUMBER_WORDS[raw])
    try:
        return Decimal(raw.replace(",", "").rstrip("."))
    except InvalidOperation:
        return None


def figures(folded: str) -> list[Figure]:
    found: list[Figure] = []
    for m in _AMOUNT.finditer(folded):
        raw = next(g for g in m.groups() if g)
        value = _number(raw)
        scale = _SCALE_OF.match(folded, m.end(m.lastindex or 0))
        if value is not None and scale and m.group(3) is None:
            value *= {"k": 1000, "thousand": 1000, "m": 1_000_000, "million": 1_000_000}[scale.group(1)]
        if value is not None:
            found.append(Figure("amount", value.normalize(), _currency(m.group(0)), m.group(0).strip()))
    for m in _DURATION.finditer(folded):
        value = _number(m.group(1))
        unit = m.group(2).replace("business ", "").replace("working ", "")
        if value is not None:
            found.append(Figure("duration", value.normalize(), unit, m.group(0)))
    for m in _PERCENT.finditer(folded):
        value = _number(m.group(1))
        if value is not None:
            found.append(Figure("percent", value.normalize(), "%", m.group(0)))
    return found


def bare_numbers(folded: str) -> set[Decimal]:
    """Every number in a source, for amounts the schedule gives as plain values."""
    values = (_number(n) for n in re.findall(_NUM, folded))
    return {v.normalize() for v in values if v is not None}


# Links and contact details ----------------------------------------------------------------------

_CONTACT = re.compile(
    r"(?:https?://|www\.)[^\s\"')]+"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|(?<![\w.@-])[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:co\.nz|org\.nz|govt\.nz|net\.nz|nz|com|org|net|io|info|"
    r"biz|ly|me|app|link)\b(?:/[^\s\"')]*)?"
    r"|(?<![\w-])(?:\+\s?\d{1,3}[\s-]?)?\(?0?\d{1,4}\)?(?:[\s-]?\d{2,4}){2,4}(?![\w-])"
    r"|\b0(?:800|508|900)\s?[a-z]{4,}\b"
)
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def contacts(folded: str) -> list[str]:
    """URLs, e-mail addresses and phone numbers (seven digits or more) in the text."""
    found = []
    for m in _CONTACT.finditer(folded):
        token = m.group(0).strip().rstrip(".,;:")
        digits = sum(c.isdigit() for c in token)
        looks_like_number = any(c.isalpha() for c in token) or digits >= 7
        if _DATE.match(token) or not looks_like_number or re.fullmatch(r"[\d,.]+", token):
            continue
        found.append(token)
    return found
