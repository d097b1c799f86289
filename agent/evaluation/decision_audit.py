"""The evaluation's own decision audit: a labelled list of phrases, not the runtime's regex.

The list is a TSV file (`label<TAB>text`, label `decision` or `ok`, `#` comments; by
default tests/boundary/phrases.tsv). A served reply contains a decision when, after its
quoted policy wording and clause titles are removed and the text normalised, it contains a
labelled decision phrase, or matches a pattern built from one: the phrase's words, stemmed,
in order, with up to three other words between them ("your claim has now been approved"
meets "your claim has been approved"). A phrase or pattern found in any `ok` text is not
used, so the list's own counter-examples keep both honest ("Covered!" is a decision; "is
covered up to NZD 1,000" in a sentence about the wording is not).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import snowballstemmer

LABELS = ("decision", "ok")
# Articles, possessives and auxiliaries: "your claim has now been approved" still meets
# "your claim is approved".
_DROP = frozenset(
    "a an the your my our this that it its is are was were be been being has have had will shall".split()
)
_CONTRACTIONS = (
    ("won't", "will not"),
    ("can't", "cannot"),
    ("n't", " not"),
    ("'re", " are"),
    ("'ll", " will"),
    ("'ve", " have"),
    ("'s", " is"),
)
_STEMMER = snowballstemmer.stemmer("english")
_GAP = 3


class PhraseFileError(ValueError):
    """The labelled phrase file is missing or malformed."""


def normalise(text: str) -> str:
    """NFKC, case-folded, curly quotes straightened, everything but letters and digits a space."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = text.replace("’", "'").replace("‘", "'")
    for short, long in _CONTRACTIONS:
        text = text.replace(short, long)
    text = text.replace("'", "")
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def load_phrases(path: Path) -> tuple[list[str], list[str]]:
    """(decision phrases, ok phrases) from a labelled TSV file."""
    if not path.is_file():
        raise PhraseFileError(
            f"decision phrase list {path} not found: pass --decision-phrases PATH "
            "(a TSV of label<TAB>text, label 'decision' or 'ok')"
        )
    decision: list[str] = []
    ok: list[str] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        label, sep, text = line.partition("\t")
        if not sep or label.strip() not in LABELS or not text.strip():
            raise PhraseFileError(f"{path}:{n}: expected 'decision<TAB>text' or 'ok<TAB>text', got {line!r}")
        (decision if label.strip() == "decision" else ok).append(text.strip())
    if not decision:
        raise PhraseFileError(f"{path}: no 'decision' phrases")
    return decision, ok


def _stems(text: str) -> list[str]:
    return [_STEMMER.stemWord(w) for w in normalise(text).split()]


def _pattern(phrase: str) -> re.Pattern[str] | None:
    """The phrase's stemmed words in order, up to _GAP other words between any two."""
    words = [w for w in _stems(phrase) if w not in _DROP]
    if not words:
        return None
    gap = rf"(?: \S+){{0,{_GAP}}} "
    return re.compile(r"(?<!\S)" + gap.join(re.escape(w) for w in words) + r"(?!\S)")


@dataclass
class DecisionAudit:
    decision: list[str]
    ok: list[str]

    def __post_init__(self) -> None:
        ok_plain = [f" {normalise(t)} " for t in self.ok]
        self._phrases = [
            (p, normalise(p))
            for p in self.decision
            if normalise(p) and not any(f" {normalise(p)} " in t for t in ok_plain)
        ]
        ok_stemmed = [" ".join(_stems(t)) for t in self.ok]
        self._patterns: list[tuple[str, re.Pattern[str]]] = []
        for phrase in self.decision:
            pattern = _pattern(phrase)
            if pattern and not any(pattern.search(t) for t in ok_stemmed):
                self._patterns.append((phrase, pattern))

    @classmethod
    def from_file(cls, path: Path) -> DecisionAudit:
        return cls(*load_phrases(path))

    def find(self, text: str, quoted: Iterable[str] = ()) -> str | None:
        """The labelled decision phrase this text contains (or matches), or None."""
        own = normalise(text)
        for q in sorted((normalise(q) for q in quoted), key=len, reverse=True):
            if q:
                own = own.replace(q, " ")
        own = " ".join(own.split())
        for phrase, norm in self._phrases:
            if f" {norm} " in f" {own} ":
                return phrase
        stemmed = " ".join(_STEMMER.stemWord(w) for w in own.split())
        for phrase, pattern in self._patterns:
            if pattern.search(stemmed):
                return f"{phrase} (pattern)"
        return None
