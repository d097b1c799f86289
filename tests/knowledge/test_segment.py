"""The import's layout cleaning and units by meaning, on blocks made in the test."""

from __future__ import annotations

from knowledge.importing.extract.blocks import Block
from knowledge.importing.extract.cleanup import drop_furniture, rejoin
from knowledge.importing.extract.markup import from_markdown
from knowledge.importing.pipeline import BODY_BUDGET
from knowledge.importing.segment import kind_of, render, segment, split_long
from knowledge.importing.titles import draft_title
from knowledge.rules import MAX_CLAUSE_CHARS


def test_running_headers_and_page_numbers_are_removed_by_frequency() -> None:
    blocks = []
    for page in range(1, 7):
        blocks += [
            Block("para", "Harbour Mutual boat policy wording", page),
            Block("para", f"Body text of page {page} says what is covered here.", page),
            Block("para", f"Page {page} of 6", page),
        ]
    kept = drop_furniture(blocks)
    assert [b.text for b in kept] == [
        f"Body text of page {p} says what is covered here." for p in range(1, 7)
    ]


def test_a_sentence_cut_by_a_page_break_is_joined() -> None:
    blocks = [
        Block("para", "We pay for towing to the nearest safe place and for storage", 3),
        Block("para", "until we have assessed the damage to your boat.", 4),
        Block("para", "A new paragraph starts here.", 4),
    ]
    joined = rejoin(blocks)
    assert len(joined) == 2 and joined[0].text.endswith("assessed the damage to your boat.")


def test_markdown_pages_headings_lists_and_tables_are_blocks() -> None:
    text = (
        "# Boat cover\n\nIntro line.\n\n- storm\n- **fire**\n---\n|Cover|Limit|\n|---|---|\n|Hull|€40,000|\n"
    )
    blocks = from_markdown(text)
    assert [(b.kind, b.page) for b in blocks] == [
        ("heading", 1),
        ("para", 1),
        ("item", 1),
        ("item", 1),
        ("row", 2),
        ("row", 2),
    ]
    assert blocks[3].text == "• fire"


def test_a_long_list_is_split_with_its_lead_in_repeated() -> None:
    lead = Block("para", "We do not pay for any of the following losses to your boat:")
    items = [
        Block("item", f"• loss number {n} described at some length " + "so that it fills " * 8)
        for n in range(30)
    ]
    blocks = [Block("heading", "Boat exclusions", level=1), lead, *items]
    units, _ = segment(blocks, BODY_BUDGET)
    parts = split_long(units[0], BODY_BUDGET)
    assert len(parts) > 1
    assert all(p.blocks[0] == lead for p in parts)
    assert sum(len(p.blocks) - 1 for p in parts) == len(items)
    assert all(len(p.body()) <= BODY_BUDGET < MAX_CLAUSE_CHARS for p in parts)
    titles = [draft_title(p) for p in parts]
    assert len(set(titles)) == len(titles) and titles[0].endswith(f"(part 1 of {len(parts)})")


def test_a_benefit_keeps_its_covered_and_conditions_headings_in_one_unit() -> None:
    blocks = [
        Block("heading", "Towing and salvage benefit", level=2),
        Block("para", "If your boat cannot move after an insured event."),
        Block("heading", "Covered", level=3),
        Block("item", "• towing to the nearest safe harbour"),
        Block("heading", "Conditions", level=3),
        Block("item", "• we must agree to the towing first"),
    ]
    units, _ = segment(blocks, BODY_BUDGET)
    assert len(units) == 1 and units[0].kind == "BEN"
    assert "Covered:" in render(units[0].blocks) and "Conditions:" in render(units[0].blocks)


def test_kinds_follow_headings_definitions_and_endorsements_first() -> None:
    assert kind_of(("Definitions", "Excess")) == "DEF"
    assert kind_of(("Definitions", "Claims conditions")) == "CLM"
    assert kind_of(("Endorsements", "Endorsement 9 – Exclusion of belongings")) == "END"
    assert kind_of(("Part A: Loss and damage", "What is not covered")) == "EXC"
    assert kind_of(("Part B: Liability to others", "What is covered")) == "COV"


def test_notes_and_contents_pages_are_not_contract_text() -> None:
    blocks = [
        Block("heading", "Contents", level=1),
        *(Block("para", f"Section {n} title {n + 2}") for n in range(6)),
        Block("heading", "Contact us", level=1),
        Block("para", "Call us on the number on your schedule."),
        Block("heading", "Making a complaint", level=1),
        Block("para", "Write to the complaints desk; we reply within ten days."),
        Block("heading", "Privacy", level=1),
        Block("para", "We use your information only to manage your policy and claims."),
    ]
    units, left_out = segment(blocks, BODY_BUDGET)
    contact, complaint, privacy = units
    assert not contact.citable and contact.kind == "GEN"
    # complaints and privacy are terms a claimant asks about: quotable clauses (issue 39.7)
    assert complaint.citable and privacy.citable
    assert left_out and "table of contents" in left_out[0]


def test_a_contents_page_without_a_contents_heading_is_left_out() -> None:
    # Each entry a heading with its page over a line of its parts with theirs, as AXA home sets it.
    entries = [("Your home 3", "Cover 3 Events 5"), ("Your contents 8", "Cover 8 Events 11")]
    entries += [("About your policy 14", "Conditions 14 Claims 17 Complaints 20")]
    blocks = [Block("heading", "Harbour Mutual home policy", 1, 1)]
    blocks += [Block("para", "Welcome to your policy.", 1)]
    for heading, parts in entries:
        blocks += [Block("heading", heading, 2, 1), Block("para", parts, 2)]
    for page in range(3, 8):
        blocks += [
            Block("heading", f"Section {page}", page, 1),
            Block("para", f"We pay up to NZD {page},000 for loss on page {page} of the policy.", page),
        ]
    units, notes = segment(blocks, BODY_BUDGET)
    assert [u.page for u in units].count(2) == 0, [u.heading for u in units]
    assert [n for n in notes if "contents on page 2" in n]
    assert len(units) == 6  # the welcome and the five sections
