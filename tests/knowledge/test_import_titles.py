"""Units by meaning and titles that say it: one definition per unit, titles of whole words
within 90 characters without an ellipsis or a page number, the heading path kept."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest

from knowledge.importing.segment import term_of
from knowledge.importing.titles import MAX_TITLE, shorten
from tests.knowledge import imports
from tests.knowledge.imports import CAR_2021, REAL


@pytest.mark.parametrize("name", REAL)
def test_titles_are_whole_words_within_90_characters(name: str) -> None:
    units = imports.imported(name).report.units
    titles = [u["title"] for u in units]
    assert max(len(t) for t in titles) <= MAX_TITLE
    assert not [t for t in titles if "…" in t or re.search(r"\(page \d+\)", t)]
    assert len({t.lower() for t in titles}) == len(titles)
    # nor alike once "(part N of M)" is set aside: each part of a long unit says what it holds
    bare = [re.sub(r" \(part \d+ of \d+\)$", "", t).lower() for t in titles]
    assert len(set(bare)) == len(bare)
    # a title ends on a whole word: the last word of the title is a word of the unit's text or
    # path (after the drafted "and more" of a list, a part number or a number telling twins apart)
    numbered = 0
    for u in units:
        title = re.sub(r" \(part \d+ of \d+\)$", "", u["title"])
        numbered += bool(re.search(r" \(\d+\)$", title))
        title = re.sub(r" and more$| \(\d+\)$| in this policy$", "", title)
        last = re.findall(r"\w+", title)[-1].lower()
        assert last in (u["text"] + " " + " ".join(u["heading_path"]) + " " + " ".join(u["plans"])).lower()
    assert numbered <= 0.02 * len(units)


@pytest.mark.parametrize("name", REAL)
def test_one_definition_per_unit(name: str) -> None:
    from knowledge.importing.extract.blocks import Block

    for u in imports.imported(name).report.units:
        if u["kind"] != "DEF" or u["split"]:
            continue
        paragraphs = [p for p in u["text"].split("\n\n") if p]
        terms = [p for p in paragraphs if term_of(Block("para", p))]
        assert len(terms) <= 1, (u["id"], len(terms))


def test_a_unit_keeps_the_heading_path_that_gives_it_meaning() -> None:
    # Every citable unit below a part's own heading opens with the headings above it.
    units = imports.imported(CAR_2021).report.units
    nested = [u for u in units if u["citable"] and u["kind"] != "DEF" and len(u["heading_path"]) >= 2]
    assert nested
    for u in nested:
        first = u["text"].split("\n\n", 1)[0]
        assert u["heading_path"][-1] in first


def test_shorten_cuts_between_words_and_never_on_a_dangling_word() -> None:
    title = "Hire car after an incident: we pay for a hire car of a similar size to your car for"
    cut = shorten(title + " up to 21 days after the incident", 80)
    assert len(cut) <= 80 and not cut.endswith((" for", " of", " to", ",", ":"))
    assert title.startswith(cut)


@pytest.mark.parametrize("name", REAL)
def test_sentences_cut_by_a_page_break_are_whole_again(name: str) -> None:
    # A paragraph that stops mid-sentence followed by one that starts in lower case is a
    # sentence the layout cut: none is left in any unit (a running "… continued" line between
    # the halves included).
    cut = 0
    for u in imports.imported(name).report.units:
        paragraphs = [p for p in u["text"].split("\n\n") if p]
        if u["context"]:  # the headings line above the text is not a sentence
            paragraphs = paragraphs[1:]
        for a, b in pairwise(paragraphs):
            if a[-1:].isalpha() and not a.startswith("- ") and b[:1].islower():
                cut += 1
    assert cut == 0
