"""Words for the offline model: stemming and a general insurance vocabulary.

Customers rarely use a clause title's words ("loaner" for "hire car", "nicked" for
"stolen"), so question and title words are both mapped to shared concepts before they are
compared. The vocabulary is what a person who knows insurance would write down without
looking at any customer question: everyday synonyms of the subjects a car, home or contents
wording deals with. A phrase of more than one word is used only when it occurs in a policy
wording (a test holds this); everything else is single words, stemmed by Snowball.

Concepts in STRONG name a specific subject: a question that names one that no title of the
claimant's wording has is not about this policy. The answerability cues at the end (other
products, service requests, claim progress, advice, complaints) are words for what no
policy wording answers, with a few set phrases of everyday usage ("press charges").
"""

from __future__ import annotations

import re
import tomllib
from functools import lru_cache
from pathlib import Path

from agent.words import stem, tokens

# The word lists are data (vocabulary.toml beside this file), so what was tuned is plain to see.
_DATA = tomllib.loads(Path(__file__).with_name("vocabulary.toml").read_text(encoding="utf-8"))
STOPWORDS = frozenset(_DATA["stopwords"])
GENERIC = frozenset(_DATA["generic"])
CONCEPTS: dict[str, tuple[str, ...]] = {name: tuple(words) for name, words in _DATA["concepts"].items()}
STRONG = frozenset(f"#{c}" for c in CONCEPTS) - {f"#{c}" for c in _DATA["not_strong"]}
_CUES = _DATA["cues"]
PRODUCTS = frozenset(_CUES["products"])
PRODUCT_NOUNS = frozenset(_CUES["product_nouns"])
SELLING = frozenset(_CUES["selling"])
FINANCE = frozenset(_CUES["finance"])
SERVICE_VERBS = frozenset(_CUES["service_verbs"])
SERVICE_PLACES = frozenset(_CUES["service_places"])
PROGRESS = frozenset(_CUES["progress"])
PROGRESS_PEOPLE = frozenset(_CUES["progress_people"])
ADVICE = frozenset(_CUES["advice"])
COMPLAINT = frozenset(_CUES["complaint"])
PRICE = frozenset(_CUES["price"])
DECISION = frozenset(_CUES["decision"])
OTHER_INSURER = frozenset(_CUES["other_insurer"])
LEGAL_ACTION = frozenset(_CUES["legal_action"])
# Set phrases of everyday usage, by the kind of question they make.
CUE_PHRASES: dict[str, tuple[re.Pattern[str], ...]] = {
    kind: tuple(re.compile(p, re.IGNORECASE) for p in patterns)
    for kind, patterns in _DATA["cue_phrases"].items()
}


def stemmed(words: frozenset[str]) -> frozenset[str]:
    return frozenset(stem(w) for w in words)


def _phrase_table() -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """Stemmed phrase -> every concept ('#name', never a word) it names, longest first."""
    table: dict[tuple[str, ...], set[str]] = {}
    for concept, phrases in CONCEPTS.items():
        for phrase in phrases:
            table.setdefault(tuple(tokens(phrase)), set()).add(f"#{concept}")
    return sorted(((k, frozenset(v)) for k, v in table.items() if k), key=lambda kv: -len(kv[0]))


_PHRASES = _phrase_table()
# Phrases by their first word, with their rank in _PHRASES, so a text is scanned once.
_BY_FIRST: dict[str, list[tuple[int, tuple[str, ...], frozenset[str]]]] = {}
for _rank, (_phrase, _concepts) in enumerate(_PHRASES):
    _BY_FIRST.setdefault(_phrase[0], []).append((_rank, _phrase, _concepts))
STOP = STOPWORDS | stemmed(STOPWORDS)
GENERIC_STEMS = GENERIC | stemmed(GENERIC)


@lru_cache(maxsize=16384)
def terms(text: str) -> frozenset[str]:
    """Concepts ('#theft') and stemmed content words of a text.

    Phrases are matched on stemmed words ('child car seats' meets 'car seat'), longest
    first; the words of a matched phrase are used up, so 'rental car' is not also 'car'.
    Cached: titles and clause sentences recur on every turn.
    """
    words = tokens(text)
    matches = [
        (rank, i, phrase, concepts)
        for i, word in enumerate(words)
        for rank, phrase, concepts in _BY_FIRST.get(word, ())
        if tuple(words[i : i + len(phrase)]) == phrase
    ]
    used = [False] * len(words)
    found: set[str] = set()
    for _, i, phrase, concepts in sorted(matches, key=lambda m: (m[0], m[1])):
        n = len(phrase)
        if not any(used[i : i + n]):
            found |= concepts
            used[i : i + n] = [True] * n
    for word, taken in zip(words, used, strict=True):
        if not taken and word not in STOP and len(word) > 2:
            found.add(word)
    return frozenset(found)
