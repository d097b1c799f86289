"""What the draft's header says that the owner may not have given: the insurer the wording
names as underwriting it, and the currency of its amounts."""

from __future__ import annotations

import re
from collections import Counter

# Currency marks, the most frequent one wins; "$" alone is read by the country named most.
CURRENCIES = (
    ("GBP", r"£"),
    ("EUR", r"€"),
    ("NZD", r"\bNZD\b|NZ\$"),
    ("AUD", r"\bAUD\b|A\$"),
    ("$", r"(?<![A-Z])\$"),
)
DOLLAR_COUNTRY = (("AUD", r"\bAustralia"), ("NZD", r"\bNew Zealand"), ("USD", r"\bUnited States|\bU\.S\."))
LEGAL_NAME = re.compile(
    r"\b((?:[A-Z][A-Za-z&]+ )(?:[A-Za-z&]+ ){0,3}(?:plc|Limited|Ltd|SA|S\.A\.|Inc\.?|Company))\b(?:.{0,60}?"
    r"trading as ([A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+){0,3}))?"
)
INSURER_CUE = re.compile(r"underwrit|issued by|insurer|provided by", re.I)


def detect_currency(text: str) -> str:
    counts = {code: len(re.findall(mark, text)) for code, mark in CURRENCIES}
    code = max(counts, key=lambda c: counts[c])
    if not counts[code]:
        return ""
    if code != "$":
        return code
    # "$" alone: the dollar the wording names ("Amounts are in NZD"), else its country's;
    # a wording that says neither is left without one (never guessed as US dollars).
    named = {iso: len(re.findall(rf"\b{iso}\b", text)) for iso in ("NZD", "AUD", "USD", "CAD")}
    if max(named.values()):
        return max(named, key=lambda c: named[c])
    country = max(DOLLAR_COUNTRY, key=lambda c: len(re.findall(c[1], text)))
    return country[0] if re.search(country[1], text) else ""


def detect_insurer(text: str) -> str:
    names: Counter[str] = Counter()
    for sentence in re.split(r"(?<=[.;])\s", text):
        if not INSURER_CUE.search(sentence):
            continue
        for m in LEGAL_NAME.finditer(sentence):
            legal = " ".join(m[1].split())
            names[f"{m[2]} ({legal})" if m[2] else legal] += 1
    used = Counter(" ".join(m[1].split()) for m in LEGAL_NAME.finditer(text))
    if not names:  # no sentence says who underwrites: the legal name the wording uses most
        names.update({n: k for n, k in used.items() if "insur" in n.lower()})
    # A wording may name the underwriter of one optional section too (an assistance company):
    # a name that says insurance comes first, then the one named most often.
    return max(names, key=lambda n: ("insur" in n.lower(), names[n] + used[n])) if names else ""
