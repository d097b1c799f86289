"""Words of a text, stemmed: the one stemmer the runtime's readings (agent.boundary) and the
offline model (agent.models) share."""

from __future__ import annotations

import re
import threading
from functools import cache

import snowballstemmer

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# A Snowball stemmer keeps its working state on the object, so two threads sharing one
# corrupt each other's words (IndexError, wrong stems): one stemmer per thread.
_PER_THREAD = threading.local()


def _stemmer() -> snowballstemmer.stemmer:
    stemmer = getattr(_PER_THREAD, "stemmer", None)
    if stemmer is None:
        stemmer = _PER_THREAD.stemmer = snowballstemmer.stemmer("english")
    return stemmer


@cache
def stem(word: str) -> str:
    """Snowball's English stemmer, after dropping a possessive ('landlord's' → 'landlord').
    Safe from any thread: the cache only keeps results; the stemming is per thread."""
    return _stemmer().stemWord(word.removesuffix("'s").replace("'", ""))


def tokens(text: str) -> list[str]:
    """Lower-cased, stemmed words of a text (hyphens split words)."""
    return [stem(w) for w in WORD.findall(text.lower().replace("-", " "))]
