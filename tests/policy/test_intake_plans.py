"""The intake refuses a plan that the wording governing the term's start names none of; with
no approved wording yet it accepts the plan and says it was not checked."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from agent.policy.intake import IntakeRefused, PolicyBody, check_plans
from knowledge.clauses import ClauseLibrary
from knowledge.importing.pipeline import import_reviewed
from knowledge.importing.sample import render_pdf
from knowledge.ingest import ingest
from knowledge.manifest import Registry


def body(plan: str, start: date = date(2026, 9, 1)) -> PolicyBody:
    return PolicyBody(
        family="travel",
        policyholder="Aroha Ngata",
        terms=[{"term_start": start, "term_end": date(start.year + 1, start.month, 1), "plan": plan}],
    )


def test_a_plan_the_governing_wording_does_not_name_is_refused(store, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    library = ClauseLibrary(store)
    # No approved travel wording yet: accepted, with a warning in the response.
    warnings = check_plans(library, body("Platinum"))
    assert len(warnings) == 1 and "not checked" in warnings[0] and warnings[0].startswith("terms.0.plan")
    # The synthetic Kowhai travel wording names Basic, Essentials and Comprehensive.
    _, source = import_reviewed(render_pdf(tmp_path / "travel.pdf"), "travel", "2026.1", "TRV")
    ingest(store, source)
    Registry(store).approve("travel", "2026.1", date(2026, 7, 1), None, "Owner")
    assert check_plans(library, body("comprehensive")) == []  # case aside, as the runtime reads it
    with pytest.raises(IntakeRefused) as refused:
        check_plans(library, body("Platinum"))
    assert refused.value.field == "terms.0.plan"
    assert "names Basic, Comprehensive, Essentials" in refused.value.problem
    # A term that starts before the approved wording's interval is not checked against it.
    assert "not checked" in check_plans(library, body("Platinum", date(2025, 9, 1)))[0]
