"""The reading-order check's allowances (tests/knowledge/reading.py): text a supplement puts
into a clause is printed in the supplement, not on the clause's page, so it is looked for
there, and only it (a small PDF drawn in the test); a piece a page break cuts is found either
side of the break, in its order (a Markdown wording). Synthetic text only."""

from __future__ import annotations

from pathlib import Path

from tests.knowledge.reading import misread

SUPPLEMENT = "Your wording is amended by replacing the dot point on page 3 with the following:"
REPLACEMENT = "you must tell us about the damage within 30 days of finding it"
ORIGINAL = ("We pay to repair your boat after storm damage.", "you must tell us about the damage promptly")


def _wording(path: Path) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica", 10)
    c.drawString(60, 750, SUPPLEMENT)
    c.drawString(60, 735, f"• {REPLACEMENT}")
    c.showPage()
    c.showPage()  # page 2 left blank
    for n, line in enumerate(ORIGINAL):
        c.drawString(60, 750 - 15 * n, line)
    c.showPage()
    c.save()
    return path


def test_an_amendments_text_is_looked_for_where_the_supplement_prints_it(tmp_path: Path) -> None:
    """The clause on page 3 holds the supplement's dot point in place of its own: without the
    amendment the check cannot find it on page 3 (it is not printed there); with it, the dot
    point is found on the supplement's page. A piece the amendment did not supply is still
    looked for on the clause's own page only."""
    source = _wording(tmp_path / "amended.pdf")
    unit = {"id": "BOT-COV-01", "pages": [3], "text": f"{ORIGINAL[0]}\n\n- {REPLACEMENT}"}
    amendment = {"applied_to": "BOT-COV-01", "instruction_page": "1", "replacement_text": f"• {REPLACEMENT}"}
    assert misread(source, [unit]) == [("BOT-COV-01", REPLACEMENT)]
    assert misread(source, [unit], [amendment]) == []
    stray = {**unit, "text": f"{unit['text']}\n\nYour wording is amended"}
    assert misread(source, [stray], [amendment]) == [("BOT-COV-01", "Your wording is amended")]
    other = {**amendment, "applied_to": "BOT-COV-02"}
    assert misread(source, [unit], [other]) == [("BOT-COV-01", REPLACEMENT)]


MARKDOWN = """## Courtesy car

We lend you a courtesy car while your car is
---
Section 2: Your car continued

being repaired by one of our repairers. Ask [our team](https://example.invalid/help) first.
"""


def test_a_markdown_page_is_read_on_its_own_and_a_piece_a_page_break_cuts_is_found_either_side(
    tmp_path: Path,
) -> None:
    source = tmp_path / "car.md"
    source.write_text(MARKDOWN)
    whole = "We lend you a courtesy car while your car is being repaired by one of our repairers."
    linked = "Ask our team first."
    unit = {"id": "MTR-BEN-01", "pages": [1, 2], "text": f"Courtesy car\n\n{whole}\n\n{linked}"}
    assert misread(source, [unit], []) == []
    swapped = whole.replace("being repaired", "repaired being")
    later = {"id": "MTR-BEN-02", "pages": [1, 2], "text": f"Courtesy car\n\n{swapped}"}
    assert misread(source, [later], []) == [("MTR-BEN-02", swapped)]
