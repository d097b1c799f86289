"""What a served sentence brings with it from its clause, so no choice of sentences can bend
the answer. Decided from the clause's own text and structure, never from the question:

- a list item of an exception list brings the whole list ("We do not cover: …");
- the sentence after a served one comes too when it qualifies it (However, except, unless,
  only if, "We do not cover …", a condition);
- a sentence that refers back brings what it refers to: "This …", "… then …", "We do cover …"
  the sentence before it (or the whole list it ends); "These …", "If one of these …" at the
  head of a paragraph the paragraph before it, and in a clause of exceptions every exception
  before it;
- a limit brings the sentence its paragraph opens with (or, opening its paragraph, the one the
  paragraph before opens with), which names what is limited;
- anything the clause gives brings every rule of the clause that names the same thing,
  wherever it sits: its exceptions (the keys exclusion with "theft of the car"), its limits,
  its conditions and its excess ("The standard excess applies to storm and flood claims" a
  paragraph after the storm cover);
- cover brings the exclusions of the same wording that name its subject
  (`exclusions_naming`), from clauses the runtime fetched itself when the model did not.

The runtime's own notes (a limit's subject, a definition served as a definition) are made
here too; whether a referenced clause applies is agent.boundary.statements'.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache

from agent.boundary.units import Unit, items_of
from agent.words import WORD, stem

# A list whose lead-in takes something away: its items are exceptions to the clause.
_EXCEPTION_LEAD = re.compile(
    r"\b(?:do|does|will|shall|can)\s?n[o']t\b|\bnot\s+(?:cover|pay|include|insure)|\bexclu|\bexcept\b|"
    r"\bunless\b|\bwe\s+(?:won't|will\s+not)\b|\bother\s+than\b",
    re.IGNORECASE,
)
# A sentence that qualifies the one before it.
_QUALIFIER_START = re.compile(
    r"^(?:however|but|except|unless|only|provided|otherwise|instead|although|this does not|"
    r"these do not|it does not|they do not|we do not|we don't|we will not|we won't|you must|"
    r"this applies only|this only|the (?:cover|benefit|limit) (?:does not|ends|stops))\b",
    re.IGNORECASE,
)
_QUALIFYING = re.compile(
    r"\b(?:except|unless|only if|only when|only where|provided that|as long as|subject to|but not|"
    r"(?:does|do|will) not (?:include|cover|apply|pay)|(?:is|are) not covered|not included)\b",
    re.IGNORECASE,
)
# A sentence whose meaning comes from the one before it.
_BACK_REFERENCE = re.compile(
    r"^(?:(?:if|when|where|for|once|after|in)\s+)?(?:(?:one|any|all|each|either|both|none|some)\s+of\s+)?"
    r"(?:this|these|that|those|it|they|such|then|the above|so|in that case|in this case|if so)\b",
    re.IGNORECASE,
)
_EARLY_REFERENCE = re.compile(
    r"\b(?:then|these|those|such|above|the same|that (?:benefit|cover|limit))\b", re.IGNORECASE
)
_PLURAL_REFERENCE = re.compile(r"\b(?:these|those|such|above)\b", re.IGNORECASE)
# "We do cover …" in a clause of exceptions: a carve-back of what comes before it.
_CONTRAST = re.compile(r"^(?:we|this|it)\s+(?:do|does)\s+(?:cover|pay|include|apply)\b", re.IGNORECASE)
_LIMIT = re.compile(
    r"\b(?:up to|at most|no more than|the most we (?:will )?pay|maximum|limited to|limit (?:is|of))\b|"
    r"(?:NZD|AUD|GBP|EUR|A\$|£|€|\$)\s?\d|\b\d+\s+(?:days|weeks|months)\b",
    re.IGNORECASE,
)
# A definition names its subject; "This includes:" or "It includes …" refers back instead.
_DEFINES = re.compile(
    r"^(?!(?:this|that|these|those|it|they|which|such)\b)"
    r"[\"“']?[\w' -]{1,60}?[\"”']?\s+(?:means|includes|is defined as)\b",
    re.IGNORECASE,
)
_FUNCTION = frozenset(
    "a an and any are as at be been by can do does each either for from has have if in into is it its "
    "may more most must no not of on one or other our out over per shall so such than that the their "
    "them then there these they this those to under up us was we were what when where which while who "
    "will with within without would you your yours also all only after before because being my me i".split()
)


@cache
def stems(text: str) -> frozenset[str]:
    """The stems of a text's words, function words and numbers left out."""
    words = WORD.findall(text.lower().replace("-", " "))
    return frozenset(stem(w) for w in words if w not in _FUNCTION and not w[0].isdigit())


# Words every sentence of cover uses: what is paid or covered is a sentence's subject, not the
# paying or covering.
_NO_SUBJECT = stems(
    "pay pays paid paying cover covers covered covering include includes included apply applies "
    "accept accepted claim claims policy benefit event schedule insurance insure insured"
)


def is_exception(all_units: tuple[Unit, ...], n: int) -> bool:
    """A unit that takes something away: an item of an exception list, or a sentence that says
    what is not covered or only when it is."""
    unit = all_units[n]
    if unit.item and unit.lead_in is not None:
        return bool(_EXCEPTION_LEAD.search(all_units[unit.lead_in].text))
    return bool(_QUALIFIER_START.match(unit.own) or _QUALIFYING.search(unit.own))


# A sentence that conditions what it names: an excess, a duty, an "only".
_CONDITION = re.compile(
    r"\bexcess\b|\b(?:must|have to|has to|needs? to|needs? our|only|as long as|provided|on condition)\b",
    re.IGNORECASE,
)


def is_rule(all_units: tuple[Unit, ...], n: int) -> bool:
    """A unit that limits, excepts or conditions what it names: an exception, a limit, a
    condition or the excess that applies."""
    unit = all_units[n]
    return is_exception(all_units, n) or is_limit(unit) or bool(_CONDITION.search(unit.own))


def is_limit(unit: Unit) -> bool:
    return bool(_LIMIT.search(unit.own))


def is_definition(unit: Unit) -> bool:
    return bool(_DEFINES.match(unit.own))


DEFINITION_NOTE = "A definition above explains a word your policy uses; it is not a benefit by itself."


def with_qualifiers(all_units: tuple[Unit, ...], served: list[int], title: str = "") -> list[int]:
    """The served units with everything that qualifies them, in the clause's order."""
    chosen = _closure(all_units, set(served))
    # What the clause gives brings its exceptions that name the same thing, and its limits,
    # conditions and excess that name what the clause's title says it gives: by meaning, not
    # by where they sit (a paragraph away is still the same clause).
    generic = _generic(all_units)
    given = [n for n in chosen if not is_exception(all_units, n)]
    subjects = (
        set().union(*(stems(all_units[n].own) - generic - _NO_SUBJECT for n in given)) if given else set()
    )
    titled = (stems(title) - _NO_SUBJECT) & subjects or subjects
    named = {
        n
        for n in range(len(all_units))
        if n not in chosen
        and (
            stems(all_units[n].own) & subjects
            if is_exception(all_units, n)
            # a row of a table or list is another row's sibling, never its rule
            else not all_units[n].item
            and stems(all_units[n].own) & titled
            and is_rule(all_units, n)
            and _labelled_for(all_units[n].own, subjects)
        )
    }
    if named:
        base = chosen
        chosen = _closure(all_units, chosen | named)
        # A rule brought by meaning brings what it refers to, never another row of a list beside
        # the one served (the jewellery row is no part of the phone row's answer).
        chosen = {
            n
            for n in chosen
            if n in base or n in named or not all_units[n].item or is_exception(all_units, n)
        }
    # A lead-in is shown once, above its items (which it brought): never a line of its own too.
    return sorted(n for n in chosen if not items_of(all_units, n))


# "Jewellery and watches: Standard plan NZD 3,000 …": a rule printed as a labelled row.
_LABEL = re.compile(r"^([^:.]{2,60}):\s")


def _labelled_for(text: str, subjects: set[str]) -> bool:
    """A rule printed under a label of its own (a row set out as a sentence) qualifies only what
    its label names: the jewellery row is no rule of the phone row beside it."""
    label = _LABEL.match(text.strip())
    return label is None or bool(stems(label.group(1)) & subjects)


def cover_subject(all_units: tuple[Unit, ...], positions: list[int], title: str) -> frozenset[str]:
    """What a cover clause's served units at `positions` give, as its title names it: the
    title's words that those (not excepting) units speak of (the title's own words when they
    name none of them), less the words every sentence of cover uses."""
    given = [n for n in positions if not is_exception(all_units, n)]
    said = frozenset().union(*(stems(all_units[n].own) for n in given))
    named = stems(title) - _NO_SUBJECT
    return (named & said) or named


def exclusions_naming(subjects: frozenset[str], all_units: tuple[Unit, ...]) -> list[int]:
    """The units of an exclusion clause that take away something `subjects` names (with what
    qualifies them in their clause), [] when none does."""
    hits = {
        n for n in range(len(all_units)) if is_exception(all_units, n) and stems(all_units[n].own) & subjects
    }
    if not hits:
        return []
    return sorted(n for n in _closure(all_units, hits) if not items_of(all_units, n))


def common_words(texts: list[str]) -> frozenset[str]:
    """Words in more than half of these clauses (and in at least three): the wording's setting."""
    counts = Counter(s for t in texts for s in stems(t))
    floor = max(2, len(texts) // 2)
    return frozenset(s for s, c in counts.items() if c > floor)


def _closure(all_units: tuple[Unit, ...], chosen: set[int]) -> set[int]:
    frontier = list(chosen)
    while frontier:
        for m in _brought_by(all_units, frontier.pop()):
            if m not in chosen:
                chosen.add(m)
                frontier.append(m)
    return chosen


def _brought_by(all_units: tuple[Unit, ...], n: int) -> list[int]:
    unit, out = all_units[n], []
    if unit.is_lead_in:
        out += items_of(all_units, n)  # "This includes:" says nothing without what it includes
    if unit.item and unit.lead_in is not None:
        siblings = items_of(all_units, unit.lead_in)
        if is_exception(all_units, n):
            out += siblings  # the rest of an exception list
        else:
            out += [m for m in siblings if _QUALIFYING.search(all_units[m].own)]
    following = n + 1
    if following < len(all_units) and not _same_list(all_units, n, following):
        after = all_units[following]
        if after.is_lead_in and _EXCEPTION_LEAD.search(after.text):
            out += items_of(all_units, following)  # "… We do not cover:" and its items
        elif not after.item and (_QUALIFIER_START.match(after.own) or _refers_back(after)):
            out.append(following)
    if not unit.item and (_refers_back(unit) or _CONTRAST.match(unit.own)):
        out += _referent(all_units, n)
    if is_limit(unit) and not unit.item:
        out += _subject_of_limit(all_units, n)
    return out


def _refers_back(unit: Unit) -> bool:
    own = unit.own
    early = " ".join(own.split()[:5])
    return bool(_BACK_REFERENCE.match(own) or _EARLY_REFERENCE.search(early))


def _referent(all_units: tuple[Unit, ...], n: int) -> list[int]:
    """What a sentence at `n` refers back to: the unit before it, or the whole list it ends; a
    plural reference opening a paragraph, the paragraph before it (and in a clause of
    exceptions, every exception before it)."""
    if n == 0:
        return []
    unit, previous = all_units[n], all_units[n - 1]
    opens = previous.paragraph != unit.paragraph
    if opens and (_PLURAL_REFERENCE.search(" ".join(unit.own.split()[:6])) or _CONTRAST.match(unit.own)):
        before = [m for m in range(n) if all_units[m].paragraph == previous.paragraph]
        exceptions = [m for m in range(n) if is_exception(all_units, m)]
        return before + (exceptions if len(exceptions) * 2 >= n else [])
    if previous.item and previous.lead_in is not None:
        return items_of(all_units, previous.lead_in)
    if previous.is_lead_in:
        return items_of(all_units, n - 1) or [n - 1]
    # The sentence before, and the one its paragraph opens with, which sets its condition
    # ("For a total loss, we pay …" before "The damaged car then belongs to us.").
    return [n - 1, *_topic(all_units, n)]


def _subject_of_limit(all_units: tuple[Unit, ...], n: int) -> list[int]:
    """The sentence that names what a limit limits: the one its paragraph opens with, or for a
    limit that opens its paragraph, the one the paragraph before opens with."""
    topic = _topic(all_units, n)
    if topic or all_units[n].paragraph == 0:
        return topic
    before = [m for m in range(n) if all_units[m].paragraph == all_units[n].paragraph - 1]
    return before[:1] if before and not all_units[before[0]].is_lead_in else []


def _topic(all_units: tuple[Unit, ...], n: int) -> list[int]:
    """The sentence the paragraph of `n` opens with, when it is another one."""
    first = next(m for m in range(n + 1) if all_units[m].paragraph == all_units[n].paragraph)
    return [first] if first != n and not all_units[first].is_lead_in else []


def _same_list(all_units: tuple[Unit, ...], a: int, b: int) -> bool:
    ua, ub = all_units[a], all_units[b]
    return ua.item and ub.item and ua.lead_in == ub.lead_in


def _generic(all_units: tuple[Unit, ...]) -> frozenset[str]:
    """Words in more than half of the clause's units: its setting, not a subject ("car" in a
    motor clause)."""
    counts = Counter(s for u in all_units for s in stems(u.own))
    return frozenset(s for s, c in counts.items() if c * 2 > len(all_units))


def limit_subject_note(all_units: tuple[Unit, ...], n: int, title: str) -> str | None:
    """A limit that opens its paragraph without naming its subject: the runtime names it from
    the clause's title (a limit further into a paragraph comes with the sentence it opens with)."""
    unit = all_units[n]
    if not is_limit(unit) or unit.item or _subject_of_limit(all_units, n) or stems(unit.text) & stems(title):
        return None
    return f"This limit is the one in “{title}”."
