"""Word lists kept as data (a TOML file beside the module that reads them) and the one way they
become a regular expression: an alternation in the order written."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path


def word_lists(name: str) -> dict[str, list[str]]:
    """The lists of agent/boundary/NAME, read once by the module that uses them."""
    return tomllib.loads(Path(__file__).with_name(name).read_text(encoding="utf-8"))


def either(words: list[str]) -> str:
    """One alternation of a word list, in its order (a longer entry first where that matters)."""
    return "(?:" + "|".join(words) + ")"


def any_word(words: list[str], flags: int = 0) -> re.Pattern[str]:
    """Any entry of a word list, standing as a whole word (or words)."""
    return re.compile(rf"\b{either(words)}\b", flags)
