"""Links to definitions: the wording's main list of definitions applies everywhere, a section's
own list only inside that section (a wording of our own, imported as HTML)."""

from __future__ import annotations

from pathlib import Path

from knowledge.importing.pipeline import import_reviewed

WORDING = [
    ("h1", "Harbour Mutual Home Insurance"),
    ("p", "This home policy is underwritten by Harbour Mutual Insurance Limited. Amounts are in NZD."),
    ("h2", "Definitions"),
    ("h3", "Excess"),
    ("p", "The excess is the amount you pay towards each claim, as shown on your schedule."),
    ("h3", "Home"),
    ("p", "Your home is the dwelling at the address on your schedule, with its garage and fences."),
    ("h2", "Section 1 - Your home"),
    ("h3", "What is covered"),
    ("p", "We pay the reasonable costs of repairing sudden physical loss to your home, less the excess."),
    ("h3", "What is not covered"),
    ("p", "We do not pay for wear and tear, rot or damage by vermin to your home."),
    ("h3", "Your duties"),
    ("p", "You must keep your home in good repair and tell us at once about any loss."),
    ("h3", "Leaving your home empty"),
    ("p", "Tell us before your home is left empty for more than 60 days in a row."),
    ("h2", "Section 2 - Legal protection (optional extra)"),
    ("h3", "Definitions for this section"),
    ("h4", "Costs"),
    ("p", "In this section, costs means the fees of the lawyer we appoint and costs awarded against you."),
    ("h3", "What is covered"),
    ("p", "We pay the costs of a dispute about your home, up to NZD 25,000 for each claim."),
]


def test_a_sections_own_definition_is_linked_only_from_that_section(tmp_path: Path) -> None:
    source = tmp_path / "home.html"
    source.write_text("<html><body>" + "".join(f"<{t}>{x}</{t}>" for t, x in WORDING) + "</body></html>")
    _, draft = import_reviewed(source, "home", "2026.1", "HOM")
    costs = next(c for c in draft.clauses if "costs means" in c.text)
    excess = next(c for c in draft.clauses if "amount you pay towards" in c.text)
    repairs = next(c for c in draft.clauses if "costs of repairing" in c.text)
    dispute = next(c for c in draft.clauses if "costs of a dispute" in c.text)
    assert costs.clause_id in dispute.links  # the section's own word, used there
    assert costs.clause_id not in repairs.links  # "costs" in its plain sense in another section
    assert excess.clause_id in repairs.links  # the main list applies in every section
    # and the titles say where each meaning holds
    assert costs.title.startswith("Meaning of 'Costs' in Section 2 - Legal protection (optional extra):")
    assert excess.title.startswith("Meaning of 'Excess' in this policy:")
